/**
 * What New run remembers between visits (localStorage): the last form the user queued or edited,
 * so the next run starts from it. Read field by field: a value of the wrong kind (an older build's,
 * a hand edit) is dropped and that field takes its default, rather than breaking the form.
 */
const KEY = 'wapii.newRun.settings';

/** Each remembered field and what it may hold: a primitive type, a list of strings, or one of the words given. */
const FIELDS = {
  datasetId: 'number',
  apis: 'strings',
  reviewStates: 'strings',
  limit: 'string',
  sampleSize: 'string',
  sampleSeed: 'string',
  stratify: ['none', 'api'],
  source: ['local', 'remote', 'hosted'],
  provider: 'string',
  providerModel: 'string',
  baseUrl: 'string',
  spendingCap: 'string',
  batch: 'boolean',
  repairRounds: 'string',
  modelId: 'number',
  remoteUrl: 'string',
  remoteModel: 'string',
  grid: 'strings',
  conditions: 'strings',
  retrieved: 'boolean',
  retrievedK: 'string',
  prompt: ['completion', 'chat'],
  greedy: 'boolean',
  temperature: 'string',
  topK: 'string',
  topP: 'string',
  seed: 'string',
  n: 'string',
  maxTokens: 'string',
  parallel: 'string',
  contextSize: 'string',
} as const;

type Kind = (typeof FIELDS)[keyof typeof FIELDS];
type ValueOf<K> = K extends 'number' ? number : K extends 'string' ? string : K extends 'boolean' ? boolean : K extends 'strings' ? string[] : K extends readonly (infer W)[] ? W : never;
export type NewRunSettings = { -readonly [F in keyof typeof FIELDS]: ValueOf<(typeof FIELDS)[F]> };

const fits = (kind: Kind, value: unknown): boolean =>
  kind === 'strings' ? Array.isArray(value) && value.every((v) => typeof v === 'string') : Array.isArray(kind) ? (kind as readonly string[]).includes(value as string) : typeof value === kind;

/** The remembered settings that still make sense; {} when none are stored or storage is unavailable. */
export function readNewRunSettings(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): Partial<NewRunSettings> {
  try {
    const parsed: unknown = JSON.parse(storage?.getItem(KEY) ?? 'null');
    if (typeof parsed !== 'object' || parsed === null) return {};
    const stored = parsed as Record<string, unknown>;
    return Object.fromEntries(Object.entries(FIELDS).filter(([field, kind]) => fits(kind, stored[field])).map(([field]) => [field, stored[field]])) as Partial<NewRunSettings>;
  } catch {
    return {};
  }
}

/** Stores the form as it is now; a full or blocked storage only loses the memory, never the run. */
export function writeNewRunSettings(settings: Partial<NewRunSettings>, storage: Pick<Storage, 'setItem'> | undefined = globalThis.localStorage): void {
  try {
    storage?.setItem(KEY, JSON.stringify(settings));
  } catch {
    // Nothing to do: the next visit starts from the defaults.
  }
}
