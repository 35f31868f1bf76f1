import { METHODS, type Method, type WorkbenchEvent } from './contract.js';
import { toErrorInfo } from './errors.js';
import { IPC_CHANNEL_PREFIX, IPC_EVENT_CHANNEL, type Envelope } from './constants.js';

/** The slice of Electron's ipcMain this transport needs; typed structurally so only main/app imports electron. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: { senderFrame: { url: string; parent?: unknown } | null }, input: unknown) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}
export interface EventTarget {
  send(channel: string, event: WorkbenchEvent): void;
  isDestroyed(): boolean;
}

export interface IpcTransportOptions {
  readonly ipcMain: IpcMainLike;
  readonly call: (method: Method, input: unknown) => Promise<unknown>;
  readonly subscribe: (listener: (event: WorkbenchEvent) => void) => () => void;
  /** Events go to these windows. */
  readonly targets: () => readonly EventTarget[];
  /** Electron's checklist: only the app's own pages may call in. */
  readonly isTrustedSender: (url: string) => boolean;
  readonly log?: (message: string) => void;
}

/** Serves the contract over Electron IPC: one `wapii:<method>` channel per method, answers are Envelopes. */
export function registerIpcTransport(options: IpcTransportOptions): () => void {
  for (const method of METHODS) {
    options.ipcMain.handle(IPC_CHANNEL_PREFIX + method, async (event, input): Promise<Envelope<unknown>> => {
      // Electron's checklist: the app's own page, in its top frame (never an embedded frame).
      const frame = event.senderFrame;
      const topFrame = frame !== null && (frame.parent === null || frame.parent === undefined);
      if (!topFrame || !options.isTrustedSender(frame.url)) return { ok: false, error: { code: 'unauthorized', message: 'call from an untrusted frame' } };
      try {
        return { ok: true, value: await options.call(method, input) };
      } catch (error) {
        return { ok: false, error: toErrorInfo(error, options.log) };
      }
    });
  }
  const unsubscribe = options.subscribe((event) => {
    for (const target of options.targets()) if (!target.isDestroyed()) target.send(IPC_EVENT_CHANNEL, event);
  });
  return () => {
    unsubscribe();
    for (const method of METHODS) options.ipcMain.removeHandler(IPC_CHANNEL_PREFIX + method);
  };
}
