import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchClient } from '../../main/api/fetchClient.js';
import { cachedTestModel } from '../../main/generation/index.js';
import { hasChromium, launchChromium } from '../support/browser.js';
import { startHostedStandIn } from '../support/hostedStandIn.js';
import { ARTIFACTS, DEMO_DATASET, DEMO_SPECS, REPO_ROOT, tempDir } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';
import { hasVocabBundle } from '../support/vocab.js';

const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));
const KEY = 'sk-e2e-page-states';
const MODEL = 'gpt-4o';
const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-states-${name}.png`), fullPage: false });
/** A URL with no place to break: 600 characters of one path segment and one query value. */
const LONG = `https://api.harbor.example/v2/warehouses/${'w'.repeat(300)}?region=${'eu'.repeat(150)}`;

/** A free port on 127.0.0.1, for a serve that must come back on the same one. */
const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

/**
 * What issue 38 found misleading, in Chromium on `wapii serve` at 1280×800: New run with cells
 * that cannot run (a hosted model constrained) and prompts that may not fit the context; the
 * inspector with an unbroken URL; every page when serve stops, and again when it is back.
 */
describe.runIf(hasChromium && hasVocabBundle)('pages that never mislead (issue 38) on `wapii serve`', () => {
  const dir = tempDir();
  const db = path.join(dir, 'states.db');
  const tokenFile = path.join(dir, 'token');
  let port: number;
  let standIn: Awaited<ReturnType<typeof startHostedStandIn>>;
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  let longRun: number;
  const env = { OPENAI_API_KEY: KEY };
  const start = (): Promise<ServeProcess> => startServe(['--db', db], { env, serveArgs: ['--port', String(port), '--token-file', tokenFile] });

  beforeAll(async () => {
    if (!built) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    fs.writeFileSync(tokenFile, 'e2e-page-states-token-0123456789\n');
    // The hosted stand-in writes a call to a URL with no place to break, for a task that holds one.
    standIn = await startHostedStandIn({ kind: 'openai', key: KEY, model: MODEL, reply: (r) => ({ text: r.prompt.includes(LONG) ? `axios.get('${LONG}', { headers: { Authorization: 'Bearer <token>' } });` : "axios.get('https://api.harbor.example/v2/me');" }) });
    port = await freePort();
    serve = await start();
    const api = createFetchClient({ baseUrl: serve.url, token: serve.token });
    await api.addModel({ path: cachedTestModel('qwen2') });
    const samples = JSON.parse(fs.readFileSync(DEMO_DATASET, 'utf8')) as { task: string }[];
    samples[0]!.task = `Get the account behind ${LONG} and say which region it is in.`;
    const long = await api.importDataset({ name: 'long', dataset: { filename: 'long.json', content: JSON.stringify(samples.slice(0, 2)) }, specs: [{ filename: 'harbor.yaml', content: fs.readFileSync(path.join(DEMO_SPECS, 'harbor.yaml'), 'utf8') }] });
    longRun = (await api.startRun({ datasetId: long.id, subset: { limit: 1 }, model: { provider: { name: 'openai', model: MODEL, baseUrl: standIn.url } }, setting: 'unconstrained' })).runId;
    for (let i = 0; i < 600 && (await api.getRun({ runId: longRun })).status !== 'finished'; i++) await new Promise((r) => setTimeout(r, 100));
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 240_000);
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await standIn?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const estimate = (): Promise<string | null> => page.getByTestId('run-estimate').textContent();
  const newRun = async (): Promise<void> => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'New run', exact: true }).click();
    await page.getByLabel('Sample limit').waitFor();
  };

  // Item 2: the form says which cells it will not queue and why, and queues exactly the others.
  it('a hosted model with constrained ticked: the cell is shown as not queued, with why, and one run is queued', async () => {
    await page.goto(serve.openUrl);
    await newRun();
    await page.getByLabel('Run dataset').selectOption({ label: 'demo — 32 samples' });
    await page.getByLabel('hosted provider').check();
    // The providers come from the service's registry (listProviders): a new one (Ollama) is offered with no change to the page.
    const providers = page.getByLabel('Provider', { exact: true });
    await expect.poll(() => providers.locator('option').allTextContents()).toEqual(['OpenAI', 'Anthropic', 'Gemini', 'OpenAI-compatible server (llama-server, vLLM, a proxy)', 'Ollama']);
    await providers.selectOption('ollama');
    expect(await page.getByTestId('provider-key').textContent()).toBe('Ollama takes no key.');
    expect(await page.getByLabel('Provider base URL').getAttribute('placeholder')).toBe('http://127.0.0.1:11434');
    await shot(page, '0-providers-ollama');
    await providers.selectOption('openai');
    await page.getByLabel('Provider base URL').fill(standIn.url);
    await page.getByLabel('Provider model').fill(MODEL);
    await page.getByLabel('Sample limit').fill('2');
    await page.getByLabel('Full completion · constrained').check();
    expect(await page.getByLabel('Full completion · unconstrained').isChecked()).toBe(true);
    await expect.poll(() => page.getByTestId('refused-cells').textContent(), { timeout: 30_000 }).toBe('Not queued: Full completion · constrained: openai exposes no logits: constrained needs a local model or a grammar server');
    await expect.poll(estimate).toMatch(/^2 samples × 1 run = 2 outputs · up to 500 generated tokens/);
    const queue = page.getByRole('button', { name: 'Queue 1 run' });
    expect(await queue.isEnabled()).toBe(true);
    await page.getByTestId('run-estimate').scrollIntoViewIfNeeded();
    await shot(page, '1-refused-cell');
    await queue.click();
    await expect.poll(() => page.getByTestId('run-status').count(), { timeout: 30_000 }).toBe(1);
    const runs = await createFetchClient({ baseUrl: serve.url, token: serve.token }).listRuns({});
    expect(runs.filter((r) => r.kind === 'generation' && r.dataset === 'demo').map((r) => `${r.setup}/${r.setting}`)).toEqual(['full/unconstrained']);
  }, 120_000);

  // Item 3 and item 14's "20 outputs" said twice.
  it('warns when the longest prompt and max tokens may not fit the context, naming the fields; blank fits them', async () => {
    await newRun();
    await page.getByLabel('local model').check();
    await page.getByLabel('Full completion · constrained').uncheck();
    await page.getByLabel('Max tokens').fill('1500');
    await page.getByLabel('Context size').fill('1024');
    const warning = page.getByTestId('context-warning');
    await expect.poll(() => warning.textContent(), { timeout: 30_000 }).toMatch(/^the longest prompt \(sample #\d+, about \d+ tokens\) and 1,500 max tokens need a context of about [\d,]+; Context is 1,024: raise Context to [\d,]+ \(or leave it blank\) or lower Max tokens/);
    expect(await warning.textContent()).not.toMatch(/--context|--max-tokens/);
    // The estimate says its outputs once.
    expect(((await estimate()) ?? '').match(/outputs/g)).toHaveLength(1);
    await page.getByTestId('run-estimate').scrollIntoViewIfNeeded();
    await shot(page, '2-context-warning');
    // Blank: a context that fits, well within the test model's trained 4096.
    await page.getByLabel('Context size').fill('');
    const auto = async (): Promise<number> => Number(/^auto \((\d+)\)$/.exec((await page.getByLabel('Context size').getAttribute('placeholder')) ?? '')?.[1]);
    await expect.poll(auto, { timeout: 30_000 }).toBeGreaterThan(1500);
    expect(await auto()).toBeLessThanOrEqual(4096);
    await expect.poll(() => page.getByRole('button', { name: 'Queue 1 run' }).isEnabled(), { timeout: 30_000 }).toBe(true);
    expect(await warning.count()).toBe(0);
    // More than the model was trained on: said, with what to do.
    await page.getByLabel('Max tokens').fill('4000');
    await expect.poll(() => warning.textContent(), { timeout: 30_000 }).toMatch(/more than the model was trained on \(4,096\): lower Max tokens or leave that sample out/);
    await page.getByLabel('Max tokens').fill('250');
  }, 120_000);

  // Item 11: the inspector keeps a long unbroken URL inside the drawer.
  it('the inspector at 1280×800: an unbroken URL wraps inside the drawer', async () => {
    await page.goto(serve.openUrl);
    await page.getByTestId('sample-count').waitFor({ timeout: 60_000 });
    await page.evaluate((h) => (window.location.hash = h), `#/runs/${longRun}?tab=samples&sample=0`);
    const drawer = page.getByTestId('sample-inspector');
    await drawer.getByTestId('request-diff').waitFor({ timeout: 60_000 });
    await expect.poll(() => drawer.textContent()).toContain('w'.repeat(300));
    const { scroll, client, widest } = await drawer.evaluate((d) => {
      const right = d.getBoundingClientRect().right;
      // Code views and <pre> scroll on their own; everything else must stay inside the drawer.
      const outside = [...d.querySelectorAll('*')].filter((e) => !e.closest('.code-view, pre, .cm-editor') && e.getBoundingClientRect().right > right + 1);
      return { scroll: d.scrollWidth, client: d.clientWidth, widest: outside.map((e) => `${e.tagName.toLowerCase()}.${e.className}: ${(e.textContent ?? '').slice(0, 40)}`).slice(0, 5) };
    });
    await shot(page, '3-inspector-long-url');
    expect(widest).toEqual([]);
    expect(scroll).toBeLessThanOrEqual(client);
  }, 120_000);

  // Item 5: serve stops, every page says so; serve is back (same port, same token), the pages follow it again.
  it('says the server is gone on every page while serve is stopped, and reconnects with the same token when it is back', async () => {
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Runs', exact: true }).click();
    await page.locator('[data-testid=runs-table], table').first().waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('connection-lost').count()).toBe(0);
    await serve.stop();
    const banner = page.getByTestId('connection-lost');
    await expect.poll(() => banner.count(), { timeout: 30_000 }).toBe(1);
    expect(await banner.textContent()).toMatch(/^The server is gone \(no word from it since \d\d:\d\d:\d\d\): .*stopped updating\. Reconnecting when it is back…$/);
    await shot(page, '4-server-gone-runs');
    // Another page says so too (Datasets is in the first chunk: it opens with serve down).
    await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Datasets', exact: true }).click();
    expect(await banner.count()).toBe(1);
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 15_000 }).toMatch(/^the server did not answer: `wapii serve` has stopped or cannot be reached/);
    await shot(page, '4b-server-gone-datasets');
    serve = await start();
    await expect.poll(() => banner.count(), { timeout: 60_000 }).toBe(0);
    // Back, and the page's calls go through with the cookie it had.
    await expect.poll(() => page.getByTestId('sample-count').textContent(), { timeout: 30_000 }).toMatch(/^\d+ samples$/);
    // The call that failed while serve was gone said so, and its line went with the reconnection.
    await expect.poll(() => page.getByRole('alert').count()).toBe(0);
    await shot(page, '5-reconnected');
  }, 180_000);
});
