import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedTestModel } from '../../main/generation/index.js';
import { hasChromium } from '../support/browser.js';
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

  beforeAll(async () => {
    fs.mkdirSync(path.join(folder, 'spm'), { recursive: true });
    fs.copyFileSync(cachedTestModel('llama-spm'), path.join(folder, 'spm', 'tiny-spm.gguf'));
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'not a model');
    session = await openSession(['--db', path.join(dir, 'models.db')], { serveArgs: ['--no-demo', '--models', folder], page: { viewport: { width: 1400, height: 800 } } });
    ({ serve, page } = session);
  });
  afterAll(async () => {
    await session?.close();
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
});
