import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, session, shell, type WebContents } from 'electron';

/** The content policy of the renderer's page; sent as a header too, so the dev server's page gets it. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Which URLs are the app's own page: exactly the built renderer file, or (in development) the
 * dev server's origin. Compared by origin or whole path, never by prefix (`http://localhost:5173`
 * is a prefix of `http://localhost:51730`).
 */
export function trustedPage(rendererUrl: string | undefined, rendererFile: string): (url: string) => boolean {
  const own = rendererUrl ? new URL(rendererUrl).origin : pathToFileURL(path.resolve(rendererFile)).href;
  return (url) => {
    try {
      const parsed = new URL(url);
      if (rendererUrl) return parsed.origin === own;
      parsed.hash = '';
      parsed.search = '';
      return parsed.href === own;
    } catch {
      return false;
    }
  };
}

/**
 * Electron's security checklist, applied to every web contents the app ever creates: no
 * navigation away from the app's page, no new windows (https links open in the browser), no
 * <webview>, no permission (camera, notifications, ...) granted, the content policy as a header.
 * Call before the app is ready (app.enableSandbox must come first).
 */
export function hardenElectron(isTrusted: (url: string) => boolean): void {
  app.enableSandbox();
  app.on('web-contents-created', (_, contents: WebContents) => {
    contents.on('will-navigate', (event, url) => {
      if (!isTrusted(url)) event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (!isTrusted(url)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      if (url.startsWith('https://')) void shell.openExternal(url);
      return { action: 'deny' };
    });
  });
  void app.whenReady().then(() => {
    session.defaultSession.setPermissionRequestHandler((_, __, callback) => callback(false));
    session.defaultSession.setPermissionCheckHandler(() => false);
    session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
      callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CONTENT_SECURITY_POLICY] } });
    });
  });
}
