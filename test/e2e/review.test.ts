import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/browser.js';
import { answersForUncovered, demoSubset, UNCOVERED_BY_SUBSET } from '../support/demoSubset.js';
import { samplesReply, startGeminiStandIn, textReply, type SeenRequest } from '../support/geminiStandIn.js';
import { ARTIFACTS, DEMO_SPECS, REPO_ROOT, tempDir } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';

const KEY = 'AIzaSyE2eStandInKey-0123456789-DO-NOT-LEAK';
const MODEL = 'gemini-2.5-pro';
const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));
const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-review-${name}.png`) });

/**
 * The stand-in answers what a good model would, except that the sample for `GET /carriers`
 * carries a query argument the spec does not define: a finding with a certain one-click fix.
 */
const answers = answersForUncovered();
const flawed = (endpoint: string): unknown => {
  const answer = answers.get(endpoint)!;
  if (endpoint !== 'GET /carriers') return answer;
  const config = answer.config as { params?: Record<string, unknown> };
  return { ...answer, config: { ...config, params: { ...config.params, colour: 'blue' } } };
};

/**
 * Coverage, synthesis and review in Chromium through `wapii serve`, the Gemini API played by a
 * local stand-in (its URL as the SDK's base URL, the key in serve's environment).
 */
describe.runIf(hasChromium)('coverage, synthesis and keyboard review on `wapii serve`', () => {
  const dir = tempDir('wapii-e2e-review-');
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  let standIn: Awaited<ReturnType<typeof startGeminiStandIn>>;
  /** The sample ids the keyboard decided, by decision. */
  const decided: Record<string, string> = {};

  beforeAll(async () => {
    if (!built) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    standIn = await startGeminiStandIn({ key: KEY, model: MODEL, respond: (r: SeenRequest) => samplesReply(r.asked.map(flawed)) });
    serve = await startServe(['--db', path.join(dir, 'review.db')], { serveArgs: ['--no-demo'], env: { GEMINI_API_KEY: KEY, GOOGLE_API_KEY: '' } });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(dir, 'subset.json'), demoSubset().content);
  });
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await standIn?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('coverage lists the uncovered endpoints of a dataset', async () => {
    await page.goto(serve.openUrl);
    await page.getByRole('button', { name: 'Import dataset…' }).click();
    await page.getByLabel('Dataset file').setInputFiles(path.join(dir, 'subset.json'));
    await page.getByLabel('Spec files').setInputFiles(path.join(DEMO_SPECS, 'harbor.yaml'));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByTestId('sample-count').textContent(), { timeout: 60_000 }).toBe('21 samples');
    await page.getByRole('button', { name: 'Coverage and synthesis' }).click();
    await expect.poll(() => page.getByTestId('coverage-summary').textContent()).toBe('15 of 22 endpoints have a sample');
    expect(await page.getByTestId('uncovered').locator('code').allTextContents()).toEqual(UNCOVERED_BY_SUBSET);
    expect(await page.getByTestId('key-status').textContent()).toBe('API key: set (from the environment)');
    await shot(page, '1-coverage');
  });

  // Issue 38 item 6: an OpenAI-compatible server without a base URL would have sent its requests to api.openai.com.
  it('an OpenAI-compatible server needs its base URL before Synthesize', async () => {
    const provider = page.getByTestId('synthesize-form').getByLabel('Provider', { exact: true });
    const synthesize = page.getByRole('button', { name: 'Synthesize', exact: true });
    await provider.selectOption('openai-compatible');
    expect(await synthesize.isDisabled()).toBe(true);
    expect(await page.getByTestId('synthesize-hint').textContent()).toBe("give the server's base URL (http:// or https://): OpenAI-compatible server (llama-server, vLLM, a proxy) has no default");
    await shot(page, '1b-base-url-required');
    await page.getByTestId('synthesize-form').getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
    expect(await synthesize.isEnabled()).toBe(true);
    await page.getByTestId('synthesize-form').getByLabel('Base URL').fill('');
    await provider.selectOption('gemini');
    expect(await synthesize.isEnabled()).toBe(true);
  });

  it('synthesizes them with the stand-in: one request, 7 samples stored, coverage full', async () => {
    await page.getByLabel('Base URL').fill(standIn.url);
    await page.getByRole('button', { name: 'Synthesize', exact: true }).click();
    const job = page.getByTestId('synthesis-job');
    await expect.poll(() => job.getAttribute('data-status'), { timeout: 60_000 }).toBe('finished');
    expect(await job.getByTestId('job-counts').textContent()).toMatch(/^7 of 7 endpoints · 7 samples stored · 0 failed · 1,000 in \/ [\d,]+ out tokens · 1 requests · \$0\.0\d+ estimated$/);
    expect(standIn.requests).toHaveLength(1);
    expect(standIn.requests[0]!.problems).toEqual([]);
    expect(standIn.requests[0]!.asked).toEqual(UNCOVERED_BY_SUBSET);
    await expect.poll(() => page.getByTestId('coverage-summary').textContent()).toBe('22 of 22 endpoints have a sample');
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('28 samples');
    await shot(page, '2-synthesized');
    // An endpoint of the coverage table filters the samples table to it, until the filter is cleared.
    await page.getByTestId('coverage-table').getByRole('button', { name: 'GET /carriers', exact: true }).click();
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('1 sample');
    expect(await page.getByTestId('endpoint-filter').textContent()).toBe('endpoint GET /carriers✕');
    await page.getByRole('button', { name: 'Clear the endpoint filter' }).click();
    await expect.poll(() => page.getByTestId('sample-count').textContent()).toBe('28 samples');
  });

  it('reviews three samples by keyboard only: fix one with a one-click fix, accept one, reject one; undo', async () => {
    await page.getByRole('button', { name: 'Review the new samples →' }).click();
    const focus = page.getByTestId('review-focus');
    const progress = page.getByTestId('review-progress');
    await expect.poll(() => page.getByTestId('queue-position').textContent()).toBe('sample 1 of 7 in the queue');
    await expect.poll(() => progress.textContent()).toContain('0 of 28 reviewed');
    // The spec excerpt of the endpoint is beside the sample.
    expect(await page.getByTestId('spec-excerpt').textContent()).toContain('GET /carriers');
    const current = async (): Promise<string> => (await focus.getAttribute('data-sample-id')) ?? '';
    await page.locator('body').click({ position: { x: 5, y: 5 } });

    // 1: GET /carriers with the undefined `colour`: the first one-click fix drops it; f shows the diff; Enter saves.
    expect(await page.getByTestId('review-findings').textContent()).toContain('query argument `colour` is not defined');
    await expect.poll(() => page.getByRole('button', { name: /drop params\.colour/ }).count()).toBe(1);
    decided['fixed'] = await current();
    await page.keyboard.press('x');
    await expect.poll(() => page.getByTestId('edit-diff').count()).toBe(1);
    await shot(page, '3-fix-applied');
    await page.keyboard.press('f');
    const dialog = page.getByRole('dialog', { name: 'Confirm the fix' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByTestId('edit-diff').textContent()).toContain('config.params.colour"blue"');
    await shot(page, '4-fix-diff');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('queue-position').textContent()).toBe('sample 2 of 7 in the queue');

    // 2: the checklist ticked by 1 2 3, then accepted.
    decided['accepted'] = await current();
    expect(decided['accepted']).not.toBe(decided['fixed']);
    for (const key of ['1', '2', '3']) await page.keyboard.press(key);
    expect(await page.getByRole('group', { name: 'Checklist' }).locator('input:checked').count()).toBe(3);
    await page.keyboard.press('a');
    await expect.poll(() => page.getByTestId('queue-position').textContent()).toBe('sample 3 of 7 in the queue');

    // 3: rejected.
    decided['rejected'] = await current();
    await page.keyboard.press('r');
    await expect.poll(() => page.getByTestId('queue-position').textContent()).toBe('sample 4 of 7 in the queue');
    await expect.poll(() => progress.textContent()).toContain('3 of 28 reviewed · 1 accepted · 1 fixed · 1 rejected · 25 unreviewed');
    await shot(page, '5-three-reviewed');

    // u: the rejection is undone and the view goes back to that sample.
    await page.keyboard.press('u');
    await expect.poll(() => page.getByTestId('queue-position').textContent()).toBe('sample 3 of 7 in the queue');
    expect(await current()).toBe(decided['rejected']);
    await expect.poll(() => progress.textContent()).toContain('2 of 28 reviewed · 1 accepted · 1 fixed · 0 rejected · 26 unreviewed');
    expect(await focus.locator('.review-head .state').textContent()).toBe('unreviewed');

    // k k: back to the accepted sample, whose history holds the checklist.
    await page.keyboard.press('k');
    await expect.poll(() => current()).toBe(decided['accepted']);
    await expect.poll(() => page.getByTestId('review-history').textContent()).toContain('marked accepted → accepted · checklist ✓✓✓');
    expect(await page.getByRole('group', { name: 'Checklist' }).locator('input:checked').count()).toBe(3);
    await page.keyboard.press('k');
    await expect.poll(() => current()).toBe(decided['fixed']);
    await expect.poll(() => page.getByTestId('review-history').textContent()).toContain('fixed: drop params.colour (not in the spec) → fixed');
    expect(await page.getByTestId('review-findings').count()).toBe(0);
    await shot(page, '6-undone');
  });

  it('exports only the accepted and the fixed sample', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export accepted + fixed' }).click()]);
    const file = path.join(dir, download.suggestedFilename());
    await download.saveAs(file);
    expect(download.suggestedFilename()).toBe('subset-accepted-fixed.json');
    const exported = JSON.parse(fs.readFileSync(file, 'utf8')) as { api: string; task: string; config: { url: string; params?: Record<string, unknown> } }[];
    expect(exported).toHaveLength(2);
    const carriers = exported.find((s) => s.config.url.endsWith('/carriers'))!;
    expect(carriers.config.params).toEqual({ country: 'DE', service_level: 'express' });
    const tasks = exported.map((s) => s.task);
    expect(tasks).toContain(answers.get('GET /carriers')!.task);
    expect(new Set(tasks).size).toBe(2);
    // The checks are run again on what was written (issue 26 item 3); neither sample came with a `checks` text.
    await expect.poll(() => page.getByTestId('export-checks').textContent()).toBe('exported 2 samples: 0 flagged by the spec checks, 2 with their checks recomputed');
    expect(exported.map((s) => (s as { checks?: string }).checks)).toEqual(['OK', 'OK']);
    // The key is in no response the renderer got: not in the page's text nor its storage.
    expect(await page.content()).not.toContain(KEY);
    expect(serve.output()).not.toContain(KEY);
  });

  it('bulk-rejects the rest of the queue after a confirmation', async () => {
    const progress = page.getByTestId('review-progress');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Shift+R');
    const dialog = page.getByRole('dialog', { name: 'Confirm the bulk decision' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    // The queue was loaded as the 7 unreviewed synthesized samples; the 2 decided since are left alone.
    expect(await dialog.locator('h2').textContent()).toBe('Reject all 5 samples of the queue?');
    await shot(page, '7-bulk-confirm');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    await page.keyboard.press('Shift+R');
    await page.keyboard.press('Enter');
    await expect.poll(() => progress.textContent()).toContain('7 of 28 reviewed · 1 accepted · 1 fixed · 5 rejected · 21 unreviewed');
  });

  it('a job is cancelled while its request hangs, resumed, and its truncated answer is shown per endpoint, raw', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Datasets', exact: true }).click();
    await page.getByRole('button', { name: 'Coverage and synthesis' }).click();
    standIn.respond.current = () => ({ hang: true });
    await page.getByLabel('choose GET /webhooks').check();
    await page.getByLabel('Base URL').fill(standIn.url);
    await page.getByRole('button', { name: 'Synthesize', exact: true }).click();
    const job = page.getByTestId('synthesis-job').first();
    await expect.poll(() => job.getAttribute('data-status'), { timeout: 30_000 }).toBe('running');
    await expect.poll(() => standIn.requests.length).toBe(2);
    await job.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => job.getAttribute('data-status'), { timeout: 30_000 }).toBe('cancelled');

    const truncated = '{"samples": [{"task": "List my webhook subscri';
    standIn.respond.current = () => textReply(truncated, 'MAX_TOKENS');
    await job.getByRole('button', { name: 'Resume' }).click();
    // Its one endpoint failed: the job reads failed, not finished, and offers Retry errors.
    await expect.poll(() => job.getAttribute('data-status'), { timeout: 30_000 }).toBe('failed');
    expect(await job.getByTestId('job-status').textContent()).toBe('failed (its endpoint)');
    expect(await job.getByRole('button', { name: 'Retry errors' }).count()).toBe(1);
    expect(await job.getByTestId('job-counts').textContent()).toMatch(/^1 of 1 endpoints · 0 samples stored · 1 failed · /);
    const failure = job.getByTestId('job-failures');
    expect(await failure.textContent()).toContain('GET /webhooks truncated the answer was cut at the token limit');
    await failure.locator('summary').click();
    expect(await failure.locator('pre').textContent()).toBe(truncated);
    await job.scrollIntoViewIfNeeded();
    await shot(page, '8-failed-endpoint');
  });

  it('warns of a near duplicate: a new sample of the same endpoint with nearly the same task', async () => {
    const original = answers.get('GET /webhooks')!;
    standIn.respond.current = () => samplesReply([{ ...original, task: 'List all my webhook subscriptions.' }]);
    await page.getByRole('button', { name: 'Synthesize', exact: true }).click();
    const job = page.getByTestId('synthesis-job').first();
    await expect.poll(() => job.getByTestId('job-counts').textContent(), { timeout: 30_000 }).toMatch(/^1 of 1 endpoints · 1 samples stored · 0 failed/);
    await job.getByRole('button', { name: 'Review the new samples →' }).click();
    await expect.poll(() => page.getByTestId('queue-position').textContent()).toBe('sample 1 of 1 in the queue');
    // "list my webhook subscriptions" against "list all my webhook subscriptions": 4 of 5 words.
    await expect.poll(() => page.getByTestId('near-duplicate').textContent()).toBe(
      `Near duplicate: #23 (80% of words shared) asks the same endpoint with nearly the same task: “${original.task}”`,
    );
    expect(await page.getByTestId('spec-auth').textContent()).toBe('Auth (one of): Authorization: Bearer <token>, header X-API-Key');
    await shot(page, '9-near-duplicate');

    // e edits the task by keyboard; Esc leaves the field; f shows the diff; Esc twice cancels and discards.
    await page.keyboard.press('e');
    await page.keyboard.press('End');
    await page.keyboard.type(' Only active ones.');
    await page.keyboard.press('Escape');
    await page.keyboard.press('f');
    const dialog = page.getByRole('dialog', { name: 'Confirm the fix' });
    await expect.poll(() => dialog.getByTestId('edit-diff').textContent()).toBe('wherebeforeaftertask"List all my webhook subscriptions.""List all my webhook subscriptions. Only active ones."');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('edit-diff').count()).toBe(0);
    // ? lists the review keys.
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    for (const line of ['accept and go to the next sample', 'apply the first one-click fix', 'undo the last decision and go back to it', 'go to Review']) expect(await help.textContent()).toContain(line);
    await page.keyboard.press('Escape');
    await expect.poll(() => help.count()).toBe(0);
  });

  // Issue 38 item 10: Review opens the dataset chosen on Datasets, and says it is loading rather than "Nothing to review / 0 of 0".
  it('opens the dataset chosen on Datasets, not the newest, and shows no empty queue while it loads', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Datasets', exact: true }).click();
    await page.getByRole('button', { name: 'Import dataset…' }).click();
    await page.getByLabel('Dataset file').setInputFiles(path.join(dir, 'subset.json'));
    await page.getByLabel('Spec files').setInputFiles(path.join(DEMO_SPECS, 'harbor.yaml'));
    await page.getByLabel('Dataset name').fill('newest');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    const picker = page.getByLabel('Dataset', { exact: true });
    await expect.poll(async () => (await picker.locator('option:checked').textContent()) ?? '', { timeout: 60_000 }).toMatch(/^newest/);
    const options = await picker.locator('option').evaluateAll((os) => os.map((o) => ({ value: (o as HTMLOptionElement).value, text: o.textContent ?? '' })));
    const older = options.find((o) => !o.text.startsWith('newest'))!;
    const newest = options.find((o) => o.text.startsWith('newest'))!;
    // Review follows the choice made on Datasets (here the new dataset), not the one it showed last.
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Review', exact: true }).click();
    await expect.poll(() => page.getByLabel('Dataset', { exact: true }).inputValue(), { timeout: 15_000 }).toBe(newest.value);
    await expect.poll(() => page.getByTestId('review-progress').textContent(), { timeout: 15_000 }).toMatch(/^0 of 21 reviewed/);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Datasets', exact: true }).click();
    await page.getByLabel('Dataset', { exact: true }).selectOption(older.value);

    // Hold the queue's samples to look at the page meanwhile.
    const held: (() => Promise<void>)[] = [];
    let holding = true;
    await page.route('**/api/listSamples', (route) => void (holding ? held.push(() => route.continue()) : route.continue()));
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Review', exact: true }).click();
    await expect.poll(() => held.length, { timeout: 10_000 }).toBeGreaterThan(0);
    await expect.poll(() => page.getByText('Loading the review queue').count()).toBe(1);
    expect(await page.getByTestId('review-empty').count()).toBe(0);
    expect(await page.getByTestId('review-progress').textContent()).not.toContain('0 of 0');
    await shot(page, '10-loading');
    holding = false;
    for (const go of held.splice(0)) await go();
    await page.unroute('**/api/listSamples');
    await expect.poll(() => page.getByTestId('review-progress').textContent(), { timeout: 15_000 }).toMatch(/^\d+ of 2\d reviewed/);
    expect(await page.getByLabel('Dataset', { exact: true }).inputValue()).toBe(older.value);
    await shot(page, '11-chosen-dataset');
  });
});
