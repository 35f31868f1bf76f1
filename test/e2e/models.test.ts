import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedTestModel } from '../../main/generation/index.js';
import { hasChromium } from '../support/browser.js';
import { downloadStandIn, type StandIn } from '../support/downloadStandIn.js';
import { ARTIFACTS, tempDir } from '../support/paths.js';
import { openSession, type Session } from '../support/session.js';
import { hasVocabBundle } from '../support/vocab.js';

/**
 * `wapii serve` has no file dialog: the Models page offers the GGUF files of the configured models
 * folder (`--models`) that are not in the library yet, and adds the one picked.
 */
describe.runIf(hasChromium && hasVocabBundle)('picking a model from the models folder in Chromium', () => {
  const dir = tempDir();
  const folder = path.join(dir, 'models');
  let session: Session | undefined;
  let serve: Session['serve'];
  let page: Page;

  let server: StandIn | undefined;

  beforeAll(async () => {
    server = await downloadStandIn();
    fs.mkdirSync(path.join(folder, 'spm'), { recursive: true });
    fs.copyFileSync(cachedTestModel('llama-spm'), path.join(folder, 'spm', 'tiny-spm.gguf'));
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'not a model');
    session = await openSession(['--db', path.join(dir, 'models.db')], { serveArgs: ['--no-demo', '--models', folder], page: { viewport: { width: 1400, height: 800 } } });
    ({ serve, page } = session);
  });
  afterAll(async () => {
    await session?.close();
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('lists the folder’s GGUF files, adds the one picked, and offers it no more', async () => {
    await page.goto(serve.openUrl);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Models', exact: true }).click();
    const picker = page.getByLabel('Model in the models folder');
    await expect.poll(() => picker.isVisible(), { timeout: 30_000 }).toBe(true);
    expect(await picker.locator('option').allTextContents()).toEqual(['1 not in the library…', expect.stringMatching(/^spm\/tiny-spm\.gguf \(.+\)$/)]);
    await picker.selectOption({ index: 1 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'e2e-models-pick.png') });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const rows = page.locator('[data-testid=models-table] tbody tr');
    await expect.poll(() => rows.count(), { timeout: 60_000 }).toBe(1);
    expect(await rows.first().textContent()).toContain('tiny-spm');
    // Everything in the folder is in the library now: nothing left to pick.
    await expect.poll(() => picker.isVisible()).toBe(false);
    await page.screenshot({ path: path.join(ARTIFACTS, 'e2e-models-added.png') });
  }, 180_000);

  // Issue 38 item 9: a download row names its file at once, a resume continues its row, a 404 offers no resume, and ended rows can be dismissed.
  it('a download row: its file name at once, one row through cancel and resume, no Resume after a 404, dismissed with ✕', async () => {
    const data = fs.readFileSync(cachedTestModel('qwen2'));
    // No ETag, no Last-Modified: the resume is checked by length.
    server!.routes.set('/files/slow-model.gguf', { data, delayMs: 40 });
    const rows = page.getByTestId('downloads').locator('li');
    await page.getByLabel('Download source').fill(`${server!.origin}/files/slow-model.gguf`);
    await page.getByRole('button', { name: 'Download', exact: true }).click();
    await expect.poll(() => rows.count(), { timeout: 30_000 }).toBe(1);
    expect(await rows.first().locator('.name').textContent()).toBe('slow-model.gguf');
    await expect.poll(async () => Number(await rows.first().getByRole('progressbar').getAttribute('aria-valuenow')), { timeout: 30_000 }).toBeGreaterThan(0);
    await rows.first().getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => rows.first().textContent(), { timeout: 30_000 }).toContain('cancelled');
    await page.screenshot({ path: path.join(ARTIFACTS, 'e2e-models-download-cancelled.png') });
    server!.routes.set('/files/slow-model.gguf', { data });
    await rows.first().getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => rows.first().textContent(), { timeout: 60_000 }).toContain('finished');
    expect(await rows.count()).toBe(1);
    const ranged = server!.seen.filter((r) => r.path === '/files/slow-model.gguf' && r.headers.range);
    expect(ranged).toHaveLength(1);

    // The 404 ends the download before downloadModel's answer reaches the page: holding that answer
    // back makes the failure event come first every time (CI saw the row stuck at "downloading").
    await page.route('**/api/downloadModel', async (route) => {
      const answer = await route.fetch();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.fulfill({ response: answer });
    });
    await page.getByLabel('Download source').fill(`${server!.origin}/files/missing.gguf`);
    await page.getByRole('button', { name: 'Download', exact: true }).click();
    const missing = rows.filter({ hasText: 'missing.gguf' });
    await expect.poll(() => missing.textContent(), { timeout: 30_000 }).toMatch(/failed · the server answered 404/);
    expect(await missing.getByRole('button', { name: /Resume|Retry/ }).count()).toBe(0);
    await page.unroute('**/api/downloadModel');
    await page.screenshot({ path: path.join(ARTIFACTS, 'e2e-models-download-404.png') });
    await missing.getByRole('button', { name: 'Dismiss missing.gguf' }).click();
    await expect.poll(() => missing.count()).toBe(0);
    await rows.first().getByRole('button', { name: 'Dismiss slow-model.gguf' }).click();
    await expect.poll(() => page.getByTestId('downloads').count()).toBe(0);
  }, 180_000);
});
