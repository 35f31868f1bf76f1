import type { Method, WorkbenchApi, WorkbenchEvent } from '../../main/api/contract.js';
import { METHOD_NAMES, type Envelope } from '../../main/api/constants.js';
import { createFetchClient, unwrapEnvelope } from '../../main/api/fetchClient.js';
import { useConnection } from './connection.js';
import { useNotices } from './notices.js';

export type Client = WorkbenchApi & { onEvent(listener: (event: WorkbenchEvent) => void): () => void };

type Bridge = Record<Method, (input: unknown) => Promise<Envelope<unknown>>> & {
  onEvent(listener: (event: WorkbenchEvent) => void): () => void;
  /** Electron's file dialog for a model file: the chosen path, or undefined when cancelled. */
  pickModelFile?(): Promise<string | undefined>;
};

declare global {
  interface Window {
    /** Set by the Electron preload script; absent in a browser on `wapii serve`. */
    wapii?: Bridge;
  }
}

/**
 * One client whatever the transport: Electron IPC through the preload bridge, or HTTP + SSE
 * against `wapii serve` (same origin, the token in a cookie). The rest of the renderer never
 * knows which.
 */
export function createClient(): Client {
  const bridge = window.wapii;
  if (!bridge) {
    return Object.assign(unreachableSaid(createFetchClient({ baseUrl: '' })), { onEvent: serverEvents() });
  }
  const client: Record<string, unknown> = { onEvent: (l: (e: WorkbenchEvent) => void) => bridge.onEvent(l) };
  for (const method of METHOD_NAMES) client[method] = async (input: unknown) => unwrapEnvelope(await bridge[method](input));
  return client as Client;
}

/** What a call says when serve does not answer at all (fetch's own words are "Failed to fetch"). */
export const UNREACHABLE = 'the server did not answer: `wapii serve` has stopped or cannot be reached; the page reconnects when it is back';

/** A call that gets no answer (a network error, not an error answer) says so in words a reader can act on. */
function unreachableSaid(api: WorkbenchApi): WorkbenchApi {
  const out: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const method of METHOD_NAMES) {
    const call = api[method] as (input: unknown) => Promise<unknown>;
    out[method] = (input) =>
      call(input).catch((error: unknown) => {
        // The banner follows the event stream alone: a call's failure would set it with nothing to clear it.
        throw error instanceof TypeError ? new Error(UNREACHABLE) : error;
      });
  }
  return out as WorkbenchApi;
}

/** What every page reloads on once the stream is back: whatever changed meanwhile went unheard. */
const CATCH_UP: readonly WorkbenchEvent[] = [{ type: 'datasetsChanged' }, { type: 'runsChanged' }, { type: 'modelsChanged' }];
/** Between tries to open the stream again once the browser has given up on it (it retries a dropped one itself). */
const REOPEN_MS = 2000;

/**
 * One event stream from `wapii serve` for every subscriber of the page (a browser allows six
 * connections per server), watched: a drop shows on every page (useConnection), and the stream
 * opens again when serve is back. The browser's EventSource retries a dropped connection by
 * itself, but gives up for good on an answer other than 200 (serve restarting, a proxy's 502):
 * then it is opened again here, and a 401 (serve restarted with another token) is said as such.
 */
function serverEvents(): (listener: (event: WorkbenchEvent) => void) => () => void {
  const listeners = new Set<(event: WorkbenchEvent) => void>();
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const lost = (): void => {
    if (useConnection.getState().lostAt === undefined) useConnection.setState({ lostAt: Date.now() });
  };
  const open = (): void => {
    const s = new EventSource('/api/events', { withCredentials: true });
    source = s;
    s.onopen = () => {
      const wasLost = useConnection.getState().lostAt !== undefined;
      useConnection.setState({ lostAt: undefined, refused: undefined });
      if (!wasLost) return;
      // A call that failed while serve was gone would still read as this page's error.
      if (useNotices.getState().error === UNREACHABLE) useNotices.getState().dismissError();
      for (const event of CATCH_UP) for (const l of [...listeners]) l(event);
    };
    s.onmessage = (message: MessageEvent<string>) => {
      const event = JSON.parse(message.data) as WorkbenchEvent;
      for (const l of [...listeners]) l(event);
    };
    s.onerror = () => {
      lost();
      if (s.readyState !== EventSource.CLOSED || source !== s) return;
      timer = setTimeout(() => {
        if (listeners.size === 0 || source !== s) return;
        // An answer, but not the stream: a 401 is a token this page no longer has.
        void fetch('/api/events', { method: 'HEAD', credentials: 'same-origin' })
          .then((r) => useConnection.setState({ refused: r.status === 401 ? 'the server is back but refuses this page: open the URL `wapii serve` printed (its token changes at each start unless serve has --token-file)' : undefined }))
          .catch(() => undefined)
          .finally(() => source === s && listeners.size > 0 && open());
      }, REOPEN_MS);
    };
  };
  return (listener) => {
    listeners.add(listener);
    if (!source) open();
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && source) {
        source.close();
        source = undefined;
        clearTimeout(timer);
      }
    };
  };
}

/** The native file dialog for a model file, where the shell offers one (Electron); undefined in a browser. */
export function modelFilePicker(): (() => Promise<string | undefined>) | undefined {
  const bridge = window.wapii;
  return bridge?.pickModelFile ? () => bridge.pickModelFile!() : undefined;
}

let shared: Client | undefined;
/** The app's one client (one event stream), created on first use. */
export function getClient(): Client {
  return (shared ??= createClient());
}
