import type { Method, WorkbenchApi, WorkbenchEvent } from '../../main/api/contract.js';
import { METHOD_NAMES, type Envelope } from '../../main/api/constants.js';
import { createFetchClient, subscribeEventSource, unwrapEnvelope } from '../../main/api/fetchClient.js';

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
    return Object.assign(createFetchClient({ baseUrl: '' }), { onEvent: (l: (e: WorkbenchEvent) => void) => subscribeEventSource('', l) });
  }
  const client: Record<string, unknown> = { onEvent: (l: (e: WorkbenchEvent) => void) => bridge.onEvent(l) };
  for (const method of METHOD_NAMES) client[method] = async (input: unknown) => unwrapEnvelope(await bridge[method](input));
  return client as Client;
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
