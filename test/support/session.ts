import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { launchChromium } from './browser.js';
import { ARTIFACTS, REPO_ROOT } from './paths.js';
import { startServe, type ServeProcess } from './serve.js';

/** Whether `npm run build` has written the renderer that `wapii serve` serves. */
export const rendererBuilt = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));

export interface Session {
  readonly serve: ServeProcess;
  readonly browser: Browser;
  readonly page: Page;
  close(): Promise<void>;
}

/** What a browser test starts from: the real `wapii serve` (global `args`, serve's own `serveArgs`) and Chromium on one page. */
export async function openSession(args: readonly string[], options: { serveArgs?: readonly string[]; page?: BrowserContextOptions } = {}): Promise<Session> {
  if (!rendererBuilt) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
  const serve = await startServe(args, { serveArgs: options.serveArgs ?? [] });
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 }, ...options.page });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return {
    serve,
    browser,
    page,
    close: async () => {
      await browser.close();
      await serve.stop();
    },
  };
}
