import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchClient } from '../../main/api/fetchClient.js';
import { unwrap } from '../../main/api/result.js';
import { cachedTestModel } from '../../main/generation/index.js';
import { localClient, openWorkbench, readDemo } from '../../main/service/index.js';
import { hasChromium, launchChromium } from '../support/browser.js';
import { ARTIFACTS, REPO_ROOT, tempDir } from '../support/paths.js';
import { rendererBuilt } from '../support/session.js';
import { startServe, type ServeProcess } from '../support/serve.js';
import { hasVocabBundle } from '../support/vocab.js';

const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-layout1280-${name}.png`), fullPage: false });

/**
 * Texts of `cells` that their box cuts (an ellipsis or a clip): what a reader cannot read. The
 * text's laid-out width (a Range over it: an ellipsis is painted, the layout keeps the whole text)
 * against the cell's content box; scrollWidth misses what a table cell clips.
 */
const cutTexts = (cells: Locator): Promise<string[]> =>
  cells.evaluateAll((els) =>
    els
      .filter((e) => {
        const range = document.createRange();
        range.selectNodeContents(e);
        const style = getComputedStyle(e);
        const room = e.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        return (e.textContent ?? '').trim() !== '' && range.getBoundingClientRect().width > room + 0.5;
      })
      .map((e) => (e.textContent ?? '').trim()),
  );

/**
 * Issue 38 item 11, the states the layout test lacked, at 1280×800: the Runs list with a failed
 * run (its Delete button inside the window, its headers whole), Compare with a sample open (the
 * sticky run picker clear of the metric table's header), and Models (the Chat column whole).
 */
describe.runIf(hasChromium && hasVocabBundle)('layout at 1280×800 (issue 38 item 11)', () => {
  const dir = tempDir('wapii-e2e-layout1280-');
  const db = path.join(dir, 'layout.db');
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    if (!rendererBuilt) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    const demo = readDemo(REPO_ROOT);
    const wb = openWorkbench({ db });
    const like = demo.runs!.find((r) => r.meta.model.includes('7b') && r.meta.setting === 'unconstrained')!;
    const failed = { name: 'demo-failed', meta: { ...like.meta, model: 'demo-failed-with-a-long-model-name' }, codes: new Map([...like.codes].slice(0, 6)) };
    unwrap(await wb.service.seedIfEmpty({ ...demo, runs: [...demo.runs!, failed] }));
    const local = localClient(wb.service);
    for (const r of await local.listRuns({})) if (r.dataset !== 'demo-multistep') ids[r.model?.includes('7b') ? `7b-${r.setting}` : (r.model ?? String(r.id))] = r.id;
    wb.service.evaluation.runs.setStatus(ids['demo-failed-with-a-long-model-name']!, 'failed', { error: 'the model file went missing', finished: true });
    await wb.shutdown();
    serve = await startServe(['--db', db]);
    await createFetchClient({ baseUrl: serve.url, token: serve.token }).addModel({ path: cachedTestModel('qwen2') });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
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

  it("Runs: a failed run's buttons lie inside the window, and no column header is cut", async () => {
    await go('#/runs');
    const table = page.getByTestId('runs-table');
    const row = table.locator(`tr[data-run-id="${ids['demo-failed-with-a-long-model-name']}"]`);
    await row.waitFor({ timeout: 60_000 });
    const inside = async (): Promise<void> => {
      for (const button of await row.locator('button').all()) {
        const box = (await button.boundingBox())!;
        expect({ button: await button.textContent(), right: Math.round(box.x + box.width) <= 1280 }).toEqual({ button: await button.textContent(), right: true });
      }
    };
    await inside();
    expect(await cutTexts(table.locator('thead th'))).toEqual([]);
    // Dataset, Setup, Setting, Knowledge and Date read whole (a long model name is cut, with its title).
    for (const column of [4, 5, 6, 7, 11]) expect(await cutTexts(table.locator(`tbody td:nth-child(${column})`)), `column ${column}`).toEqual([]);
    // Asked to confirm, the row holds its widest buttons ("Delete run N", "keep").
    await row.getByRole('button', { name: `delete run ${ids['demo-failed-with-a-long-model-name']}` }).click();
    await row.getByRole('button', { name: 'keep' }).waitFor();
    await shot(page, 'runs');
    await inside();
    expect(await cutTexts(table.locator('thead th'))).toEqual([]);
    for (const column of [4, 5, 6, 7, 11]) expect(await cutTexts(table.locator(`tbody td:nth-child(${column})`)), `column ${column}`).toEqual([]);
    await row.getByRole('button', { name: 'keep' }).click();
  }, 120_000);

  it('Compare with a sample open: the run picker covers no row of the metric table', async () => {
    await go(`#/compare?baseline=${ids['7b-unconstrained']}&runs=${ids['7b-constrained']}&sample=2`);
    const metrics = page.getByTestId('compare-metrics');
    await metrics.waitFor({ timeout: 60_000 });
    await page.getByTestId('compare-sample').waitFor({ timeout: 60_000 });
    // Wherever the list is scrolled, what of the picker and the table's header shows does not overlap.
    for (const top of [0, 60, 160]) {
      await page.locator('main.compare section.list').evaluate((e, y) => (e.scrollTop = y), top);
      const picker = (await page.getByRole('group', { name: 'Runs to compare' }).boundingBox())!;
      const head = (await metrics.locator('thead').boundingBox())!;
      const overlap = Math.min(picker.y + picker.height, head.y + head.height) - Math.max(picker.y, head.y);
      expect({ top, overlap: overlap <= 0 }).toEqual({ top, overlap: true });
    }
    await page.locator('main.compare section.list').evaluate((e) => (e.scrollTop = 0));
    await shot(page, 'compare-sample-open');
  }, 120_000);

  it('Models: no header or cell of the library is cut', async () => {
    await go('#/models');
    const table = page.getByTestId('models-table');
    await table.locator('tbody tr').first().waitFor({ timeout: 60_000 });
    await shot(page, 'models');
    expect(await cutTexts(table.locator('thead th'))).toEqual([]);
    expect(await cutTexts(table.locator('tbody td'))).toEqual([]);
  }, 120_000);
});
