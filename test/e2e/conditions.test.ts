import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from '../support/browser.js';
import { ARTIFACTS, hasWapiiBench, REPO_ROOT, tempDir, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';
import { openSession, rendererBuilt, type Session } from '../support/session.js';
import { hasVocabBundle } from '../support/vocab.js';
const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-conditions-${name}.png`) });
const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true });
const runRows = (page: Page) => page.locator('[data-testid=runs-table] tbody tr');
/** The runs table's knowledge column (after #, model, dataset, setup, setting). */
const knowledgeCells = (page: Page): Promise<string[]> => page.locator('[data-testid=runs-table] tbody tr td:nth-child(7)').allTextContents();
const wapii = (...args: string[]) => spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), ...args], { encoding: 'utf8' });

/**
 * The knowledge-condition grid in Chromium on `wapii serve`: queue none, endpoint and full on 40
 * WAPIIBench samples with a random-weight model from New run, wait for the three runs, open the
 * comparison by condition on Compare, and filter one run's samples by a failure class.
 */
describe.runIf(hasChromium && hasWapiiBench && hasVocabBundle)('knowledge conditions in Chromium on `wapii serve`', () => {
  const dir = tempDir();
  const db = path.join(dir, 'conditions.db');
  const model = path.join(dir, 'tiny-qwen2.gguf');
  let session: Session | undefined;
  let serve: Session['serve'];
  let page: Page;

  beforeAll(async () => {
    if (!rendererBuilt) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    const made = wapii('make-test-model', '--vocab', 'qwen2', '--out', model);
    expect(made.status, made.stderr).toBe(0);
    // The dataset comes in by the CLI (the Datasets page's import is evaluation.test's); the same database serves the UI.
    const imported = wapii('--db', db, 'import', WAPIIBENCH_ALL, '--specs', WAPIIBENCH_SPECS, '--name', 'all');
    expect(imported.status, imported.stderr).toBe(0);
    session = await openSession(['--db', db], { serveArgs: ['--no-demo'] });
    ({ serve, page } = session);
  });
  afterAll(async () => {
    await session?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('queues none, endpoint and full on 40 samples from New run, and the three runs finish', async () => {
    await page.goto(serve.openUrl);
    await nav(page, 'Models').click();
    await page.getByLabel('Model path').fill(model);
    await page.getByRole('button', { name: 'Add model' }).click();
    await expect.poll(() => page.locator('[data-testid=models-table] tbody tr').count(), { timeout: 30_000 }).toBe(1);

    await nav(page, 'New run').click();
    await page.getByLabel('Run dataset').selectOption({ label: 'all — 395 samples' });
    await page.getByLabel('Sample limit').fill('40');
    await page.getByLabel('Max tokens').fill('12');
    // Constrained decoding makes a random model's code executable, so its outputs fail in several classes, not all as incomplete calls.
    await page.getByLabel('Full completion · unconstrained').uncheck();
    await page.getByLabel('Full completion · constrained').check();
    // `full` puts parameters, docs and an example in the prompt: room for them.
    await page.getByLabel('Context size').fill('2048');
    expect(await page.getByLabel('knowledge none').isChecked()).toBe(true);
    await page.getByLabel('knowledge endpoint').check();
    await page.getByLabel('knowledge full').check();
    await expect.poll(() => page.getByTestId('run-estimate').textContent(), { timeout: 15_000 }).toMatch(/^40 samples × 3 runs \(1 cell × 3 conditions\) = 120 outputs · /);
    await shot(page, '1-new-run');
    await page.getByRole('button', { name: 'Queue 3 runs' }).click();
    await expect.poll(() => runRows(page).count(), { timeout: 60_000 }).toBe(3);
    await expect.poll(() => knowledgeCells(page), { timeout: 10_000 }).toEqual(['full', 'endpoint', 'none']);
    await expect.poll(() => page.locator('[data-testid=runs-table] tbody tr .status').allTextContents(), { timeout: 1_000_000, interval: 1000 }).toEqual(['finished', 'finished', 'finished']);
    for (const text of await page.locator('[data-testid=runs-table] .run-progress .numbers').allTextContents()) expect(text).toBe('40/40');
    await shot(page, '2-runs');
  }, 1_100_000);

  it('opens the comparison by knowledge condition on Compare: a table with the gain over none, and two charts', async () => {
    // The first ticked run is the baseline: tick `none` first (the table lists the newest run first).
    for (const i of [2, 1, 0]) await runRows(page).nth(i).locator('input[type=checkbox]').check();
    await page.getByRole('button', { name: 'Compare 3 selected' }).click();
    const view = page.getByTestId('conditions');
    await expect.poll(() => view.locator('[data-testid=conditions-table] tbody tr').count(), { timeout: 30_000 }).toBe(3);
    const cells = async (row: number): Promise<string[]> => view.locator(`[data-testid=conditions-table] tbody tr:nth-child(${row}) td`).allTextContents();
    const [none, endpoint, full] = [await cells(1), await cells(2), await cells(3)];
    expect([none[1], endpoint[1], full[1]]).toEqual(['none', 'endpoint', 'full']);
    expect(none.slice(2, 3)).toEqual(['40']);
    expect(none[5]).toBe('±0.0 pt');
    // The gain is correct (t) minus none's, in points.
    for (const row of [endpoint, full]) {
      const gain = Number(row[5]!.replace('−', '-').replace('±', '').replace(' pt', ''));
      // Both sides are rounded to a tenth of a point.
      expect(Math.abs(gain - (parseFloat(row[3]!) - parseFloat(none[3]!)))).toBeLessThanOrEqual(0.11);
    }
    // Bars of 0 % have no height: the axis names the three conditions (with their gains).
    await expect.poll(async () => (await view.getByTestId('chart-conditions').locator('.recharts-cartesian-axis-tick-value').allTextContents()).filter((t) => /^(none|endpoint|full) /.test(t)).length).toBe(3);
    expect(await view.getByTestId('chart-condition-failures').isVisible()).toBe(true);
    await view.scrollIntoViewIfNeeded();
    await shot(page, '3-compare-conditions');
  }, 120_000);

  it("filters a run's samples by a failure class", async () => {
    const view = page.getByTestId('conditions');
    // The class the `none` run carries least often (but at all), read off the comparison table: the filter must leave out the others.
    const headers = (await view.locator('[data-testid=conditions-table] thead th').allTextContents()).slice(6);
    const counts = (await view.locator('[data-testid=conditions-table] tbody tr:nth-child(1) td').allTextContents()).slice(6).map(Number);
    expect(headers.length).toBeGreaterThan(0);
    const top = counts.indexOf(Math.min(...counts.filter((n) => n > 0)));
    const failure = headers[top]!;
    expect(top).toBeGreaterThanOrEqual(0);
    const expected = counts[top]!;
    expect(expected).toBeGreaterThan(0);
    const noneRun = (await view.locator('[data-testid=conditions-table] tbody tr:nth-child(1) td:nth-child(1)').textContent())!.slice(1);

    await page.goto(`${serve.url}/#/runs/${noneRun}?tab=results`);
    await expect.poll(() => page.getByTestId('chart-failures').isVisible(), { timeout: 15_000 }).toBe(true);
    await shot(page, '4-run-failures');
    await page.getByRole('tab', { name: 'Samples' }).click();
    await page.getByLabel('Failure class').selectOption({ label: failure });
    await expect.poll(async () => (await page.getByTestId('run-sample-count').textContent()) ?? '').toBe(`${expected} sample${expected === 1 ? '' : 's'}`);
    const shown = await page.locator('[data-testid=run-samples] .vrow:not(.vhead) .failures').allTextContents();
    expect(shown.length).toBeGreaterThan(0);
    for (const text of shown) expect(text).toContain(failure);
    await page.locator('[data-testid=run-samples] .vrow:not(.vhead)').first().click();
    await expect.poll(() => page.getByTestId('sample-failures').textContent()).toContain(failure);
    await shot(page, '5-failure-filter');
  }, 120_000);
});
