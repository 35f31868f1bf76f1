import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchClient } from '../../main/api/fetchClient.js';
import { hasChromium, launchChromium } from '../support/browser.js';
import { ARTIFACTS, hasWapiiBench, REPO_ROOT, tempDir, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';

const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));
const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-pages-${name}.png`) });

/**
 * What a first-time user tripped over, in Chromium on `wapii serve` (the demo dataset, and five
 * Asana samples of WAPIIBench as a second dataset): deep links to the Datasets view, counts in
 * agreement, Review's keys on Datasets, a Review filter that no longer applies, dark mode.
 */
describe.runIf(hasChromium && hasWapiiBench)('the pages on `wapii serve`', () => {
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  const db = path.join(tempDir('wapii-e2e-pages-'), 'pages.db');

  beforeAll(async () => {
    if (!built) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    serve = await startServe(['--db', db]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    const asana = (JSON.parse(fs.readFileSync(WAPIIBENCH_ALL, 'utf8')) as { api: string }[]).filter((s) => s.api === 'asana').slice(0, 5);
    const client = createFetchClient({ baseUrl: serve.url, token: serve.token });
    await client.importDataset({ name: 'asana-5', dataset: { filename: 'asana5.json', content: JSON.stringify(asana) }, specs: [{ filename: 'asana.yaml', content: fs.readFileSync(path.join(WAPIIBENCH_SPECS, 'asana.yaml'), 'utf8') }] });
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it('the Datasets view (dataset, filters, open sample) is in the URL and survives a reload; "1 API"', async () => {
    await page.goto(serve.openUrl);
    await expect.poll(() => page.getByTestId('sample-count').textContent(), { timeout: 60_000 }).toBe('5 samples');
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'demo — 32 samples' });
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('32 samples');
    expect(await page.getByTestId('dataset-summary').textContent()).toBe('1 API · 4 flagged by checks');
    await page.getByLabel('Check status').selectOption('flagged');
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('4 samples');
    await page.locator('[data-testid=samples-table] tbody tr').nth(1).click();
    await expect.poll(() => page.getByTestId('sample-detail').locator('h2').textContent()).toMatch(/^#\d+ harbor$/);
    const heading = await page.getByTestId('sample-detail').locator('h2').textContent();
    await expect.poll(() => page.url()).toMatch(/#\/datasets\?dataset=1&checkStatus=flagged&sample=/);
    const link = page.url();
    await page.reload();
    await expect.poll(() => page.getByTestId('sample-detail').locator('h2').textContent(), { timeout: 30_000 }).toBe(heading);
    expect(await page.getByTestId('sample-count').textContent()).toBe('4 samples');
    expect(await page.getByLabel('Check status').inputValue()).toBe('flagged');
    expect(page.url()).toBe(link);
    await shot(page, '1-datasets-deep-link');
  });

  it('Datasets takes Review\'s keys: a accepts the open sample and opens the next, u undoes', async () => {
    const heading = page.getByTestId('sample-detail').locator('h2');
    const first = await heading.textContent();
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('a');
    await expect.poll(() => heading.textContent()).not.toBe(first);
    const client = createFetchClient({ baseUrl: serve.url, token: serve.token });
    const accepted = (await client.listSamples({ datasetId: 1, filter: { reviewState: 'accepted' } })).map((s) => `#${s.position} harbor`);
    expect(accepted).toEqual([first]);
    await page.keyboard.press('k');
    await expect.poll(() => heading.textContent()).toBe(first);
    await page.keyboard.press('u');
    await expect.poll(async () => (await client.listSamples({ datasetId: 1, filter: { reviewState: 'accepted' } })).length).toBe(0);
  });

  it('Review: an API filter the next dataset lacks is reset when switching to it, not "Nothing to review"', async () => {
    await page.goto(`${serve.url}/#/review`);
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'asana-5' });
    await page.getByLabel('Queue API').selectOption('asana');
    await expect.poll(() => page.getByTestId('queue-position').textContent()).toBe('sample 1 of 5 in the queue');
    await page.getByLabel('Dataset', { exact: true }).selectOption({ label: 'demo' });
    await expect.poll(() => page.getByTestId('queue-position').textContent()).toBe('sample 1 of 32 in the queue');
    expect(await page.getByLabel('Queue API').inputValue()).toBe('');
    await shot(page, '2-review-switched');
  });

  it('follows a dark system scheme on every page (screenshots)', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    const background = async (): Promise<string> => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    for (const [route, name] of [
      ['datasets?dataset=1&checkStatus=flagged', 'datasets'],
      ['review', 'review'],
      ['models', 'models'],
      ['runs/new', 'new-run'],
      ['runs', 'runs'],
      ['compare', 'compare'],
      ['specs', 'specs'],
    ] as const) {
      await page.goto(`${serve.url}/#/${route}`);
      // A hash change loads no document: wait for the page's chunk, then for its data.
      await page.locator('.page-loading').waitFor({ state: 'detached', timeout: 60_000 });
      await page.waitForLoadState('networkidle');
      expect(await background()).toBe('rgb(22, 23, 27)');
      await shot(page, `dark-${name}`);
    }
    // A demo run's page (the demo seeds runs): Results with its charts.
    await page.goto(`${serve.url}/#/runs/1`);
    await page.locator('.page-loading').waitFor({ state: 'detached', timeout: 60_000 });
    await expect.poll(() => page.locator('main').textContent(), { timeout: 60_000 }).not.toContain('Loading run');
    await page.waitForLoadState('networkidle');
    await shot(page, 'dark-run');
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await background()).toBe('rgb(247, 247, 248)');
  });

  it('a page left while it loads does not undo the navigation by writing its own state to the URL', async () => {
    // A tab of the same session (its cookie). Datasets' calls are held 2 s and the run page's code 5 s: a
    // navigation is a transition, so Datasets stays mounted while that code is fetched, and its
    // load (which puts the chosen dataset in the URL) ends in that window. Before, it replaced the
    // address with `#/datasets?dataset=…` and the run page never came.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies(await page.context().cookies());
    const tab = await context.newPage();
    try {
      const hold = (ms: number) => async (route: Route): Promise<void> => {
        await new Promise((r) => setTimeout(r, ms));
        await route.continue();
      };
      await tab.route(/\/api\/(listDatasets|listSamples)$/, hold(2000));
      await tab.route(/\/assets\/RunPage-[^/]*\.js$/, hold(5000));
      await tab.goto(`${serve.url}/#/datasets`);
      await tab.evaluate(() => (window.location.hash = '#/runs/1?tab=results'));
      await tab.getByTestId('headline-table').waitFor({ timeout: 60_000 });
      expect(new URL(tab.url()).hash).toBe('#/runs/1?tab=results');
      // Datasets, once its calls come back, still writes its URL when it is the page shown.
      await tab.goto(`${serve.url}/#/datasets`);
      await expect.poll(() => new URL(tab.url()).hash, { timeout: 30_000 }).toMatch(/^#\/datasets\?dataset=\d+$/);
    } finally {
      await context.close();
    }
  });

  it('after serve restarts (a new token), reloading the open page gives a page saying how to get back in, not JSON', async () => {
    const port = new URL(serve.url).port;
    await serve.stop();
    serve = await startServe(['--db', db], { serveArgs: ['--port', port] });
    expect(new URL(serve.url).port).toBe(port);
    await page.reload();
    const notice = page.getByTestId('sign-in');
    await expect.poll(() => notice.textContent()).toContain('The server has restarted since, with a new token.');
    expect(await notice.textContent()).toContain('wapii serve --token-file <file>');
    await shot(page, '3-restarted');
    await page.goto(serve.openUrl);
    await expect.poll(() => page.getByTestId('sample-count').textContent(), { timeout: 30_000 }).toMatch(/samples$/);
  });
});
