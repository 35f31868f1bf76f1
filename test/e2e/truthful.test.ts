import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchClient } from '../../main/api/fetchClient.js';
import { cachedTestModel } from '../../main/generation/index.js';
import { unwrap } from '../../main/api/result.js';
import type { WorkbenchApi } from '../../main/api/contract.js';
import { loadSpec } from '../../main/openapi/index.js';
import { seedDemoRuns } from '../../main/service/demoRuns.js';
import { localClient, openWorkbench, readDemo } from '../../main/service/index.js';
import { hasChromium, launchChromium } from '../support/browser.js';
import { ARTIFACTS, REPO_ROOT, tempDir } from '../support/paths.js';
import { rendererBuilt } from '../support/session.js';
import { startServe, type ServeProcess } from '../support/serve.js';
import { hasVocabBundle } from '../support/vocab.js';

const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-truthful-${name}.png`), fullPage: true });

/**
 * Issue 38, "pages that never mislead", in Chromium on `wapii serve`: an undefined mean reads "–",
 * intervals read as they are, a stopped run's bar says so, Compare pairs the (e) tests on the
 * executable samples and offers the runs that share samples first, a checkbox shows its click at
 * once, Datasets' "flagged" filter lets go of a fixed sample, Models clears an old error, and the
 * favicon costs no request.
 */
describe.runIf(hasChromium)('pages that never mislead (issue 38)', () => {
  const dir = tempDir('wapii-e2e-truthful-');
  const db = path.join(dir, 'truthful.db');
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  let client: WorkbenchApi;
  const ids: Record<string, number> = {};
  const requests: string[] = [];
  const warnings: string[] = [];

  beforeAll(async () => {
    if (!rendererBuilt) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    const demo = readDemo(REPO_ROOT);
    const wb = openWorkbench({ db });
    const like = demo.runs!.find((r) => r.meta.model.includes('7b') && r.meta.setting === 'unconstrained')!;
    const first = (n: number): Map<number, string> => new Map([...like.codes].slice(0, n));
    // A run whose programs all throw: nothing executes, so every (e) rate and mean has no denominator.
    const throws = { name: 'demo-throws', meta: { ...like.meta, model: 'demo-throws' }, codes: new Map([...first(6)].map(([i]) => [i, 'throw new Error("no request")'])) };
    const failed = { name: 'demo-failed', meta: { ...like.meta, model: 'demo-failed' }, codes: first(6) };
    const cancelled = { name: 'demo-cancelled', meta: { ...like.meta, model: 'demo-cancelled' }, codes: first(4) };
    unwrap(await wb.service.seedIfEmpty({ ...demo, runs: [...demo.runs!, throws, failed, cancelled] }));
    const runs = wb.service.evaluation.runs;
    const local = localClient(wb.service);
    for (const r of await local.listRuns({})) if (r.dataset !== 'demo-multistep') ids[r.model?.includes('7b') ? `7b-${r.setting}` : (r.model ?? String(r.id))] = r.id;
    runs.setStatus(ids['demo-failed']!, 'failed', { error: 'the model file went missing', finished: true });
    runs.setStatus(ids['demo-cancelled']!, 'cancelled', { error: 'cancelled', finished: true });
    // A dataset that shares no sample with the demo (its tasks differ), with a run on it.
    const samples = (JSON.parse(demo.dataset.content) as { task: string }[]).slice(0, 4).map((s) => ({ ...s, task: `${s.task} (another dataset)` }));
    const other = await local.importDataset({ name: 'elsewhere', dataset: { filename: 'elsewhere.json', content: JSON.stringify(samples) }, specs: demo.specs });
    const spec = async (hash: string) => unwrap(await loadSpec(wb.store.getSpec(hash)!.content, wb.store.getSpec(hash)!.filename));
    const [elsewhere] = await seedDemoRuns({ store: wb.store, runs, results: wb.service.evaluation.results, datasetId: other.id, demoRuns: [{ ...like, name: 'demo-elsewhere', meta: { ...like.meta, model: 'demo-elsewhere' }, codes: first(4) }], spec });
    ids['demo-elsewhere'] = elsewhere!;
    await wb.shutdown();
    serve = await startServe(['--db', db]);
    client = createFetchClient({ baseUrl: serve.url, token: serve.token });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    page.on('console', (m) => {
      if (m.type() === 'warning' || m.type() === 'error') warnings.push(m.text());
    });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.goto(serve.openUrl);
    await page.getByTestId('sample-count').waitFor({ timeout: 120_000 });
  }, 400_000);
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const go = (hash: string): Promise<void> => page.evaluate((h) => void (window.location.hash = h), hash);

  it('Results: a mean over no sample reads "–" in every column, not 0.0%; intervals read [low, high] (items 1, 7)', async () => {
    await go(`#/runs/${ids['demo-throws']}?tab=results`);
    const table = page.getByTestId('headline-table');
    await table.waitFor({ timeout: 120_000 });
    const row = (key: string) => table.locator('tr', { has: page.locator(`th[title="${key}"]`) }).locator('td');
    for (const key of ['argument_value_mean_accuracy_wrt_correct_executable', 'argument_name_mean_precision_wrt_executable', 'argument_name_mean_recall_wrt_executable']) {
      const cells = await row(key).allTextContents();
      expect(cells.length, key).toBe(2);
      expect(cells, key).toEqual(['–', '–']);
      expect(await row(key).first().locator('.rate').getAttribute('title')).toBe('undefined: no sample in the denominator');
    }
    // A defined rate: its interval as it is, never a ± that reaches below 0.
    expect(await row('samples_correct_wrt_total').first().textContent()).toMatch(/^0\.0% \[0\.0, \d+\.\d\]$/);
    expect(await page.getByTestId('headline-note').textContent()).toMatch(/^\[95% interval\]/);
    await shot(page, '1-results-undefined-means');
    // The same in the Markdown export.
    const md = Object.values((await client.exportRun({ runId: ids['demo-throws']!, format: 'markdown' })).files)[0]!;
    expect(md).toContain('| Mean argument value cond. accuracy (e) | – | – |');
    expect(md).toContain('demo-throws');
    expect(md).not.toContain('\\-');
  }, 240_000);

  it('a failed or cancelled run\'s bar is not the running blue, and its label says why (item 4)', async () => {
    await go('#/runs');
    const table = page.getByTestId('runs-table');
    await table.locator(`tr[data-run-id="${ids['demo-failed']}"]`).waitFor({ timeout: 60_000 });
    const fill = (id: number) => page.getByTestId(`progress-${id}`).locator('.bar > div').evaluate((e) => getComputedStyle(e).backgroundColor);
    const accent = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim());
    const failedFill = await fill(ids['demo-failed']!);
    const cancelledFill = await fill(ids['demo-cancelled']!);
    const finishedFill = await fill(ids['7b-unconstrained']!);
    expect(new Set([failedFill, cancelledFill, finishedFill]).size).toBe(3);
    expect(accent).toBe('#2f5bd3');
    for (const c of [failedFill, cancelledFill]) expect(c).not.toBe('rgb(47, 91, 211)');
    expect(await page.getByTestId(`progress-${ids['demo-failed']}`).locator('[role=progressbar]').getAttribute('aria-label')).toBe('failed at 6 of 6 outputs');
    await shot(page, '4-runs-stopped');
    await go(`#/runs/${ids['demo-failed']}`);
    const progress = page.getByTestId(`progress-${ids['demo-failed']}`);
    await progress.waitFor({ timeout: 60_000 });
    expect(await progress.locator('.numbers').textContent()).toBe('6/6 · failed');
    await shot(page, '4-run-failed');
  }, 180_000);

  it('Compare: runs sharing samples first with their count, the rest greyed out; a checkbox shows its click at once; (e) tests pair the executable samples (items 8, 12, 14)', async () => {
    await go(`#/compare?baseline=${ids['7b-unconstrained']}`);
    const group = page.getByRole('group', { name: 'Runs to compare' });
    await expect.poll(() => group.locator('.shared').count(), { timeout: 60_000 }).toBeGreaterThan(3);
    const labels = await group.locator('label').allTextContents();
    // Most shared first; the runs on other datasets (demo-elsewhere, the multi-step demo's) last, greyed out and not to be ticked.
    const noShared = labels.filter((l) => / · no shared samples$/.test(l));
    expect(noShared.some((l) => /demo-elsewhere /.test(l))).toBe(true);
    expect(labels.slice(-noShared.length)).toEqual(noShared);
    expect(labels[0]).toMatch(/ · 32 shared$/);
    const counts = labels.map((l) => (/ · (\d+) shared$/.exec(l)?.[1] ? Number(/ · (\d+) shared$/.exec(l)![1]) : 0));
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    const elsewhere = group.locator('label', { hasText: 'demo-elsewhere' });
    expect(await elsewhere.getAttribute('class')).toContain('no-shared');
    expect(await elsewhere.locator('input').isDisabled()).toBe(true);
    await shot(page, '12-compare-candidates');
    // The click shows at once, in the same task as the click: not after the URL's round trip.
    const box = group.locator('label', { hasText: `#${ids['7b-constrained']} ` }).locator('input');
    const shown = await box.evaluate((e: HTMLInputElement) => {
      e.click();
      return e.checked;
    });
    expect(shown).toBe(true);
    await expect.poll(() => new URL(page.url()).hash).toContain(`runs=${ids['7b-constrained']}`);
    // Playwright's own check and uncheck agree.
    const another = group.locator('label', { hasText: `#${ids['demo-failed']} ` }).locator('input');
    await another.check();
    await another.uncheck();
    const metrics = page.getByTestId('compare-metrics');
    await metrics.waitFor({ timeout: 60_000 });
    await expect.poll(() => new URL(page.url()).hash).toBe(`#/compare?baseline=${ids['7b-unconstrained']}&runs=${ids['7b-constrained']}`);
    await expect.poll(() => metrics.locator('thead th').count(), { timeout: 30_000 }).toBe(3);
    const cell = (key: string) => metrics.locator('tr', { has: page.locator(`th[title="${key}"]`) }).locator('td[data-significant]');
    // (t): every shared sample; (e): those executable in both runs, and the cell says so.
    expect(await cell('samples_correct_wrt_total').locator('[data-testid=discordant]').textContent()).toMatch(/^\(\d+ disc\. of 32\)$/);
    const both = (await client.compareRuns({ baselineId: ids['7b-unconstrained']!, runIds: [ids['7b-constrained']!] })).paired[0]!['urls_correct'];
    const pairs = both.both + both.a_only + both.b_only + both.neither;
    expect(pairs).toBeLessThan(32);
    expect(await cell('urls_correct_wrt_executable').locator('[data-testid=discordant]').textContent()).toBe(`(${both.a_only + both.b_only} disc. of ${pairs} exec.)`);
    expect(await cell('urls_correct_wrt_executable').getAttribute('title')).toContain(`on the ${pairs} samples executable in both runs`);
    expect(await cell('samples_illegal_wrt_executable').locator('[data-testid=discordant]').textContent()).toMatch(/ exec\.\)$/);
    expect(await page.getByTestId('compare-alignment').textContent()).toContain('[ ] : the 95% interval.');
    await shot(page, '8-compare-discordant');
    expect(warnings.filter((w) => /flushSync/i.test(w))).toEqual([]);
  }, 180_000);

  it('Datasets: with "flagged" on, a fixed sample leaves the list and the count agrees with the header (item 13)', async () => {
    await go('#/datasets?dataset=1&checkStatus=flagged');
    const count = page.getByTestId('sample-count');
    await expect.poll(() => count.textContent(), { timeout: 60_000 }).toBe('4 samples');
    expect(await page.getByTestId('dataset-summary').textContent()).toBe('1 API · 4 flagged by checks');
    const flagged = await client.listSamples({ datasetId: 1, filter: { checkStatus: 'flagged' } });
    const target = flagged.find((s) => s.findings.some((f) => f.location === 'params' && typeof f.key === 'string'))!;
    const finding = target.findings.find((f) => f.location === 'params')!;
    const params = { ...(target.config.params as Record<string, unknown>) };
    delete params[finding.key!];
    const fixed = { ...target.config, params };
    await page.locator(`[data-testid=samples-table] tr[data-sample-id="${target.id}"]`).click();
    await page.getByTestId('sample-detail').getByRole('button', { name: 'Edit request' }).click();
    await page.getByLabel('Expected request JSON').fill(JSON.stringify(fixed, null, 2));
    await page.getByLabel('Reason').fill(`drop ${finding.key}, not in the spec`);
    await page.getByRole('button', { name: 'Save fix' }).click();
    await expect.poll(() => page.getByTestId('no-findings').count(), { timeout: 30_000 }).toBe(1);
    if ((await client.listSamples({ datasetId: 1, filter: { checkStatus: 'flagged' } })).length !== 3) throw new Error('the fix did not clear the sample\'s findings');
    await expect.poll(() => count.textContent()).toBe('3 samples');
    await expect.poll(() => page.getByTestId('dataset-summary').textContent()).toBe('1 API · 3 flagged by checks');
    expect(await page.locator(`[data-testid=samples-table] tr[data-sample-id="${target.id}"]`).count()).toBe(0);
    await shot(page, '13-datasets-after-fix');
  }, 180_000);

  it.runIf(hasVocabBundle)('Models: a success clears the error an earlier attempt left (item 14)', async () => {
    await go('#/models');
    const input = page.getByLabel('Model path');
    await input.waitFor({ timeout: 60_000 });
    await input.fill(path.join(dir, 'no-such-model.gguf'));
    await page.getByRole('button', { name: 'Add model' }).click();
    const banner = page.getByRole('alert');
    await expect.poll(() => banner.count(), { timeout: 30_000 }).toBeGreaterThan(0);
    const model = path.join(dir, 'tiny.gguf');
    fs.copyFileSync(cachedTestModel('llama-spm'), model);
    await input.fill(model);
    await page.getByRole('button', { name: 'Add model' }).click();
    await expect.poll(() => page.getByText(/^Added /).count(), { timeout: 60_000 }).toBe(1);
    expect(await banner.count()).toBe(0);
    await shot(page, '14-models-added');
  }, 180_000);

  it('the favicon costs no request: the page carries its own (item 14)', async () => {
    // Without a <link rel=icon> a browser asks for /favicon.ico on each load (three times in the walk
    // through the pages) and serve answered with the app's page; headless Chromium asks for none, so
    // the link itself is what is checked.
    expect(await page.evaluate(() => document.querySelector<HTMLLinkElement>('link[rel="icon"]')?.href.slice(0, 19) ?? null)).toBe('data:image/svg+xml,');
    expect(requests.filter((p) => p.includes('favicon'))).toEqual([]);
  });
});
