import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/browser.js';
import { startCompletionStandIn, type CompletionReply } from '../support/completionStandIn.js';
import { ARTIFACTS, REPO_ROOT, tempDir } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';

const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));
const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-newrun-${name}.png`), fullPage: false });

/**
 * New run through a real `wapii serve` in Chromium: a seeded random, per-API subset whose settings
 * survive a reload (localStorage), and Cancel reading "cancelling…" until the run has stopped.
 * The model is a local completion stand-in that holds every request, so the run stays running.
 */
describe.runIf(hasChromium)('New run settings and Cancel in Chromium on `wapii serve`', () => {
  const dir = tempDir();
  const held: (() => void)[] = [];
  let standIn: Awaited<ReturnType<typeof startCompletionStandIn>>;
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    if (!built) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    standIn = await startCompletionStandIn(() => new Promise<CompletionReply>((resolve) => held.push(() => resolve({ text: "get('/v2/nothing');" }))));
    serve = await startServe(['--db', path.join(dir, 'newrun.db')]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    for (const release of held.splice(0)) release();
    await serve?.stop();
    await standIn?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const estimate = (): Promise<string | null> => page.getByTestId('run-estimate').textContent();

  it('takes a seeded random per-API sample and remembers the form after a reload', async () => {
    await page.goto(serve.openUrl);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'New run', exact: true }).click();
    await page.getByLabel('remote OpenAI-compatible endpoint').check();
    await page.getByLabel('Endpoint URL').fill(`${standIn.url}/v1`);
    await page.getByLabel('Random sample size').fill('5');
    await page.getByLabel('Random sample seed').fill('9');
    await page.getByLabel('Stratify by API').check();
    await page.getByLabel('Max tokens').fill('20');
    await expect.poll(estimate, { timeout: 15_000 }).toMatch(/^5 samples × 1 run/);

    await page.reload();
    await expect.poll(estimate, { timeout: 15_000 }).toMatch(/^5 samples × 1 run/);
    expect(await page.getByLabel('Random sample size').inputValue()).toBe('5');
    expect(await page.getByLabel('Random sample seed').inputValue()).toBe('9');
    expect(await page.getByLabel('Stratify by API').isChecked()).toBe(true);
    expect(await page.getByLabel('remote OpenAI-compatible endpoint').isChecked()).toBe(true);
    expect(await page.getByLabel('Endpoint URL').inputValue()).toBe(`${standIn.url}/v1`);
    expect(await page.getByLabel('Max tokens').inputValue()).toBe('20');
    await shot(page, '1-restored');
  }, 120_000);

  it('queues the sample, and Cancel reads "cancelling…" until the run has stopped', async () => {
    await page.getByRole('button', { name: 'Queue 1 run' }).click();
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 30_000 }).toBe('running');
    await expect.poll(() => page.locator('.toolbar .muted').first().textContent()).toContain('random 5 (seed 9, per API)');
    await expect.poll(() => held.length, { timeout: 30_000 }).toBeGreaterThan(0);

    // The service answers cancelRun once the run has stopped; hold that answer to look at the page meanwhile.
    let answer: Route | undefined;
    await page.route('**/api/cancelRun', (route) => void (answer = route));
    await page.getByRole('button', { name: 'Cancel' }).click();
    const button = page.getByRole('button', { name: 'cancelling…' });
    await expect.poll(() => button.count(), { timeout: 10_000 }).toBe(1);
    expect(await button.isDisabled()).toBe(true);
    await shot(page, '2-cancelling');
    await expect.poll(() => answer !== undefined, { timeout: 10_000 }).toBe(true);
    // Still cancelling while the answer is out (a run event can reload the list meanwhile).
    await page.waitForTimeout(500);
    expect(await button.count()).toBe(1);

    await answer!.continue();
    for (const release of held.splice(0)) release();
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 30_000 }).toBe('cancelled');
    await expect.poll(() => button.count(), { timeout: 10_000 }).toBe(0);
    expect(await page.getByRole('button', { name: 'Resume' }).count()).toBe(1);
    await page.unroute('**/api/cancelRun');
  }, 120_000);
});
