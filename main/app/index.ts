import path from 'node:path';
import { app, BrowserWindow, dialog, ipcMain, safeStorage } from 'electron';
import { IPC_PICK_MODEL_CHANNEL } from '../api/constants.js';
import { registerIpcTransport } from '../api/ipc.js';
import { callMethod, openWorkbench, readDemo } from '../service/index.js';
import { safeStorageKeys } from './keyStore.js';
import { hardenElectron, trustedPage } from './security.js';

/**
 * The Electron shell: one window on the renderer, the service over IPC. The only module that
 * imports `electron`; the engine below it is the same one the CLI and `wapii serve` run.
 */
const rendererUrl = process.env['ELECTRON_RENDERER_URL'];
const rendererFile = path.join(import.meta.dirname, '../renderer/index.html');

const isTrusted = trustedPage(rendererUrl, rendererFile);
hardenElectron(isTrusted);

async function main(): Promise<void> {
  await app.whenReady();
  // Keys typed into the app are kept encrypted with safeStorage in userData, never in the database.
  const apiKeys = safeStorageKeys({ file: path.join(app.getPath('userData'), 'api-keys.json'), safeStorage });
  const workbench = openWorkbench({ db: process.env['WAPII_DB'], apiKeys });
  const seeded = await workbench.service.seedIfEmpty(readDemo(app.getAppPath()));
  if (!seeded.ok) console.error(seeded.error.message);

  const windows = (): BrowserWindow[] => BrowserWindow.getAllWindows();
  registerIpcTransport({
    ipcMain,
    call: (method, input) => callMethod(workbench.service, method, input),
    subscribe: (listener) => workbench.service.onEvent(listener),
    targets: () => windows().map((w) => ({ send: (c, e) => w.webContents.send(c, e), isDestroyed: () => w.isDestroyed() })),
    isTrustedSender: isTrusted,
    log: (m) => console.error(m),
  });

  // The native file dialog for "Add model": it only returns a path the user chose; the page then
  // calls addModel with it, which checks the file like any other path.
  ipcMain.handle(IPC_PICK_MODEL_CHANNEL, async (event): Promise<string | undefined> => {
    const frame = event.senderFrame;
    if (!frame || frame.parent !== null || !isTrusted(frame.url)) return undefined;
    const owner = BrowserWindow.fromWebContents(event.sender);
    const options = { title: 'Add a GGUF model', properties: ['openFile' as const], filters: [{ name: 'GGUF models', extensions: ['gguf'] }] };
    const picked = owner ? await dialog.showOpenDialog(owner, options) : await dialog.showOpenDialog(options);
    return picked.canceled ? undefined : picked.filePaths[0];
  });

  const createWindow = (): void => {
    const win = new BrowserWindow({
      width: 1400,
      height: 900,
      title: 'WAPII Workbench',
      webPreferences: {
        preload: path.join(import.meta.dirname, '../preload/index.cjs'),
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        webSecurity: true,
        webviewTag: false,
        allowRunningInsecureContent: false,
      },
    });
    if (rendererUrl) void win.loadURL(rendererUrl);
    else void win.loadFile(rendererFile);
  };
  createWindow();
  app.on('activate', () => {
    if (windows().length === 0) createWindow();
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  // A run still generating stops as interrupted (resumable) and the model is unloaded before the database closes.
  let quitting = false;
  app.on('will-quit', (event) => {
    if (quitting) return;
    quitting = true;
    event.preventDefault();
    void workbench.shutdown().finally(() => app.exit());
  });
}

void main();
