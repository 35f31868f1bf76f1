import type { Method, WorkbenchApi, WorkbenchEvent } from './contract.js';
import { METHOD_NAMES, type Envelope } from './constants.js';

/** The error a call rejects with on the client side: the service's code and its message. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export function unwrapEnvelope<T>(envelope: Envelope<T>): T {
  if (!envelope.ok) throw new ApiError(envelope.error.code, envelope.error.message);
  return envelope.value;
}

export interface FetchClientOptions {
  /** '' for same-origin (the renderer on `wapii serve`), else `http://127.0.0.1:PORT`. */
  readonly baseUrl: string;
  /** Sent as a bearer token; omit to rely on the cookie a browser got from the open URL. */
  readonly token?: string;
}

/**
 * The contract over HTTP, on nothing but `fetch`: used by the renderer in a browser and by tests
 * and tools on Node. Imports no engine code, so it bundles small.
 */
export function createFetchClient(options: FetchClientOptions): WorkbenchApi {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (options.token) headers['Authorization'] = `Bearer ${options.token}`;
  const call = async (method: Method, input: unknown): Promise<unknown> => {
    const response = await fetch(`${options.baseUrl}/api/${method}`, { method: 'POST', headers, credentials: 'same-origin', body: JSON.stringify(input ?? {}) });
    let envelope: Envelope<unknown>;
    try {
      envelope = (await response.json()) as Envelope<unknown>;
    } catch {
      throw new ApiError('internal', `the server answered ${response.status} without a result`);
    }
    return unwrapEnvelope(envelope);
  };
  const client: Record<string, (input: unknown) => Promise<unknown>> = {};
  for (const method of METHOD_NAMES) client[method] = (input) => call(method, input);
  return client as WorkbenchApi;
}

/**
 * Server-sent events from `wapii serve`, where EventSource exists (browsers). Every subscriber
 * of one page shares one stream: a browser allows only six connections per server, so a stream
 * per store (runs, datasets, models...) in two or three open tabs would leave no connection for
 * calls, and they would wait forever.
 */
const streams = new Map<string, { source: EventSource; listeners: Set<(event: WorkbenchEvent) => void> }>();
export function subscribeEventSource(baseUrl: string, listener: (event: WorkbenchEvent) => void): () => void {
  let stream = streams.get(baseUrl);
  if (!stream) {
    const source = new EventSource(`${baseUrl}/api/events`, { withCredentials: true });
    const listeners = new Set<(event: WorkbenchEvent) => void>();
    source.onmessage = (message: MessageEvent<string>) => {
      const event = JSON.parse(message.data) as WorkbenchEvent;
      for (const l of [...listeners]) l(event);
    };
    stream = { source, listeners };
    streams.set(baseUrl, stream);
  }
  const { source, listeners } = stream;
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && streams.get(baseUrl)?.source === source) {
      source.close();
      streams.delete(baseUrl);
    }
  };
}
