import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { oracleProgram } from '../../main/prompt/index.js';
import { hasChromium } from '../support/browser.js';
import { openHostedPage, type HostedPage } from '../support/hostedPage.js';
import { repairScript } from '../support/repairScript.js';
import { ARTIFACTS, REPO_ROOT } from '../support/paths.js';

const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-hosted-${name}.png`), fullPage: false });
const KEY = 'sk-e2e-hosted-repair';
const MODEL = 'gpt-4o';

/** Demo sample 1: "List the first 10 warehouses in the EU region." — GET /warehouses with region and limit. */
const demo = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'datasets', 'demo.json'), 'utf8')) as Parameters<typeof oracleProgram>[0][];
const SAMPLE = demo[1]!;

/**
 * A hosted model from New run, through `wapii serve` in Chromium: the OpenAI provider against a
 * local stand-in (serve has OPENAI_API_KEY in its environment, the stand-in as base URL), the
 * provider's model list and the cost estimate before queueing, the runs' progress, and the
 * inspector of a repair run showing the two rounds that took the program to `correct`.
 */
describe.runIf(hasChromium)('a hosted model and the repair setting in Chromium on `wapii serve`', () => {
  let standIn: HostedPage['standIn'];
  let serve: HostedPage['serve'];
  let page: Page;
  let hosted: HostedPage | undefined;

  beforeAll(async () => {
    hosted = await openHostedPage({ standIn: { kind: 'openai', key: KEY, model: MODEL, reply: repairScript(SAMPLE) }, env: { OPENAI_API_KEY: KEY } });
    ({ standIn, serve, page } = hosted);
  }, 180_000);
  afterAll(() => hosted?.close());

  it('queues unconstrained and repair runs on the hosted model with its cost estimate', async () => {
    await page.goto(serve.openUrl);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'New run', exact: true }).click();
    await page.getByLabel('hosted provider').check();
    await page.getByLabel('Provider', { exact: true }).selectOption('openai');
    await page.getByLabel('Provider base URL').fill(standIn.url);
    // The provider lists its models (the stand-in: one); the picker offers them.
    await expect.poll(() => page.getByTestId('provider-models').textContent(), { timeout: 15_000 }).toMatch(/^1 models listed by the provider/);
    expect(await page.locator('#provider-models option').evaluateAll((o) => o.map((x) => x.getAttribute('value')))).toEqual([MODEL]);
    await page.getByLabel('Provider model').fill(MODEL);
    await page.getByLabel('Spending cap').fill('2');
    await page.getByLabel('Sample limit').fill('2');
    await page.getByLabel('Full completion · repair').check();
    expect(await page.getByLabel('Full completion · unconstrained').isChecked()).toBe(true);
    await page.getByLabel('Repair rounds').fill('2');
    // fetch programs: constrained decoding describes Axios calls only, so the form refuses that pair before asking the service.
    await page.getByLabel('client fetch').check();
    await page.getByLabel('Full completion · constrained').check();
    await expect.poll(() => page.getByTestId('run-estimate').textContent()).toBe('To queue: constrained decoding covers Axios calls only: untick the constrained cells for fetch.');
    await page.getByLabel('Full completion · constrained').uncheck();
    await page.getByLabel('client axios').check();
    // gpt-4o is in the price table: the estimate names the most the runs can cost and the cap.
    await expect.poll(() => page.getByTestId('run-estimate').textContent(), { timeout: 30_000 }).toMatch(/^2 samples × 2 runs = 4 outputs · each run: .*at most about \$0\.\d+ .*the run stops at \$2\.00 · all 2 cells at most about \$0\.\d{4} · each repair round asks again/);
    await page.getByTestId('run-estimate').scrollIntoViewIfNeeded();
    await shot(page, '1-new-run');
    await page.getByRole('button', { name: 'Queue 2 runs' }).click();
    // The demo's scored runs are listed too: the two on the hosted model are the ones naming it.
    const hosted = page.locator('[data-testid=runs-table] tbody tr').filter({ hasText: MODEL });
    await expect.poll(() => hosted.count(), { timeout: 60_000 }).toBe(2);
    await shot(page, '2-runs-progress');
    const statuses = (): Promise<string[]> => hosted.locator('.status').allTextContents();
    await expect.poll(statuses, { timeout: 120_000, interval: 500 }).toEqual(['finished', 'finished']);
    for (const text of await hosted.locator('.run-progress .numbers').allTextContents()) expect(text).toBe('2/2');
    await shot(page, '3-runs-finished');
  }, 240_000);

  it('shows the two repair rounds of the warehouses sample in the inspector', async () => {
    const repairRow = page.locator('[data-testid=runs-table] tbody tr').filter({ hasText: MODEL }).filter({ has: page.locator('td:nth-child(6)', { hasText: /^repair$/ }) });
    await repairRow.click();
    const row = page.locator('[data-testid=run-samples] .vrow:not(.vhead)').filter({ hasText: 'warehouses in the EU' });
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    await row.click();
    const inspector = page.getByTestId('sample-inspector');
    const rounds = inspector.getByTestId('repair-round');
    await expect.poll(() => rounds.count(), { timeout: 30_000 }).toBe(3);
    const verdicts = await rounds.evaluateAll((li) => li.map((l) => l.querySelector('h4 .verdict')?.getAttribute('data-verdict')));
    // The first two programs are faulted (the unknown path, then the undefined argument) and sent back; the third, scored, is correct.
    expect(verdicts).toEqual(['illegal', 'illegal', 'correct']);
    expect(await rounds.nth(0).getByTestId('repair-feedback').textContent()).toContain('matches no endpoint');
    expect(await rounds.nth(1).getByTestId('repair-feedback').textContent()).toMatch(/`sort` is not defined for GET \/warehouses/);
    expect(await rounds.nth(2).getByTestId('repair-feedback').count()).toBe(0);
    expect(await rounds.nth(2).textContent()).toContain('the scored program');
    expect(await rounds.nth(0).getByTestId('code-view').textContent()).toContain('/v2/storage-sites');
    expect(await inspector.locator('h2 .verdict').first().getAttribute('data-verdict')).toBe('correct');
    await inspector.getByTestId('repair-rounds').scrollIntoViewIfNeeded();
    await shot(page, '4-inspector-repair-rounds');
    await rounds.nth(2).scrollIntoViewIfNeeded();
    await shot(page, '5-inspector-scored-round');

    // Results: the grid chart sets the repair run beside the unconstrained one on the same model, with the gain.
    await page.getByRole('button', { name: 'Close sample' }).click();
    await page.getByRole('tab', { name: 'Results' }).click();
    await expect.poll(() => page.getByTestId('chart-grid').isVisible(), { timeout: 15_000 }).toBe(true);
    // No constrained run in this set (a hosted model takes no grammar): neither caption nor legend names one.
    expect(await page.getByTestId('chart-grid').locator('figcaption').textContent()).toMatch(/^Unconstrained vs repair,/);
    expect(await page.getByTestId('chart-grid').locator('.recharts-legend-item-text').allTextContents()).toEqual(['unconstrained', 'repair']);
    await page.getByTestId('chart-grid').scrollIntoViewIfNeeded();
    await shot(page, '6-results-grid');
  }, 120_000);

  it('compares the repair run with the unconstrained one on the Compare page', async () => {
    await page.getByRole('button', { name: 'Compare…' }).click();
    await page.getByRole('group', { name: 'Runs to compare' }).getByLabel(new RegExp(`openai:${MODEL} · full completion · unconstrained`, 'i')).check();
    await expect.poll(() => page.getByTestId('compare-metrics').isVisible(), { timeout: 15_000 }).toBe(true);
    await expect.poll(() => page.getByTestId('compare-count').textContent()).toMatch(/^2 /);
    await shot(page, '7-compare');
  }, 60_000);
});
