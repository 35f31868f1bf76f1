import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/browser.js';
import { ARTIFACTS, hasWapiiBench, REPO_ROOT, tempDir, WAPIIBENCH_SPECS } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';

const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));
const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'multistep', 'slack-review.json');
/** The page whole (it scrolls inside its main element): drawn once in a window tall enough to hold it. */
async function shot(page: Page, name: string): Promise<void> {
  const viewport = page.viewportSize()!;
  const height = await page.locator('main.review-page').evaluate((el) => el.scrollHeight + el.getBoundingClientRect().top);
  await page.setViewportSize({ width: viewport.width, height: Math.min(4000, Math.max(viewport.height, Math.ceil(height) + 20)) });
  await page.screenshot({ path: path.join(ARTIFACTS, `e2e-review-steps-${name}.png`) });
  await page.setViewportSize(viewport);
}

/**
 * Reviewing a multi-step sample (scoring.md §7; issue 37 item 1, the review page) in Chromium on
 * `wapii serve`: a Slack conversations.list → chat.postMessage chain whose post carries the
 * channel ID from the list. Its steps are listed with their requests, responses, carried values
 * and findings; a per-step one-click fix, an edited response, an added, moved and removed step
 * are each saved as fixed and kept in the history; a move past the step a value is carried from,
 * and a removal below two steps, say why in one line.
 */
describe.runIf(hasChromium && hasWapiiBench)('review of a multi-step sample on `wapii serve`', () => {
  const dir = tempDir('wapii-e2e-review-steps-');
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    if (!built) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    serve = await startServe(['--db', path.join(dir, 'review.db')], { serveArgs: ['--no-demo'] });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const step = (i: number) => page.getByTestId(`step-${i}`);
  const urls = async (): Promise<string[]> => page.getByTestId('review-steps').locator('.step-url').allTextContents();
  const history = () => page.getByTestId('review-history');
  /** f shows the diff, Enter saves it as fixed; the queue moves on to the single sample, k comes back. */
  const saveFixed = async (diff: string): Promise<void> => {
    await page.keyboard.press('f');
    const dialog = page.getByRole('dialog', { name: 'Confirm the fix' });
    await expect.poll(() => dialog.isVisible()).toBe(true);
    expect(await dialog.getByTestId('edit-diff').textContent()).toContain(diff);
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('queue-position').textContent()).toBe('sample 2 of 2 in the queue');
    // The single-request sample is shown as before: its request's fields, no steps.
    expect(await page.getByTestId('review-steps').count()).toBe(0);
    expect(await page.getByLabel('URL', { exact: true }).inputValue()).toBe('https://slack.com/api/conversations.list');
    await page.keyboard.press('k');
    await expect.poll(() => page.getByTestId('queue-position').textContent()).toBe('sample 1 of 2 in the queue');
    await expect.poll(() => page.getByTestId('review-steps').count()).toBe(1);
  };

  it('lists the steps with their requests, responses, carried values and findings; x fixes the step its finding is about', async () => {
    await page.goto(serve.openUrl);
    await page.getByRole('button', { name: 'Import dataset…' }).click();
    await page.getByLabel('Dataset file').setInputFiles(FIXTURE);
    await page.getByLabel('Spec files').setInputFiles(path.join(WAPIIBENCH_SPECS, 'slack.yaml'));
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await expect.poll(() => page.getByTestId('sample-count').textContent(), { timeout: 60_000 }).toBe('2 samples');
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Review', exact: true }).click();
    await expect.poll(() => page.getByTestId('queue-position').textContent(), { timeout: 15_000 }).toBe('sample 1 of 2 in the queue');

    await expect.poll(() => urls()).toEqual(['https://slack.com/api/conversations.list', 'https://slack.com/api/chat.postMessage']);
    expect(await step(0).locator('.step-method').textContent()).toBe('GET');
    expect(await step(1).locator('.step-method').textContent()).toBe('POST');
    expect(await step(1).getByTestId('step-1-carried').locator('li').textContent()).toBe('data.channel ← step 0 /data/channels/0/id = "C0DEPLOY1"✕');
    expect(JSON.parse(await page.getByLabel('Step 0 response body JSON').inputValue())).toEqual({ ok: true, channels: [{ id: 'C0DEPLOY1', name: 'deploys' }] });
    expect(await page.getByLabel('Step 0 response status').inputValue()).toBe('200');
    // The finding is shown on its step, with its fix; the spec beside it, step by step.
    expect(await step(1).getByTestId('step-1-findings').textContent()).toContain('body argument `unfurl_links` = "false" must be of type boolean (POST /chat.postMessage)');
    expect(await page.getByTestId('review-findings-on-steps').textContent()).toBe('1 finding, each shown on its step above.');
    expect(await page.getByTestId('step-0-spec').textContent()).toContain('GET /conversations.list');
    expect(await page.getByTestId('step-1-spec').textContent()).toContain('POST /chat.postMessage');
    await shot(page, '1-steps');

    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('x');
    await expect.poll(async () => JSON.parse(await page.getByLabel('Step 1 request JSON').inputValue()).data.unfurl_links as unknown).toBe(false);
    // Step 0 is as it was.
    expect(JSON.parse(await page.getByLabel('Step 0 request JSON').inputValue())).toEqual({ url: 'https://slack.com/api/conversations.list', method: 'get', headers: { Authorization: 'Bearer <token>' }, params: { types: 'public_channel' } });
    await shot(page, '2-fix-applied');
    await saveFixed('steps[1].config.data.unfurl_links"false"false');
    await expect.poll(() => history().textContent()).toContain('fixed: step 1: data.unfurl_links: "false" → false → fixed');
    expect(await page.getByTestId('review-findings-on-steps').count()).toBe(0);
    expect(await page.locator('.review-main > p.ok').textContent()).toContain('No findings');
  });

  it("an edited response is saved and re-checked: the carried value it no longer holds is flagged on its step, and fixed there", async () => {
    await page.getByLabel('Step 0 response body JSON').fill(JSON.stringify({ ok: true, channels: [{ id: 'C0RELEASE', name: 'deploys' }] }, null, 2));
    // The carried value reads the response as edited.
    await expect.poll(() => step(1).getByTestId('step-1-carried').locator('li').textContent()).toBe('data.channel ← step 0 /data/channels/0/id = "C0RELEASE"✕');
    await page.keyboard.press('Escape');
    await saveFixed('steps[0].response.data.channels[0].id"C0DEPLOY1""C0RELEASE"');
    await expect.poll(() => history().textContent()).toContain("fixed: edited step 0's response → fixed");
    const findings = step(1).getByTestId('step-1-findings');
    await expect.poll(() => findings.textContent()).toContain('carried data.channel ← 0:/data/channels/0/id: the request sends "C0DEPLOY1" there, the response holds "C0RELEASE"');
    await shot(page, '3-carried-finding');
    await findings.getByRole('button', { name: /set data\.channel to "C0RELEASE"/ }).click();
    await expect.poll(async () => JSON.parse(await page.getByLabel('Step 1 request JSON').inputValue()).data.channel as unknown).toBe('C0RELEASE');
    await saveFixed('steps[1].config.data.channel"C0DEPLOY1""C0RELEASE"');
    await expect.poll(() => history().textContent()).toContain('fixed: step 1: set data.channel to "C0RELEASE" (what step 0\'s response holds) → fixed');
    expect(await page.getByTestId('step-1-findings').count()).toBe(0);
  });

  it('adds a step (a copy of the last), edits and moves it; a move before the step it carries from is refused in one line', async () => {
    // By keyboard: the step buttons are buttons, Tab reaches them and Enter presses them.
    await page.getByRole('button', { name: /Add a step/ }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => urls()).toEqual(['https://slack.com/api/conversations.list', 'https://slack.com/api/chat.postMessage', 'https://slack.com/api/chat.postMessage']);
    const request = JSON.parse(await page.getByLabel('Step 2 request JSON').inputValue()) as { data: Record<string, unknown> };
    await page.getByLabel('Step 2 request JSON').fill(JSON.stringify({ ...request, data: { ...request.data, text: 'Deploy verified' } }, null, 2));
    await page.getByRole('button', { name: 'Move step 2 up' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => JSON.parse(await page.getByLabel('Step 1 request JSON').inputValue()).data.text as unknown).toBe('Deploy verified');
    expect(await step(1).textContent()).toContain('(added)');
    expect(await step(2).textContent()).toContain('(was step 1)');
    // The draft's step 2 is the saved step 1: its findings (none here) would still be shown on it.
    expect(await page.getByTestId('edit-diff').textContent()).toContain('steps[2]step: POST https://slack.com/api/chat.postMessage');
    // Step 1 carries the channel from step 0: it cannot go before it.
    await page.getByRole('button', { name: 'Move step 1 up' }).click();
    await expect.poll(() => page.getByTestId('steps-refusal').textContent()).toBe('step 1 cannot move up: step 0 would carry data.channel from step 1, which no longer comes before it');
    expect(JSON.parse(await page.getByLabel('Step 1 request JSON').inputValue()).data.text).toBe('Deploy verified');
    await shot(page, '4-added-moved-refused');
    await saveFixed('steps[1].config.data.text"Deploy finished""Deploy verified"');
    await expect.poll(() => history().textContent()).toContain("fixed: added step 2 (a copy of step 1); edited step 2's request; moved step 2 up → fixed · steps 2 → 3");
    expect((await urls()).length).toBe(3);
  });

  it('removes a step; below two steps a removal is refused in one line; every edit is in the history', async () => {
    await page.getByRole('button', { name: 'Remove step 2' }).click();
    await expect.poll(() => urls()).toEqual(['https://slack.com/api/conversations.list', 'https://slack.com/api/chat.postMessage']);
    await page.getByRole('button', { name: 'Remove step 1' }).click();
    await expect.poll(() => page.getByTestId('steps-refusal').textContent()).toBe('a multi-step sample keeps 2 or more steps: step 1 cannot be removed from 2');
    expect((await urls()).length).toBe(2);
    await shot(page, '5-remove-refused');
    await saveFixed('steps[2]step: POST https://slack.com/api/chat.postMessage(removed)');
    await expect.poll(() => history().textContent()).toContain('fixed: removed step 2 → fixed · steps 3 → 2');
    expect(JSON.parse(await page.getByLabel('Step 1 request JSON').inputValue()).data).toEqual({ channel: 'C0RELEASE', text: 'Deploy verified', unfurl_links: false });
    expect(await history().locator('li').count()).toBe(6);
    await page.getByTestId('review-history').scrollIntoViewIfNeeded();
    await shot(page, '6-history');
  });
});
