import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/browser.js';
import { ARTIFACTS, hasWapiiBench, REPO_ROOT, tempDir, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';
import { hasVocabBundle } from '../support/vocab.js';

const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));
const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-eval-${name}.png`) });
/** The number in a count line such as `20 samples`, once it is not `loading…`. */
async function countOf(page: Page, testId: string): Promise<number> {
  await expect.poll(async () => /^\d+ /.test((await page.getByTestId(testId).textContent()) ?? '')).toBe(true);
  return Number(/^(\d+)/.exec((await page.getByTestId(testId).textContent()) ?? '')?.[1]);
}
const runRow = (page: Page, setup: string, setting: string) =>
  page.locator('[data-testid=runs-table] tbody tr').filter({ has: page.locator('td:nth-child(5)', { hasText: new RegExp(`^${setup}$`) }) }).filter({ has: page.locator('td:nth-child(6)', { hasText: new RegExp(`^${setting}$`) }) });
const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name, exact: true });
const statuses = (page: Page): Promise<string[]> => page.locator('[data-testid=runs-table] tbody tr .status').allTextContents();

/**
 * The evaluation half of the workbench, driven through `wapii serve` in Chromium: import
 * WAPIIBench, add a random-weight model, queue the paper's grid on 20 samples, follow it to the
 * end, inspect a constrained sample, compare with the unconstrained run, override a verdict,
 * export CSV, and cancel a run from the UI.
 */
describe.runIf(hasChromium && hasWapiiBench && hasVocabBundle)('evaluation in Chromium on `wapii serve`', () => {
  const dir = tempDir();
  const model = path.join(dir, 'tiny-qwen2.gguf');
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    if (!built) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    const made = spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), 'make-test-model', '--vocab', 'qwen2', '--out', model], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    serve = await startServe(['--db', path.join(dir, 'eval.db')], { serveArgs: ['--no-demo'] });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1500, height: 950 }, acceptDownloads: true });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('imports WAPIIBench on the Datasets page', async () => {
    await page.goto(serve.openUrl);
    await page.getByRole('button', { name: 'Import dataset…' }).click();
    await page.getByLabel('Dataset file').setInputFiles(WAPIIBENCH_ALL);
    await page.getByLabel('Spec files').setInputFiles(fs.readdirSync(WAPIIBENCH_SPECS).map((f) => path.join(WAPIIBENCH_SPECS, f)));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByTestId('sample-count').textContent(), { timeout: 60_000 }).toBe('395 samples');
    await shot(page, '1-datasets');
  });

  it('adds the random-weight test model by path on the Models page', async () => {
    await nav(page, 'Models').click();
    await expect.poll(() => page.getByTestId('models-empty').isVisible()).toBe(true);
    await page.getByLabel('Model path').fill(model);
    await page.getByRole('button', { name: 'Add model' }).click();
    const row = page.locator('[data-testid=models-table] tbody tr');
    await expect.poll(() => row.count(), { timeout: 30_000 }).toBe(1);
    // `make-test-model` writes a llama-architecture model on the qwen2 tokenizer.
    expect(await row.locator('td:nth-child(2)').textContent()).toBe('llama');
    await shot(page, '2-models');
  });

  it("queues the paper's grid on 20 samples from New run", async () => {
    await nav(page, 'New run').click();
    await page.getByLabel('Run dataset').selectOption({ label: 'all — 395 samples' });
    await page.getByLabel('Sample limit').fill('20');
    await page.getByLabel('Max tokens').fill('16');
    for (const cell of ['Full completion · constrained', 'Argument completion · unconstrained', 'Argument completion · constrained']) await page.getByLabel(cell).check();
    expect(await page.getByLabel('Full completion · unconstrained').isChecked()).toBe(true);
    await expect.poll(() => page.getByTestId('run-estimate').textContent(), { timeout: 15_000 }).toMatch(/^20 samples × 4 runs = 80 outputs · each run: /);
    await shot(page, '3-new-run');
    await page.getByRole('button', { name: 'Queue 4 runs' }).click();
    await expect.poll(() => page.locator('[data-testid=runs-table] tbody tr').count(), { timeout: 60_000 }).toBe(4);
  });

  it('follows the progress of the four runs to the end', async () => {
    await expect.poll(async () => (await statuses(page)).includes('running'), { timeout: 60_000 }).toBe(true);
    await expect.poll(() => page.locator('[data-testid=runs-table] .run-progress').first().textContent()).toMatch(/^\d+\/20/);
    await shot(page, '4-runs-progress');
    await expect.poll(() => statuses(page), { timeout: 400_000, interval: 1000 }).toEqual(['finished', 'finished', 'finished', 'finished']);
    for (const text of await page.locator('[data-testid=runs-table] .run-progress .numbers').allTextContents()) expect(text).toBe('20/20');
    await shot(page, '5-runs-finished');
  }, 600_000);

  it('opens the constrained full-completion run, filters to non-correct samples and inspects one', async () => {
    await runRow(page, 'full', 'constrained').click();
    await expect.poll(() => page.getByTestId('run-title').textContent()).toMatch(/Full completion · constrained$/);
    // Queued with the parallel field blank: the CPU's default, and why, from the run's manifest.
    await expect.poll(() => page.getByTestId('run-decoding').textContent()).toBe(' · cpu, 4 sequences at a time');
    expect(await page.getByTestId('run-decoding').getAttribute('title')).toMatch(/^decoding: 4 sequences at a time \(the default on the CPU: /);
    await expect.poll(() => countOf(page, 'run-sample-count')).toBe(20);
    await page.getByLabel('Sample verdict').selectOption('not-correct');
    const shown = () => page.locator('[data-testid=run-samples] .vrow:not(.vhead) > div:nth-child(5) .verdict').evaluateAll((badges) => badges.map((b) => b.getAttribute('data-verdict')));
    await expect.poll(async () => (await shown()).length > 0 && (await shown()).every((v) => v !== 'correct')).toBe(true);
    const notCorrect = await countOf(page, 'run-sample-count');
    expect(notCorrect).toBeGreaterThan(0);
    expect(notCorrect).toBeLessThanOrEqual(20);

    // A sample that produced a request shows its argument verdicts; every constrained sample its token trace.
    const executable = page.locator('[data-testid=run-samples] .vrow:not(.vhead)').filter({ hasNot: page.locator('[data-verdict=nonexecutable], [data-verdict=failed]') });
    await ((await executable.count()) > 0 ? executable : page.locator('[data-testid=run-samples] .vrow:not(.vhead)')).first().click();
    const inspector = page.getByTestId('sample-inspector');
    await expect.poll(() => inspector.getByTestId('request-diff').isVisible()).toBe(true);
    // The token trace shows every generated token (the closing text added at the limit marked apart).
    const trace = inspector.getByTestId('token-trace');
    const generated = Number(/^(\d+) tokens/.exec((await trace.locator('p').first().textContent()) ?? '')?.[1]);
    expect(generated).toBeGreaterThan(0);
    expect(await trace.locator('.tok:not(.closed)').count()).toBe(generated);
    expect(await inspector.getByTestId('code-view').isVisible()).toBe(true);
    const verdicts = await inspector.locator('[data-testid=argument-verdicts] tr[data-verdict]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-verdict')));
    expect(verdicts.length).toBeGreaterThan(0);
    for (const v of verdicts) expect(['correct', 'incorrect_value', 'missing', 'unnecessary', 'illegal']).toContain(v);
    await shot(page, '6-run-inspector');
    await inspector.getByTestId('token-trace').scrollIntoViewIfNeeded();
    await shot(page, '6b-run-token-trace');

    // j moves to the next filtered sample.
    const first = await inspector.locator('h2').textContent();
    await page.keyboard.press('j');
    await expect.poll(() => inspector.locator('h2').textContent()).not.toBe(first);

    await page.getByRole('tab', { name: 'Results' }).click();
    await expect.poll(() => page.getByTestId('headline-table').isVisible()).toBe(true);
    await expect.poll(() => page.getByTestId('chart-grid').isVisible(), { timeout: 10_000 }).toBe(true);
    await shot(page, '7-run-results');
    await page.getByRole('tab', { name: 'Samples' }).click();
  });

  it('compares it with the unconstrained run and shows the changed samples', async () => {
    const constrainedId = /\/runs\/(\d+)/.exec(page.url())?.[1];
    await page.getByRole('button', { name: 'Compare…' }).click();
    await expect.poll(() => page.getByLabel('Baseline run').inputValue()).toBe(constrainedId);
    // The candidates are listed once their shared samples are counted (they reorder then): tick one after that.
    const group = page.getByRole('group', { name: 'Runs to compare' });
    await expect.poll(() => group.locator('.shared').count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await group.getByLabel(/full completion · unconstrained/i).check();
    await expect.poll(() => page.getByTestId('compare-metrics').isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await countOf(page, 'compare-count')).toBe(20);
    await page.getByLabel('Changed only').check();
    await expect.poll(async () => (await page.locator('[data-testid=compare-rows] tbody tr').evaluateAll((rows) => rows.map((r) => r.querySelector('.change')?.textContent ?? 'same'))).every((c) => c !== 'same')).toBe(true);
    const changed = await countOf(page, 'compare-count');
    expect(changed).toBeLessThanOrEqual(20);
    if (changed > 0) {
      await page.locator('[data-testid=compare-rows] tbody tr').first().click();
      await expect.poll(() => page.getByTestId('compare-sample').locator('table').isVisible()).toBe(true);
    }
    await shot(page, '8-compare');
  });

  it('overrides one verdict with a reason; the statistics follow', async () => {
    await nav(page, 'Runs').click();
    await runRow(page, 'full', 'constrained').click();
    await page.getByLabel('Sample verdict').selectOption('not-correct');
    const before = await countOf(page, 'run-sample-count');
    await page.locator('[data-testid=run-samples] .vrow:not(.vhead)').first().click();
    const inspector = page.getByTestId('sample-inspector');
    await inspector.getByLabel('Override verdict').selectOption('correct');
    await inspector.getByLabel('Override reason').fill('the scorer missed an equivalent URL');
    await inspector.getByRole('button', { name: 'Override' }).click();
    await expect.poll(() => inspector.getByTestId('override-history').textContent()).toContain('the scorer missed an equivalent URL');
    await expect.poll(() => countOf(page, 'run-sample-count')).toBe(before - 1);
    await page.getByLabel('Sample verdict').selectOption('');
    await expect.poll(() => page.locator('[data-testid=run-samples] .override-mark').count()).toBe(1);
  });

  it('exports the run as CSV', async () => {
    const download = page.waitForEvent('download');
    await page.getByRole('group', { name: 'Export' }).getByRole('button', { name: 'CSV' }).click();
    const file = await download;
    const saved = path.join(ARTIFACTS, `e2e-eval-${file.suggestedFilename()}`);
    await file.saveAs(saved);
    const text = fs.readFileSync(saved, 'utf8');
    // Records end at a CRLF outside quotes (the code column holds line breaks inside its quotes).
    let records = 0;
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      if (text[i] === '"') quoted = !quoted;
      else if (!quoted && text[i] === '\r' && text[i + 1] === '\n') records++;
    }
    expect(file.suggestedFilename()).toMatch(/\.csv$/);
    expect(text.split('\r\n')[0]).toContain('sample_verdict');
    expect(records).toBe(21);

    // The generated programs as a WAPIIBench-style folder, in one tar.
    const codes = page.waitForEvent('download');
    await page.getByRole('group', { name: 'Export' }).getByRole('button', { name: 'Code folder' }).click();
    const tarFile = path.join(ARTIFACTS, 'e2e-eval-codes.tar');
    await (await codes).saveAs(tarFile);
    const listed = spawnSync('tar', ['-tf', tarFile], { encoding: 'utf8' });
    expect(listed.status, listed.stderr).toBe(0);
    const names = listed.stdout.trim().split('\n');
    expect(names).toHaveLength(20);
    expect(names[0]).toMatch(/^[^/]+\/0000_code\.js$/);
  });

  it("says on the run's page when a sample of its dataset was edited after the run", async () => {
    const runUrl = page.url();
    await nav(page, 'Datasets').click();
    await page.locator('[data-testid=samples-table] tbody tr').first().click();
    const detail = page.getByTestId('sample-detail');
    await detail.getByRole('button', { name: 'Edit request' }).click();
    const editor = detail.getByLabel('Expected request JSON');
    const config = JSON.parse(await editor.inputValue()) as { params?: Record<string, unknown> };
    await editor.fill(JSON.stringify({ ...config, params: { ...config.params, opt_pretty: true } }, null, 2));
    await detail.getByLabel('Reason').fill('ask for pretty output');
    await detail.getByRole('button', { name: 'Save fix' }).click();
    await expect.poll(() => detail.locator('.history li').first().textContent()).toContain('ask for pretty output');
    await page.goto(runUrl);
    await expect.poll(() => page.getByTestId('dataset-changed').textContent(), { timeout: 10_000 }).toContain('#0 edited');
    await shot(page, '10-dataset-changed');
  });

  it('cancels a run from the UI and keeps the samples it finished', async () => {
    await nav(page, 'New run').click();
    await page.getByLabel('Run dataset').selectOption({ label: 'all — 395 samples' });
    await page.getByLabel('Sample limit').fill('60');
    await page.getByLabel('Max tokens').fill('48');
    // New run remembers the last form (the grid's four cells queued above): back to the one cell.
    for (const cell of ['Full completion · constrained', 'Argument completion · unconstrained', 'Argument completion · constrained']) await page.getByLabel(cell).uncheck();
    await expect.poll(() => page.getByTestId('run-estimate').textContent(), { timeout: 15_000 }).toMatch(/^60 samples × 1 run = 60 outputs · /);
    await page.getByRole('button', { name: 'Queue 1 run' }).click();
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 180_000 }).toBe('running');
    await expect.poll(async () => Number(/^(\d+)\//.exec((await page.locator('.run-header .run-progress .numbers').textContent()) ?? '')?.[1] ?? 0), { timeout: 120_000 }).toBeGreaterThanOrEqual(3);
    await page.locator('.run-header').getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByTestId('run-status').textContent(), { timeout: 60_000 }).toBe('cancelled');
    const kept = Number(/^(\d+)\//.exec((await page.locator('.run-header .run-progress .numbers').textContent()) ?? '')?.[1]);
    expect(kept).toBeGreaterThanOrEqual(3);
    expect(kept).toBeLessThan(60);
    await expect.poll(() => countOf(page, 'run-sample-count')).toBe(kept);
    expect(await page.locator('.run-header').getByRole('button', { name: 'Resume' }).isVisible()).toBe(true);
    await shot(page, '9-run-cancelled');
  }, 300_000);
});
