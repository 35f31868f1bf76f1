import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/browser.js';
import { ARTIFACTS, DEMO_DATASET, DEMO_SPECS, REPO_ROOT, tempDir } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';
import { openWorkbench, readDemo } from '../../main/service/index.js';

const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));
const SIZES = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
] as const;
type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box): number => Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));

/** Every table and chart on the Results tab, with its box; and each chart's axis labels. */
async function resultBoxes(page: Page): Promise<{ boxes: { id: string; box: Box }[]; labels: { chart: string; text: string; box: Box }[] }> {
  return page.evaluate(() => {
    const rect = (e: Element): Box => {
      const r = e.getBoundingClientRect();
      return { x: r.x, y: r.y, width: r.width, height: r.height };
    };
    const boxes = [...document.querySelectorAll('.results [data-testid$="-table"], .results figure.chart')].map((e) => ({ id: e.getAttribute('data-testid') ?? '?', box: rect(e) }));
    const labels = [...document.querySelectorAll('.results figure.chart')].flatMap((chart) =>
      [...chart.querySelectorAll('.recharts-cartesian-axis-tick text, .recharts-label-list text')].map((t) => ({ chart: chart.getAttribute('data-testid') ?? '?', text: t.textContent ?? '', box: rect(t) })),
    );
    return { boxes, labels };
  });
}

/**
 * The result pages at the two common window sizes, in Chromium on a real `wapii serve` with the
 * demo runs: no table or chart on Results covers another, chart labels neither overlap nor vanish,
 * the Runs table fits the window, undefined rates read "–" with k/n, Compare marks the significant
 * deltas. Screenshots of Results, Runs, Compare and the inspector at both sizes go to test-results/.
 */
describe.runIf(hasChromium)('result pages lay out at 1280×800 and 1920×1080', () => {
  const dir = tempDir();
  const db = path.join(dir, 'layout.db');
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    if (!built) throw new Error('the renderer is not built: `npm test` builds it first (npm run build)');
    // A run where nothing executes: its illegal (e) rate has no denominator.
    const codes = path.join(dir, 'codes');
    fs.mkdirSync(codes);
    for (const i of [0, 1, 2]) fs.writeFileSync(path.join(codes, `000${i}.js`), 'throw new Error("no request")\n');
    const wapii = (...args: string[]) => spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), '--db', db, ...args], { encoding: 'utf8' });
    const scored = wapii('score', '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--codes', codes, '--save', '--json');
    expect(scored.status, scored.stderr).toBe(0);
    ids['throws'] = (JSON.parse(scored.stdout) as { run: number }).run;
    // A run over four APIs (WAPIIBench's count, with its names): the headline table has five columns, where it used to spill over the next cell.
    const multi = path.join(dir, 'multi');
    fs.mkdirSync(path.join(multi, 'specs'), { recursive: true });
    fs.mkdirSync(path.join(multi, 'codes'));
    const demoSamples = JSON.parse(fs.readFileSync(DEMO_DATASET, 'utf8')) as { api: string }[];
    const apis = ['asana', 'google_calendar_v3', 'google_sheet_v4', 'slack'];
    const harbor = fs.readFileSync(path.join(DEMO_SPECS, 'harbor.yaml'), 'utf8');
    const demoCodes = path.join(REPO_ROOT, 'datasets', 'demo-runs', 'demo-7b-unconstrained');
    const taken = demoSamples.slice(0, 12);
    apis.forEach((api, a) => {
      fs.writeFileSync(path.join(multi, 'specs', `${api}.yaml`), harbor);
      taken.forEach((_, i) => fs.copyFileSync(path.join(demoCodes, `${String(i).padStart(4, '0')}_code.js`), path.join(multi, 'codes', `${String(a * taken.length + i).padStart(4, '0')}.js`)));
    });
    fs.writeFileSync(path.join(multi, 'dataset.json'), JSON.stringify(apis.flatMap((api) => taken.map((s) => ({ ...s, api })))));
    const multiRun = wapii('score', '--dataset', path.join(multi, 'dataset.json'), '--specs', path.join(multi, 'specs'), '--codes', path.join(multi, 'codes'), '--save', '--json');
    expect(multiRun.status, multiRun.stderr).toBe(0);
    ids['multi'] = (JSON.parse(multiRun.stdout) as { run: number }).run;
    // The demo is seeded here, so `serve` starts without scoring it (a loaded machine took over 30 s).
    const wb = openWorkbench({ db });
    const seeded = await wb.service.seedIfEmpty(readDemo(REPO_ROOT));
    await wb.shutdown();
    expect(seeded.ok).toBe(true);
    serve = await startServe(['--db', db]);
    const runs = JSON.parse(wapii('runs', '--json').stdout) as { id: number; model: string | null; setting: string | null }[];
    for (const r of runs) if (r.model?.includes('7b')) ids[r.setting!] = r.id;
    browser = await launchChromium();
    page = await browser.newPage();
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await page.goto(serve.openUrl);
  }, 400_000);
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const go = async (hash: string): Promise<void> => {
    await page.evaluate((h) => (window.location.hash = h), hash);
  };
  const shot = (name: string, size: { width: number }): Promise<Buffer> => page.screenshot({ path: path.join(ARTIFACTS, `e2e-layout-${name}-${size.width}.png`), fullPage: true });

  for (const size of SIZES) {
    for (const which of ['multi', 'unconstrained'] as const)
    it(`Results of the ${which === 'multi' ? 'four-API run' : 'grid run'} at ${size.width}×${size.height}: no table or chart covers another; labels neither overlap nor vanish`, async () => {
      await page.setViewportSize(size);
      await go(`#/runs/${ids[which]}?tab=results`);
      if (which === 'unconstrained') {
        await page.getByTestId('chart-grid').locator('.recharts-bar-rectangle').first().waitFor({ timeout: 60_000 });
        // The grid's gain carries its paired test.
        await expect.poll(() => page.getByTestId('chart-grid').textContent()).toMatch(/p (=|<) 0\.\d+/);
      } else {
        await page.getByTestId('chart-per-api').locator('.recharts-bar-rectangle').first().waitFor({ timeout: 60_000 });
        expect(await page.getByTestId('headline-table').locator('thead th').count()).toBe(6);
      }
      const { boxes, labels } = await resultBoxes(page);
      expect(boxes.map((b) => b.id).sort()).toEqual(expect.arrayContaining([...(which === 'unconstrained' ? ['chart-grid'] : []), 'chart-per-api', 'chart-verdicts', 'headline-table', 'location-table']));
      for (let i = 0; i < boxes.length; i++)
        for (let j = i + 1; j < boxes.length; j++) expect(overlap(boxes[i]!.box, boxes[j]!.box), `${boxes[i]!.id} covers ${boxes[j]!.id}`).toBe(0);
      // Nothing wider than the window: each box lies inside the viewport's width.
      for (const b of boxes) expect(b.box.x + b.box.width, b.id).toBeLessThanOrEqual(size.width);
      for (const chart of new Set(labels.map((l) => l.chart))) {
        const mine = labels.filter((l) => l.chart === chart && l.text.trim() !== '');
        expect(mine.length, `${chart} has labels`).toBeGreaterThan(0);
        for (const l of mine) expect(l.box.width * l.box.height, `${chart} label "${l.text}" is drawn`).toBeGreaterThan(0);
        for (let i = 0; i < mine.length; i++)
          for (let j = i + 1; j < mine.length; j++) expect(overlap(mine[i]!.box, mine[j]!.box), `${chart}: "${mine[i]!.text}" overlaps "${mine[j]!.text}"`).toBeLessThan(1);
      }
      // Rates carry their interval on hover.
      expect(await page.getByTestId('headline-table').locator('td .rate').first().getAttribute('title')).toMatch(/^\d+\/\d+ · 95% interval \d+\.\d–\d+\.\d%$/);
      await shot(`results-${which}`, size);
      // The charts sit below the fold of the Results scroll area: each is kept on its own too.
      for (const id of ['chart-per-api', ...(which === 'unconstrained' ? ['chart-grid'] : [])]) await page.getByTestId(id).screenshot({ path: path.join(ARTIFACTS, `e2e-layout-${id}-${which}-${size.width}.png`) });
      // The first of these loads the run page and its chart chunk: over a minute on CI's loaded 2 cores.
    }, 180_000);

    it(`Runs at ${size.width}×${size.height}: the table fits the window; an undefined rate reads "–" with k/n`, async () => {
      await page.setViewportSize(size);
      await go('#/runs');
      const table = page.getByTestId('runs-table');
      await table.locator(`tr[data-run-id="${ids['throws']}"]`).waitFor();
      const width = await table.evaluate((t) => t.getBoundingClientRect().right);
      expect(width).toBeLessThanOrEqual(size.width);
      const illegal = table.locator(`tr[data-run-id="${ids['throws']}"] td:nth-child(10) .rate`);
      expect(await illegal.textContent()).toBe('–');
      expect(await illegal.getAttribute('title')).toBe('undefined: 0/0, no sample in the denominator');
      await shot('runs', size);
    });

    it(`Compare at ${size.width}×${size.height}: significant deltas marked with their discordant samples`, async () => {
      await page.setViewportSize(size);
      await go(`#/compare?baseline=${ids['unconstrained']}&runs=${ids['constrained']}`);
      const metrics = page.getByTestId('compare-metrics');
      await metrics.waitFor();
      const correct = metrics.locator('tr', { has: page.locator('th[title="samples_correct_wrt_total"]') }).locator('td[data-significant]');
      expect(await correct.getAttribute('data-significant')).toBe('true');
      expect(await correct.textContent()).toMatch(/^\+28\.1 pt\*\(9 disc\.\)$/);
      expect(await page.getByTestId('compare-alignment').textContent()).toMatch(/^Samples paired by sample id · #\d+: 32 shared\./);
      expect(await metrics.evaluate((t) => t.getBoundingClientRect().right)).toBeLessThanOrEqual(size.width);
      await shot('compare', size);
      await page.locator('[data-testid=compare-rows] tbody tr').first().click();
      await page.getByTestId('compare-sample').waitFor();
      await shot('compare-sample', size);
    });

    it(`the inspector at ${size.width}×${size.height}`, async () => {
      await page.setViewportSize(size);
      await go(`#/runs/${ids['constrained']}?tab=samples&sample=3`);
      await page.locator('.detail').first().waitFor();
      await page.waitForTimeout(300);
      await shot('inspector', size);
    });
  }
});
