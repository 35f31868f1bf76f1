import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/browser.js';
import { ARTIFACTS, DEMO_DATASET, hasWapiiBench, REPO_ROOT, tempDir, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';

const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));

describe.runIf(hasChromium && hasWapiiBench)('the workbench in Chromium on `wapii serve`', () => {
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    if (!built) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    serve = await startServe(['--db', path.join(tempDir(), 'e2e.db')]);
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
  });

  it('opens on the embedded demo dataset', async () => {
    await page.goto(serve.openUrl);
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('32 samples');
    expect(await page.getByTestId('dataset-summary').textContent()).toBe('1 API · 4 flagged by checks');
  });

  it('imports WAPIIBench, filters to Slack, opens a sample and shows its findings', async () => {
    await page.getByRole('button', { name: 'Import dataset…' }).click();
    await page.getByLabel('Dataset file').setInputFiles(WAPIIBENCH_ALL);
    await page.getByLabel('Spec files').setInputFiles(fs.readdirSync(WAPIIBENCH_SPECS).map((f) => path.join(WAPIIBENCH_SPECS, f)));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByTestId('sample-count').textContent(), { timeout: 30_000 }).toBe('395 samples');
    expect(await page.getByTestId('dataset-summary').textContent()).toBe('4 APIs · 20 flagged by checks');

    await page.getByLabel('API', { exact: true }).selectOption('slack');
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('174 samples');
    const apis = await page.locator('[data-testid=samples-table] tbody tr td:nth-child(2)').allTextContents();
    expect(new Set(apis)).toEqual(new Set(['slack']));

    await page.getByLabel('Check status').selectOption('flagged');
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('5 samples');

    await page.locator('[data-testid=samples-table] tbody tr', { hasText: '/chat.delete' }).click();
    const findings = page.getByTestId('findings');
    await expect.poll(() => findings.textContent()).toContain('body argument `ts` = "1678901234.567890" must be of type number (POST /chat.delete)');
    expect(await page.getByTestId('sample-detail').getByText('POST /chat.delete', { exact: true }).count()).toBe(1);

    await page.locator('[data-testid=samples-table] tbody tr', { hasText: '/admin.users.session.invalidate' }).click();
    await expect.poll(() => findings.textContent()).toContain("Argument 'user_id' is not defined for location 'request body'");
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'e2e-slack-sample-findings.png'), fullPage: true });
  });

  it('records a review decision and undoes it', async () => {
    const detail = page.getByTestId('sample-detail');
    await detail.getByRole('button', { name: 'accepted' }).click();
    await expect.poll(() => detail.locator('.history li').first().textContent()).toContain('marked accepted');
    await detail.getByRole('button', { name: 'Undo last edit' }).click();
    await expect.poll(() => detail.locator('.history li').first().textContent()).toContain('(undone)');
    expect(await detail.getByRole('button', { name: 'Undo last edit' }).isDisabled()).toBe(true);
    // Undone, so no sample is accepted; the flagged Slack samples are all still unreviewed.
    await page.locator('.filters').getByLabel('Review state').selectOption('accepted');
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('0 samples');
    await page.locator('.filters').getByLabel('Review state').selectOption('unreviewed');
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('5 samples');
    await page.locator('.filters').getByLabel('Review state').selectOption('');
    await page.getByLabel('Method').selectOption('post');
    await expect.poll(async () => new Set(await page.locator('[data-testid=samples-table] tbody tr td:nth-child(3)').allTextContents())).toEqual(new Set(['POST']));
    await page.getByLabel('Method').selectOption('');
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('5 samples');
  });

  it('shows a bad import as one line and keeps the data', async () => {
    await page.getByRole('button', { name: 'Import dataset…' }).click();
    await page.getByLabel('Dataset file').setInputFiles(DEMO_DATASET);
    await page.getByLabel('Spec files').setInputFiles({ name: 'harbor.yaml', mimeType: 'text/yaml', buffer: Buffer.from('openapi: 3.0.3\npaths: [\n') });
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/^harbor\.yaml: malformed YAML at line 3, column 1: /);
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(await page.getByLabel('Dataset', { exact: true }).locator('option').allTextContents()).toEqual(['demo — 32 samples', 'demo-multistep — 6 samples', 'all — 395 samples']);
  });
});

it.runIf(!hasChromium)('needs Debian chromium at /usr/bin/chromium (.ci/run installs it)', () => {
  expect(process.env['CI'], 'CI must install chromium for the browser tests').toBeUndefined();
});
