import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchClient } from '../../main/api/fetchClient.js';
import { hasChromium, launchChromium } from '../support/browser.js';
import { ARTIFACTS, REPO_ROOT, tempDir } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';

const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));
const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-two-tabs-${name}.png`) });

/**
 * Two tabs of one browser on one `wapii serve` (the demo dataset) edit the same sample: the
 * second save started from an older revision and is refused, visibly, with the newer content on
 * screen; the history holds only the first. Datasets edit, Review's decisions and bulk decisions.
 */
describe.runIf(hasChromium)('two tabs editing one sample on `wapii serve`', () => {
  let serve: ServeProcess;
  let browser: Browser;
  let context: BrowserContext;
  let a: Page;
  let b: Page;

  beforeAll(async () => {
    if (!built) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    serve = await startServe(['--db', path.join(tempDir('wapii-e2e-tabs-'), 'tabs.db')]);
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    a = await context.newPage();
    b = await context.newPage();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  const client = () => createFetchClient({ baseUrl: serve.url, token: serve.token });

  it('Datasets: the second tab saving an edit of a sample the first changed is refused, shows "changed since you opened it" and the newer request', async () => {
    await a.goto(serve.openUrl);
    await b.goto(`${serve.url}/`);
    for (const page of [a, b]) {
      await expect.poll(() => page.getByTestId('sample-count').textContent(), { timeout: 60_000 }).toBe('32 samples');
      await page.locator('[data-testid=samples-table] tbody tr').first().click();
      await page.getByRole('button', { name: 'Edit request' }).click();
    }
    const edit = async (page: Page, url: string, reason: string): Promise<void> => {
      const editor = page.getByLabel('Expected request JSON');
      const config = JSON.parse(await editor.inputValue()) as { url: string };
      await editor.fill(JSON.stringify({ ...config, url }, null, 2));
      await page.getByLabel('Reason').fill(reason);
      await page.getByRole('button', { name: 'Save fix' }).click();
    };
    const original = JSON.parse(await a.getByLabel('Expected request JSON').inputValue()) as { url: string };
    await edit(a, `${original.url}?by=a`, 'tab a');
    await expect.poll(() => a.getByTestId('sample-detail').locator('pre.config').first().textContent()).toContain('?by=a');
    await edit(b, `${original.url}?by=b`, 'tab b');
    const notice = b.getByTestId('stale-notice');
    await expect.poll(() => notice.textContent()).toContain('Not saved: this sample changed since you opened it');
    // The newer content (tab a's) is what tab b shows now; its own version is kept beside it, unsaved.
    expect(await b.getByTestId('sample-detail').locator('> section pre.config').textContent()).toContain('?by=a');
    expect(await notice.locator('pre').textContent()).toContain('?by=b');
    await shot(b, '1-datasets-refused');
    const id = (await client().listSamples({ datasetId: 1, filter: {} }))[0]!.id;
    const detail = await client().getSample({ datasetId: 1, sampleId: id });
    expect(detail.sample.config.url).toBe(`${original.url}?by=a`);
    expect(detail.revisions.map((r) => r.reason)).not.toContain('tab b');
  });

  it('Review: a decision on a sample another tab decided meanwhile is refused and the newer state shown; a bulk decision over it too', async () => {
    for (const page of [a, b]) {
      await page.goto(`${serve.url}/#/review`);
      await expect.poll(() => page.getByTestId('queue-position').textContent(), { timeout: 30_000 }).toMatch(/^sample 1 of \d+ in the queue$/);
      await page.locator('body').click({ position: { x: 5, y: 5 } });
    }
    const sampleId = await a.getByTestId('review-focus').getAttribute('data-sample-id');
    expect(await b.getByTestId('review-focus').getAttribute('data-sample-id')).toBe(sampleId);
    await a.keyboard.press('a');
    await expect.poll(() => a.getByTestId('queue-position').textContent()).toMatch(/^sample 2 of/);
    await b.keyboard.press('r');
    await expect.poll(() => b.getByRole('alert').textContent()).toContain('Not saved: this sample changed since you opened it');
    // Tab b stays on the sample and shows it accepted, as tab a left it.
    expect(await b.getByTestId('review-focus').getAttribute('data-sample-id')).toBe(sampleId);
    await expect.poll(() => b.getByTestId('review-focus').locator('.review-head .state').textContent()).toBe('accepted');
    await shot(b, '2-review-refused');
    expect((await client().getSample({ datasetId: 1, sampleId: sampleId! })).sample.reviewState).toBe('accepted');

    // Tab a decides another sample; tab b's queue still lists it unreviewed: its bulk reject is refused whole.
    await a.keyboard.press('a');
    await expect.poll(() => a.getByTestId('queue-position').textContent()).toMatch(/^sample 3 of/);
    const before = (await client().listSamples({ datasetId: 1, filter: {} })).filter((s) => s.reviewState === 'rejected').length;
    await b.goto(`${serve.url}/#/review`);
    await expect.poll(() => b.getByTestId('queue-position').textContent()).toMatch(/^sample 1 of/);
    await a.keyboard.press('a');
    await expect.poll(() => a.getByTestId('queue-position').textContent()).toMatch(/^sample 4 of/);
    await b.locator('body').click({ position: { x: 5, y: 5 } });
    await b.keyboard.press('Shift+R');
    await b.keyboard.press('Enter');
    await expect.poll(() => b.getByRole('alert').textContent()).toContain('changed since the list was loaded');
    await shot(b, '3-bulk-refused');
    expect((await client().listSamples({ datasetId: 1, filter: {} })).filter((s) => s.reviewState === 'rejected').length).toBe(before);
  });
});
