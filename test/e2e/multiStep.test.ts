import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkbench } from '../../main/service/index.js';
import { hasChromium, launchChromium } from '../support/browser.js';
import { MULTI_STEP_SAMPLES, seedMultiStepRuns } from '../support/multiStepRun.js';
import { ARTIFACTS, hasWapiiBench, REPO_ROOT, tempDir } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';

const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));
const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-multistep-${name}.png`), fullPage: false });
/** The inspector whole (it scrolls inside the window): drawn once in a window tall enough to hold it. */
async function drawerShot(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize()!;
  const drawer = page.getByTestId('sample-inspector');
  const height = await drawer.evaluate((el) => el.scrollHeight);
  await page.setViewportSize({ width: viewport.width, height: Math.min(4000, Math.max(viewport.height, height + 60)) });
  await drawer.screenshot({ path: path.join(ARTIFACTS, `e2e-multistep-${name}.png`) });
  await page.setViewportSize(viewport);
}

/**
 * Runs on multi-step samples (scoring.md §7; issue 37 item 5) in Chromium on `wapii serve`: a
 * database seeded with three runs whose programs ran whole in the sandbox (test/support/
 * multiStepRun.ts), then the inspector's timeline on a correct output, a skipped lookup and an
 * extra mutating call, Results' task and step rates with where samples first failed, and
 * Compare's per-step rows and side-by-side steps.
 */
describe.runIf(hasChromium && hasWapiiBench)('multi-step runs in Chromium on `wapii serve`', () => {
  const dir = tempDir('wapii-e2e-steps-');
  const db = path.join(dir, 'steps.db');
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  let runA: number;
  let runB: number;
  let datasetId: number;

  beforeAll(async () => {
    if (!built) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    const workbench = openWorkbench({ db, author: 'tester', evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu' } });
    try {
      ({ runA, runB, datasetId } = await seedMultiStepRuns(workbench));
    } finally {
      await workbench.shutdown();
    }
    serve = await startServe(['--db', db], { serveArgs: ['--no-demo'] });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.goto(serve.openUrl);
    // The token is exchanged for the session cookie as the page loads: a navigation before that finished opened the app without it.
    await page.getByTestId('sample-count').waitFor({ timeout: 120_000 });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const inspector = () => page.getByTestId('sample-inspector');
  const openSample = async (index: number): Promise<void> => {
    await page.goto(`${serve.url}/#/runs/${runA}?sample=${index}`);
    await expect.poll(() => inspector().locator('h2').textContent(), { timeout: 60_000 }).toMatch(new RegExp(`^#${index} `));
    await inspector().getByTestId('step-timeline').waitFor();
  };
  /** Each card of the timeline, in order: `step 0 correct`, `extra mutating` ... */
  const cards = (): Promise<string[]> =>
    inspector()
      .locator('.timeline > li')
      .evaluateAll((items) => items.map((li) => (li.getAttribute('data-step') !== null ? `step ${li.getAttribute('data-step')} ${li.getAttribute('data-verdict')}` : `extra ${li.getAttribute('data-mutating') === 'true' ? 'mutating' : 'read'}`)));

  it('the samples list says each multi-step sample’s steps correct of all', async () => {
    await page.goto(`${serve.url}/#/runs/${runA}`);
    await expect.poll(() => page.getByTestId('steps-chip').allTextContents(), { timeout: 60_000 }).toEqual(['2/2 steps', '0/2 steps', '2/2 steps', '2/2 steps']);
    await shot(page, '0-samples');
  });

  it('a correct output: both steps took their requests, the carried channel held and sent alike', async () => {
    await openSample(0);
    expect(await cards()).toEqual(['step 0 correct', 'step 1 correct']);
    expect(await inspector().getByTestId('timeline-summary').textContent()).toBe('2 of 2 steps correct · carried values 1/1 sent as the response held them · first failed step: none');
    const carried = inspector().getByTestId('carried-value');
    expect(await carried.getAttribute('data-correct')).toBe('true');
    expect(await carried.textContent()).toBe('✓ carried data.channel ← step 0’s response at /data/channels/1/id: held "C0DEPLOY1", sent "C0DEPLOY1"');
    // The stubbed response, collapsed to its status and a line of its JSON, opens to the whole of it.
    const stub = inspector().locator('[data-step="0"] details.stub');
    expect(await stub.locator('summary').textContent()).toMatch(/^stubbed response 200\{"ok":true,"channels":\[/);
    await stub.locator('summary').click();
    expect(await stub.locator('pre').first().textContent()).toContain('"name": "deploys"');
    expect(await inspector().getByTestId('extraction').textContent()).toContain('the whole program ran');
    await shot(page, '1-correct');
    await drawerShot(page, '1-correct-inspector');
  });

  it('a skipped lookup: step 0 missing, step 1 sent the channel’s name where the lookup’s ID belongs', async () => {
    await openSample(1);
    expect(await cards()).toEqual(['step 0 missing', 'step 1 wrong']);
    const missing = inspector().locator('[data-testid=timeline-step][data-step="0"]');
    expect(await missing.locator('.request-no').textContent()).toBe('no request took it');
    expect(await missing.locator('[data-testid=argument-verdicts] tr[data-verdict]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-verdict')))).toEqual(['missing', 'missing']);
    expect(await missing.locator('.badge.first-failed').count()).toBe(1);
    const carried = inspector().getByTestId('carried-value');
    expect(await carried.getAttribute('data-correct')).toBe('false');
    expect(await carried.textContent()).toContain('held "C0DEPLOY1", sent "deploys"');
    // The argument the carried value fills is marked in the table, with its verdict.
    const channel = inspector().locator('[data-step="1"] [data-testid=argument-verdicts] tr', { hasText: 'channel' });
    expect(await channel.getAttribute('data-verdict')).toBe('incorrect_value');
    expect(await channel.locator('.carried-tag.not').count()).toBe(1);
    await shot(page, '2-skipped-lookup');
    await drawerShot(page, '2-skipped-lookup-inspector');
  });

  it('an extra mutating call: both steps correct, the second post marked extra and mutating after them', async () => {
    await openSample(2);
    expect(await cards()).toEqual(['step 0 correct', 'step 1 correct', 'extra mutating']);
    expect(await inspector().getByTestId('timeline-summary').textContent()).toBe('2 of 2 steps correct · 1 extra request (1 mutating) · carried values 1/1 sent as the response held them · first failed step: none');
    const extra = inspector().getByTestId('timeline-extra');
    expect(await extra.locator('.step-endpoint').textContent()).toBe('POST https://slack.com/api/chat.postMessage');
    expect(await extra.locator('.extra-sent').textContent()).toBe('body {"text":"Release 2.4 is out","channel":"C0GENERAL"}');
    // It stands out: the illegal colour, unlike the steps' cards.
    const border = await extra.evaluate((el) => getComputedStyle(el).borderLeftColor);
    expect(border).toBe(await extra.locator('.badge.extra-mutating').evaluate((el) => getComputedStyle(el).color));
    await extra.scrollIntoViewIfNeeded();
    await shot(page, '3-extra-mutating');
    await drawerShot(page, '3-extra-mutating-inspector');
  });

  it('Results: the task rate and the step rate with their intervals, and which step samples first failed at', async () => {
    await page.goto(`${serve.url}/#/runs/${runA}?tab=results`);
    const rates = page.getByTestId('step-rates');
    await rates.waitFor({ timeout: 60_000 });
    const row = (key: string) => rates.locator(`tr[data-statistic=${key}] td`).first().textContent();
    // 2/4 samples, Wilson [15.0, 85.0]; 6/8 steps, Wilson [40.9, 92.9].
    expect(await row('samples_multistep_correct_wrt_multistep')).toBe('50.0% [15.0, 85.0]');
    expect(await row('steps_correct_wrt_total')).toBe('75.0% [40.9, 92.9]');
    expect(await row('carried_correct_wrt_total')).toBe('75.0% [30.1, 95.4]');
    const failed = page.getByTestId('first-failed-step');
    expect(await failed.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.children].slice(0, 3).map((c) => c.textContent)))).toEqual([
      ['step 0', '1', '25.0%'],
      ['none', '3', '75.0%'],
    ]);
    await page.getByTestId('results-steps').scrollIntoViewIfNeeded();
    await shot(page, '4-results');
    await page.getByTestId('results-steps').screenshot({ path: path.join(ARTIFACTS, 'e2e-multistep-4-results-steps.png') });
  });

  it('Compare: each sample’s steps in both runs under its row; a sample opened shows its steps side by side', async () => {
    await page.goto(`${serve.url}/#/compare?baseline=${runA}&runs=${runB}`);
    const rows = page.getByTestId('compare-rows');
    await rows.waitFor({ timeout: 60_000 });
    await expect.poll(() => rows.locator('tr.step-row').count()).toBe(8);
    const steps = await rows.locator('tr.step-row[data-index="0"]').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(2).map((td) => td.textContent?.trim())));
    expect(steps).toEqual([
      ['step 0 GET /conversations.list', 'correct', 'missing regressed'],
      ['step 1 POST /chat.postMessage', 'correct', 'wrong regressed'],
    ]);
    expect(await page.getByTestId('compare-metrics').locator('tr', { hasText: 'Correct steps (t)' }).locator('td').allTextContents()).toEqual(['75.0% [40.9, 92.9]', '62.5% [30.6, 86.3]', '−12.5 pt']);
    await shot(page, '5-compare');
    await rows.locator('tr[data-index="3"]').first().click();
    const side = page.getByTestId('compare-steps');
    await side.waitFor({ timeout: 30_000 });
    expect(await side.locator('tr.step-head').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent?.trim())))).toEqual([
      ['step 0', 'GET /tasks', 'correctGET https://app.asana.com/api/1.0/tasks', 'correctGET https://app.asana.com/api/1.0/tasks'],
      ['step 1', 'PUT /tasks/{task_gid}', 'correctPUT https://app.asana.com/api/1.0/tasks/1209000', 'wrongPUT https://app.asana.com/api/1.0/tasks/1200042'],
    ]);
    await shot(page, '6-compare-sample');
    await page.getByTestId('compare-sample').screenshot({ path: path.join(ARTIFACTS, 'e2e-multistep-6-compare-sample-panel.png') });
  });

  it('Datasets filters samples by how many requests they make', async () => {
    await page.goto(`${serve.url}/#/datasets?dataset=${datasetId}`);
    const count = page.getByTestId('sample-count');
    await expect.poll(() => count.textContent(), { timeout: 30_000 }).toBe(`${MULTI_STEP_SAMPLES.length} samples`);
    await page.getByLabel('Requests per sample').selectOption('one');
    await expect.poll(() => count.textContent()).toBe('0 samples');
    await page.getByLabel('Requests per sample').selectOption('several');
    await expect.poll(() => count.textContent()).toBe(`${MULTI_STEP_SAMPLES.length} samples`);
    expect(page.url()).toContain('requests=several');
    // A task of several requests reads as its steps, not only its last request.
    expect(await page.locator('[data-testid=samples-table] tbody tr').first().textContent()).toContain('GET → POST/api/conversations.list → /api/chat.postMessage');
    await shot(page, '8-datasets-requests-filter');
  });

  it('in a dark system scheme the timeline and the step rates stay readable (screenshots)', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await openSample(1);
      expect(await inspector().locator('[data-step="0"]').evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe('rgb(246, 242, 253)');
      await drawerShot(page, '7-dark-skipped-lookup-inspector');
      await openSample(2);
      await drawerShot(page, '7-dark-extra-mutating-inspector');
      await page.goto(`${serve.url}/#/runs/${runA}?tab=results`);
      await page.getByTestId('results-steps').waitFor({ timeout: 60_000 });
      await page.getByTestId('results-steps').screenshot({ path: path.join(ARTIFACTS, 'e2e-multistep-7-dark-results-steps.png') });
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });
});
