import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oracleProgram } from '../../main/prompt/index.js';
import { hasChromium } from '../support/browser.js';
import type { HostedReply, HostedRequest } from '../support/hostedStandIn.js';
import { openHostedPage, type HostedPage } from '../support/hostedPage.js';
import { ARTIFACTS, REPO_ROOT } from '../support/paths.js';

const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-batch-${name}.png`), fullPage: false });
const KEY = 'sk-e2e-batch-run';
const MODEL = 'gpt-4o';

const demo = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'datasets', 'demo.json'), 'utf8')) as Parameters<typeof oracleProgram>[0][];
/** The ground-truth program of the sample a request asks about, as a fenced reply. */
const oracle = (r: HostedRequest): HostedReply => {
  const sample = demo.find((s) => r.prompt.includes(s.task));
  if (!sample) return { status: 400, message: 'no sample in the prompt' };
  const program = oracleProgram(sample, 'full');
  return { text: `\`\`\`javascript\n${program.starter}${program.completion.replace(/\n\n[\s\S]*$/, '')}\n\`\`\`\n` };
};
const dollars = (text: string | null): number => Number(/at most about \$(\d+\.\d+)/.exec(text ?? '')?.[1]);

/**
 * New run with OpenAI's Batch API (issue 25) through `wapii serve` in Chromium, against the OpenAI
 * stand-in: the toggle, the estimate at batch prices (half) and the batch's 24 h instead of a
 * time, the run finished through one batch file; and the line that names a provider's missing key.
 */
describe.runIf(hasChromium)('the Batch API and provider keys on New run in Chromium', () => {
  let standIn: HostedPage['standIn'];
  let serve: HostedPage['serve'];
  let page: Page;
  let hosted: HostedPage | undefined;

  beforeAll(async () => {
    // batchPolls 0: the batch is completed at its first poll (serve polls every 30 s otherwise).
    hosted = await openHostedPage({ standIn: { kind: 'openai', key: KEY, model: MODEL, reply: oracle, batchPolls: 0 }, env: { OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: '', OPENAI_COMPATIBLE_API_KEY: '' } });
    ({ standIn, serve, page } = hosted);
  }, 180_000);
  afterAll(() => hosted?.close());

  it('queues a batch run with the estimate at batch prices; the run goes to OpenAI as one batch and finishes', async () => {
    await page.goto(serve.openUrl);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'New run', exact: true }).click();
    await page.getByLabel('hosted provider').check();
    await page.getByLabel('Provider', { exact: true }).selectOption('openai');
    await expect.poll(() => page.getByTestId('provider-key').textContent(), { timeout: 15_000 }).toBe('OpenAI key: from OPENAI_API_KEY; it is sent only to the provider and never stored with the run.');
    await page.getByLabel('Provider base URL').fill(standIn.url);
    await page.getByLabel('Provider model').fill(MODEL);
    await page.getByLabel('Sample limit').fill('2');
    const estimate = page.getByTestId('run-estimate');
    // Chat completions: a typical rate (no run of this model yet), at the full price.
    await expect.poll(() => estimate.textContent(), { timeout: 30_000 }).toMatch(/^2 samples × 1 run = 2 outputs · up to 500 generated tokens: at most about \d+ s at a typical 50 tok\/s per request, 8 at once \(a guess: no earlier run of this model measured one\); at most about \$0\.\d+ \(/);
    const full = dollars(await estimate.textContent());
    await page.getByLabel('Batch API').check();
    await expect.poll(() => estimate.textContent(), { timeout: 30_000 }).toMatch(/^2 samples × 1 run = 2 outputs · up to 500 generated tokens: OpenAI answers a batch within 24 h; at most about \$0\.\d+ at Batch API prices \(/);
    // gpt-4o's batch prices are half its prices: the same tokens cost half.
    // Shown to four places: within a rounding of half.
    expect(Math.abs(dollars(await estimate.textContent()) - full / 2)).toBeLessThanOrEqual(0.0001);
    await estimate.scrollIntoViewIfNeeded();
    await shot(page, '1-new-run-batch');

    await page.getByRole('button', { name: 'Queue 1 run' }).click();
    // One run queued: its page opens; the Runs list shows its progress.
    await expect.poll(() => page.url(), { timeout: 30_000 }).toMatch(/#\/runs\/\d+$/);
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Runs', exact: true }).click();
    const row = page.locator('[data-testid=runs-table] tbody tr').filter({ hasText: MODEL });
    await expect.poll(() => row.locator('.status').allTextContents(), { timeout: 120_000, interval: 500 }).toEqual(['finished']);
    expect(await row.locator('.run-progress .numbers').textContent()).toBe('2/2');
    await shot(page, '2-batch-run-finished');
    // One batch file with both requests, read back; no chat completion was asked.
    expect(standIn.batches.map((b) => [b.lines, b.problems])).toEqual([[2, []]]);
    expect(standIn.received.every((r) => r.problems.length === 0)).toBe(true);
    expect(standIn.received).toHaveLength(2);
  }, 240_000);

  it('names the missing key in one line and will not queue without it', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'New run', exact: true }).click();
    // The form came back as it was left: hosted, OpenAI, the batch ticked.
    expect(await page.getByLabel('Batch API').isChecked()).toBe(true);
    await page.getByLabel('Provider', { exact: true }).selectOption('anthropic');
    expect(await page.getByLabel('Batch API').count()).toBe(0);
    await expect.poll(() => page.getByTestId('provider-key').textContent(), { timeout: 15_000 }).toBe('No Anthropic key: set ANTHROPIC_API_KEY before starting wapii (or save one in the app); a run cannot start without it.');
    await expect.poll(() => page.getByTestId('run-estimate').textContent()).toBe('To queue: no Anthropic key: set ANTHROPIC_API_KEY before starting wapii (or save one in the app).');
    expect(await page.getByRole('button', { name: /^Queue/ }).isDisabled()).toBe(true);
    await page.getByTestId('provider-key').scrollIntoViewIfNeeded();
    await shot(page, '3-missing-key');
    // A server of your own may want no key: said, not refused.
    await page.getByLabel('Provider', { exact: true }).selectOption('openai-compatible');
    await expect.poll(() => page.getByTestId('provider-key').textContent()).toBe('No key for the server (OPENAI_COMPATIBLE_API_KEY is not set): requests go without one, as a server without auth expects.');
  }, 120_000);
});
