/**
 * One profile per HTTP client a generated program may call: what the starter opens the call with,
 * what extraction looks for, what a run may do with it and how its captured request is read.
 * Every stage reads the profile of its Setup's client; no code outside the profiles (and the
 * per-client writers they name, keyed by client) compares a client's name. Adding a client is a
 * profile here, its starter and oracle writers in main/prompt and its capture in the sandbox.
 */

export interface ClientProfile {
  /** As messages name it. */
  readonly label: string;
  /** What the starter code ends with where the model takes over: `axios.`, `fetch(`. */
  readonly opener: string;
  /** The line the fixed starter writes before the call to have the client (fetch is a global: none). */
  readonly importLine: string;
  /** The name that line binds (`axios`): a sample's own starter that binds it already needs no import line. */
  readonly binds?: string;
  /** The calls extraction accepts from the setup's start, with what opens each; the first found is cut. */
  readonly calls: readonly { readonly opener: string; readonly pattern: RegExp; readonly shown: string }[];
  /** Constrained decoding covers its calls: the constraint language describes Axios calls (constraints.md). */
  readonly constrainable: boolean;
  /** scoring.md §2: a query value is compared by the text the client sends, not its JSON type (fetch writes it into the URL). */
  readonly queryAsText: boolean;
  /** The client refuses a URL with credentials in it (WHATWG fetch); Axios sends them as Basic auth. */
  readonly refusesUrlCredentials: boolean;
}

const AXIOS_CALL = { opener: 'axios.', pattern: /axios\./g, shown: 'axios.' } as const;

const PROFILES = {
  axios: {
    label: 'Axios',
    opener: 'axios.',
    importLine: "const axios = require('axios');\n",
    binds: 'axios',
    calls: [AXIOS_CALL],
    constrainable: true,
    queryAsText: false,
    refusesUrlCredentials: false,
  },
  fetch: {
    label: 'fetch',
    opener: 'fetch(',
    importLine: '',
    // A model asked for fetch may still write an Axios call: both are read, the first one cut.
    calls: [{ opener: 'fetch', pattern: /(?<![\w$.])fetch\s*\(/g, shown: 'fetch(' }, AXIOS_CALL],
    constrainable: false,
    queryAsText: true,
    refusesUrlCredentials: true,
  },
} as const satisfies Record<string, ClientProfile>;

/** The HTTP client the starter code calls, and so the call that is extracted, run and constrained. */
export type HttpClient = keyof typeof PROFILES;
export const CLIENT_PROFILES: Readonly<Record<HttpClient, ClientProfile>> = PROFILES;
export const HTTP_CLIENTS = Object.keys(PROFILES) as [HttpClient, ...HttpClient[]];
/** The paper's client: a stored setting or captured request that names none means it. */
export const DEFAULT_CLIENT: HttpClient = 'axios';

/** The profile a stored setting names; an absent or unknown name is the default client's. */
export function clientProfile(name: unknown): ClientProfile {
  return typeof name === 'string' && Object.hasOwn(CLIENT_PROFILES, name) ? CLIENT_PROFILES[name as HttpClient] : CLIENT_PROFILES[DEFAULT_CLIENT];
}

/** A stored setting's client, the default for an absent or unknown one. */
export const clientOf = (name: unknown): HttpClient => (typeof name === 'string' && Object.hasOwn(CLIENT_PROFILES, name) ? (name as HttpClient) : DEFAULT_CLIENT);

/** `{ client }` for a client other than the default, else nothing: stored settings and captured requests of the paper's Axios stay as they were. */
export const clientField = (client: HttpClient | undefined): { client?: Exclude<HttpClient, 'axios'> } => (client !== undefined && client !== DEFAULT_CLIENT ? { client: client as Exclude<HttpClient, 'axios'> } : {});
