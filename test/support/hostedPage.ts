import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser.js';
import { startHostedStandIn } from './hostedStandIn.js';
import { ARTIFACTS, REPO_ROOT, tempDir } from './paths.js';
import { startServe, type ServeProcess } from './serve.js';

/** Whether `npm run build` has written the renderer that `wapii serve` sends. */
export const rendererBuilt = (): boolean => fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));

/** A hosted provider's stand-in, `wapii serve` with its key in the environment, and a Chromium page: the hosted-model page tests' fixture. */
export interface HostedPage {
  readonly standIn: Awaited<ReturnType<typeof startHostedStandIn>>;
  readonly serve: ServeProcess;
  readonly browser: Browser;
  readonly page: Page;
  /** Closes the browser, serve and the stand-in, and removes the database's folder. */
  close(): Promise<void>;
}

export async function openHostedPage(options: { standIn: Parameters<typeof startHostedStandIn>[0]; env: NodeJS.ProcessEnv }): Promise<HostedPage> {
  if (!rendererBuilt()) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
  const dir = tempDir();
  const standIn = await startHostedStandIn(options.standIn);
  const serve = await startServe(['--db', path.join(dir, 'hosted.db')], { env: options.env });
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  return {
    standIn,
    serve,
    browser,
    page,
    async close() {
      await browser.close();
      await serve.stop();
      await standIn.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
