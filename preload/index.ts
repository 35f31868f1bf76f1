import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { IPC_CHANNEL_PREFIX, IPC_EVENT_CHANNEL, IPC_PICK_MODEL_CHANNEL, METHOD_NAMES } from '../main/api/constants.js';

// One function per contract method and one event subscription; ipcRenderer itself stays private,
// and the sender's Electron event object never reaches the page (Electron's checklist).
const bridge: Record<string, unknown> = {};
for (const method of METHOD_NAMES) bridge[method] = (input: unknown) => ipcRenderer.invoke(IPC_CHANNEL_PREFIX + method, input ?? {});
bridge['onEvent'] = (listener: (event: unknown) => void) => {
  if (typeof listener !== 'function') throw new TypeError('onEvent needs a function');
  const handler = (_: IpcRendererEvent, event: unknown): void => listener(event);
  ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
  return () => ipcRenderer.removeListener(IPC_EVENT_CHANNEL, handler);
};
bridge['pickModelFile'] = () => ipcRenderer.invoke(IPC_PICK_MODEL_CHANNEL) as Promise<string | undefined>;
contextBridge.exposeInMainWorld('wapii', bridge);
