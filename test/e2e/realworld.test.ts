import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchClient } from '../../main/api/fetchClient.js';
import { readFileInput, readSpecDir } from '../../main/cli/files.js';
import { hasChromium, launchChromium } from '../support/browser.js';
import { ARTIFACTS, REPO_ROOT, tempDir } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';

const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));
const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'realworld');
const unwrap = <T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T => {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

/** A real-world sample's page on `wapii serve`: its starter with the task in place, definitions, template URL, provenance. */
describe.runIf(hasChromium)("a real-world sample's page", () => {
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    if (!built) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    serve = await startServe(['--db', path.join(tempDir('wapii-e2e-rw-'), 'rw.db')], { serveArgs: ['--no-demo'] });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1440, height: 1000 } })).newPage();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it('shows the starter code with the task in place, the definitions, the template URL and a provenance line with the licence', async () => {
    const client = createFetchClient({ baseUrl: serve.url, token: serve.token });
    const dataset = await client.importDataset({ dataset: unwrap(readFileInput(path.join(FIXTURE, 'dataset.json'))), specs: unwrap(readSpecDir(path.join(FIXTURE, 'specs'))), name: 'real-world fixture' });
    const samples = await client.listSamples({ datasetId: dataset.id });
    const sample = samples[1]!;
    await page.goto(serve.openUrl);
    // The page has settled (its URL written from the dataset it chose) before the link is followed
    // in the same tab: a hash set while it boots is replaced by the page's own first write.
    await page.waitForURL(/#\/datasets\?dataset=/);
    await page.goto(`${serve.url}/#/datasets?dataset=${dataset.id}&sample=${encodeURIComponent(sample.id)}`);
    const fields = page.getByTestId('real-world-fields');
    await expect.poll(() => fields.isVisible(), { timeout: 60_000 }).toBe(true);
    expect(await page.getByLabel('Starter code with the task in place').textContent()).toContain(`// ${sample.task}`);
    expect(await page.getByTestId('definitions').textContent()).toContain('const owner = "natsukagami";');
    expect(await page.getByTestId('template-url').textContent()).toContain('https://api.github.com/repos/${owner}/themis-web-interface/releases');
    const provenance = page.getByTestId('sample-provenance');
    expect(await provenance.textContent()).toContain('example/release-watch/src/releases.js @ master · Apache-2.0 · Copyright 2020 Example Contributors');
    expect(await provenance.locator('a').getAttribute('href')).toBe('https://github.com/example/release-watch/blob/master/src/releases.js');
    await page.screenshot({ path: path.join(ARTIFACTS, 'e2e-realworld-sample.png'), fullPage: true });
    await page.getByTestId('sample-detail').screenshot({ path: path.join(ARTIFACTS, 'e2e-realworld-sample-detail.png') });
  });
});
