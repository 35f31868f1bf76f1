import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { drawing, hasChromium, launchChromium } from '../support/browser.js';
import { ARTIFACTS, DEMO_DATASET, DEMO_SPECS, REPO_ROOT, tempDir } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';
import { openWorkbench, readDemo } from '../../main/service/index.js';

const built = fs.existsSync(path.join(REPO_ROOT, 'out', 'renderer', 'index.html'));
const SIZES = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
] as const;
const SCHEMES = ['light', 'dark'] as const;
/** Every screenshot of this file, named `<scheme>-<page>-<width>.png`. */
const SCREENS = path.join(ARTIFACTS, 'screens');
/**
 * WCAG's contrast minimum for text (AA: 4.5 for body text, 3 for large text and for graphics such as
 * chart axis labels); what reads badly in dark mode is held to the same bar as light.
 */
const MIN_TEXT_CONTRAST = 4.5;
const MIN_CHART_CONTRAST = 3;
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

type LowContrast = { text: string; where: string; fg: string; bg: string; ratio: number };

/**
 * Text under `scope` whose colour against the background it is drawn on (the nearest ancestors'
 * backgrounds, composited) falls below WCAG's minimum: HTML text by its `color`, chart text (SVG)
 * by its `fill` against the chart's background, at the lower bar for graphics.
 */
async function lowContrast(page: Page, scope: string): Promise<LowContrast[]> {
  return page.evaluate(
    ({ scope, text, chart }) => {
      type Rgba = [number, number, number, number];
      const parse = (c: string): Rgba | undefined => {
        const m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(c);
        return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : undefined;
      };
      const over = (top: Rgba, below: Rgba): Rgba => [0, 1, 2].map((i) => top[i]! * top[3] + below[i]! * (1 - top[3])).concat(1) as Rgba;
      const background = (e: Element): Rgba => {
        const layers: Rgba[] = [];
        for (let x: Element | null = e; x; x = x.parentElement) {
          const bg = parse(getComputedStyle(x).backgroundColor);
          if (bg && bg[3] > 0) layers.push(bg);
          if (bg && bg[3] === 1) break;
        }
        return layers.reverse().reduce<Rgba>((acc, l) => over(l, acc), [255, 255, 255, 1]);
      };
      const luminance = (c: Rgba): number => {
        const [r, g, b] = [0, 1, 2].map((i) => {
          const v = c[i]! / 255;
          return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const ratio = (a: Rgba, b: Rgba): number => {
        const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x);
        return (l1! + 0.05) / (l2! + 0.05);
      };
      const hex = (c: Rgba): string => `#${[0, 1, 2].map((i) => Math.round(c[i]!).toString(16).padStart(2, '0')).join('')}`;
      const found: { text: string; where: string; fg: string; bg: string; ratio: number }[] = [];
      for (const e of document.querySelectorAll(`${scope} *`)) {
        const own = [...e.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent ?? '').join('').trim();
        if (!own) continue;
        const r = e.getBoundingClientRect();
        const style = getComputedStyle(e);
        if (r.width === 0 || r.height === 0 || style.visibility === 'hidden' || Number(style.opacity) < 1) continue;
        const svg = e instanceof SVGElement;
        // A disabled control is meant to read faint.
        if (e.closest('button:disabled, [aria-disabled=true]')) continue;
        const fg = parse(svg ? style.fill : style.color);
        if (!fg) continue;
        const bg = background(svg ? e.closest('svg')! : e);
        const value = ratio(over(fg, bg), bg);
        if (value < (svg ? chart : text)) found.push({ text: own.slice(0, 40), where: `${e.tagName.toLowerCase()}.${[...e.classList].join('.')}`, fg: hex(fg), bg: hex(bg), ratio: Math.round(value * 100) / 100 });
      }
      return found;
    },
    { scope, text: MIN_TEXT_CONTRAST, chart: MIN_CHART_CONTRAST },
  );
}

/**
 * The result pages at the two common window sizes, in Chromium on a real `wapii serve` with the
 * demo runs: no table or chart on Results covers another, chart labels neither overlap nor vanish,
 * the Runs table fits the window, undefined rates read "–" with k/n, Compare marks the significant
 * deltas. Screenshots of Results, Runs, Compare and the inspector at both sizes go to test-results/.
 */
// A test that timed out waiting on the browser runs once more, in a new Chromium where its tab had
// stopped drawing (see `drawing` and beforeEach); a failed assertion is not retried.
describe.runIf(hasChromium)('result pages lay out at 1280×800 and 1920×1080', { retry: { count: 1, condition: /Timeout \d+ms exceeded|timed out in \d+ms/ } }, () => {
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
    // Beside the demo, a model with an unconstrained and a repair run and no constrained one (as a
    // hosted model has): its grid chart must not list "constrained" in its legend.
    const demo = readDemo(REPO_ROOT);
    const like = (setting: string) => demo.runs!.find((r) => r.meta.model.includes('7b') && r.meta.setting === (setting === 'repair' ? 'constrained' : setting))!;
    const legendRuns = (['unconstrained', 'repair'] as const).map((setting) => ({ name: `demo-legend-${setting}`, meta: { ...like(setting).meta, model: 'demo-legend-model', setting }, codes: new Map([...like(setting).codes].slice(0, 8)) }));
    const seeded = await wb.service.seedIfEmpty({ ...demo, runs: [...demo.runs!, ...legendRuns] });
    await wb.shutdown();
    expect(seeded.ok).toBe(true);
    serve = await startServe(['--db', db]);
    const runs = JSON.parse(wapii('runs', '--json').stdout) as { id: number; model: string | null; setting: string | null; dataset: string }[];
    for (const r of runs) if (r.model?.includes('7b') && r.dataset === 'demo') ids[r.setting!] = r.id;
    ids['legend-repair'] = runs.find((r) => r.model === 'demo-legend-model' && r.setting === 'repair')!.id;
    fs.mkdirSync(SCREENS, { recursive: true });
    await openBrowser();
  }, 400_000);
  /** A new Chromium on the workbench, its first page painted. */
  const openBrowser = async (): Promise<void> => {
    browser = await launchChromium();
    // A context of our own, so a second tab (a pasted link) shares its session.
    page = await (await browser.newContext()).newPage();
    await page.goto(serve.openUrl);
    // The first page (Datasets) has painted: a hash set before the app has started can be lost.
    await page.getByTestId('sample-count').waitFor({ timeout: 120_000 });
  };
  beforeEach(async () => {
    if (await drawing(page)) return;
    // Said on stderr, so a CI log shows the stall for what it is.
    console.error(`results-layout: Chromium drew no frame of the page in 10 s; a new Chromium takes over (${expect.getState().currentTestName ?? ''})`);
    await browser.close().catch(() => undefined);
    await openBrowser();
  }, 200_000);
  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const go = async (hash: string): Promise<void> => {
    await page.evaluate((h) => (window.location.hash = h), hash);
  };
  const shot = async (name: string, scheme: string, size: { width: number }): Promise<void> => {
    // The pointer off the page: a chart's hover tooltip left from a click would cover the bars.
    await page.mouse.move(0, 0);
    await page.screenshot({ path: path.join(SCREENS, `${scheme}-${name}-${size.width}.png`), fullPage: true });
  };
  /** Compare's run chooser keeps its height: no run's checkbox is drawn over the comparison below it (seven runs here). */
  const chooserClear = async (): Promise<void> => {
    const chooser = await page.locator('.compare [role=group] label').evaluateAll((ls) => ls.map((l) => l.getBoundingClientRect().bottom));
    const body = await page.locator('.compare-body').evaluate((b) => b.getBoundingClientRect().top);
    expect(chooser.length).toBeGreaterThan(4);
    for (const bottom of chooser) expect(bottom).toBeLessThanOrEqual(body);
  };
  /** The page's text reads against its background in this scheme (see lowContrast). */
  const readable = async (scope: string): Promise<void> => {
    // A navigation is a hash change: let the page's data and fonts settle before reading colours.
    await page.waitForLoadState('networkidle');
    expect(await lowContrast(page, scope)).toEqual([]);
  };

  for (const scheme of SCHEMES)
  for (const size of SIZES) {
    const at = `${scheme}, ${size.width}×${size.height}`;
    for (const which of ['multi', 'unconstrained'] as const)
    it(`Results of the ${which === 'multi' ? 'four-API run' : 'grid run'} (${at}): no table or chart covers another; labels neither overlap nor vanish; text reads`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize(size);
      await go(`#/runs/${ids[which]}?tab=results`);
      if (which === 'unconstrained') {
        await page.getByTestId('chart-grid').locator('.recharts-bar-rectangle').first().waitFor({ timeout: 120_000 });
        // The grid's gain carries its paired test.
        await expect.poll(() => page.getByTestId('chart-grid').textContent()).toMatch(/p (=|<) 0\.\d+/);
        // The legend names the conditions this grid has, and only those.
        expect(await page.getByTestId('chart-grid').locator('.recharts-legend-item-text').allTextContents()).toEqual(['unconstrained', 'constrained']);
      } else {
        await page.getByTestId('chart-per-api').locator('.recharts-bar-rectangle').first().waitFor({ timeout: 120_000 });
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
      expect(await page.getByTestId('headline-table').locator('td .rate').first().getAttribute('title')).toMatch(/^\d+\/\d+ · 95% interval \[\d+\.\d, \d+\.\d\]$/);
      // Shown as it is, never as a ± half-width that reads past 0 or 100.
      expect(await page.getByTestId('headline-table').locator('td .rate').first().textContent()).toMatch(/^\d+\.\d% \[\d+\.\d, \d+\.\d\]$/);
      await shot(`results-${which}`, scheme, size);
      // The charts sit below the fold of the Results scroll area: each is kept on its own too.
      for (const id of ['chart-per-api', ...(which === 'unconstrained' ? ['chart-grid'] : [])]) await page.getByTestId(id).screenshot({ path: path.join(SCREENS, `${scheme}-${id}-${which}-${size.width}.png`) });
      await readable('.results');
      // The first of these loads the run page and its chart chunk: over a minute on CI's loaded 2 cores.
    }, 180_000);

    it(`Runs (${at}): the table fits the window; an undefined rate reads "–" with k/n; text reads`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize(size);
      await go('#/runs');
      const table = page.getByTestId('runs-table');
      await table.locator(`tr[data-run-id="${ids['throws']}"]`).waitFor();
      const width = await table.evaluate((t) => t.getBoundingClientRect().right);
      expect(width).toBeLessThanOrEqual(size.width);
      const illegal = table.locator(`tr[data-run-id="${ids['throws']}"] td:nth-child(10) .rate`);
      expect(await illegal.textContent()).toBe('–');
      expect(await illegal.getAttribute('title')).toBe('undefined: 0/0, no sample in the denominator');
      await shot('runs', scheme, size);
      await readable('main');
    }, 180_000);

    it(`Compare (${at}): significant deltas marked with their discordant samples; text reads`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize(size);
      await go(`#/compare?baseline=${ids['unconstrained']}&runs=${ids['constrained']}`);
      const metrics = page.getByTestId('compare-metrics');
      await metrics.waitFor({ timeout: 60_000 });
      const correct = metrics.locator('tr', { has: page.locator('th[title="samples_correct_wrt_total"]') }).locator('td[data-significant]');
      expect(await correct.getAttribute('data-significant')).toBe('true');
      expect(await correct.textContent()).toMatch(/^\+28\.1 pt\*\(9 disc\. of 32\)$/);
      expect(await page.getByTestId('compare-alignment').textContent()).toMatch(/^Samples paired by sample id · #\d+: 32 shared\./);
      expect(await metrics.evaluate((t) => t.getBoundingClientRect().right)).toBeLessThanOrEqual(size.width);
      await chooserClear();
      await shot('compare', scheme, size);
      await readable('main');
      await page.locator('[data-testid=compare-rows] tbody tr').first().click();
      await page.getByTestId('compare-sample').locator('.side-by-side').waitFor({ timeout: 60_000 });
      await chooserClear();
      await shot('compare-sample', scheme, size);
      await readable('main');
    }, 180_000);

    it(`the inspector (${at}): text reads`, async () => {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize(size);
      await go(`#/runs/${ids['constrained']}?tab=samples&sample=3`);
      await page.locator('.detail').first().waitFor({ timeout: 60_000 });
      await page.locator('.detail .code-view').first().waitFor({ timeout: 60_000 });
      await shot('inspector', scheme, size);
      await readable('main');
    }, 180_000);
  }

  it("Compare's open sample is in the URL: a reload and a pasted link open it; back closes it, forward reopens it", async () => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(SIZES[0]);
    const compare = `#/compare?baseline=${ids['unconstrained']}&runs=${ids['constrained']}`;
    await go(compare);
    const rows = page.locator('[data-testid=compare-rows] tbody tr');
    await rows.nth(2).waitFor({ timeout: 60_000 });
    const index = await rows.nth(2).getAttribute('data-index');
    await rows.nth(2).click();
    const heading = page.getByTestId('compare-sample').locator('h2');
    await expect.poll(() => heading.textContent()).toBe(`#${index}`);
    await expect.poll(() => new URL(page.url()).hash).toBe(`${compare}&sample=${index}`);
    const link = page.url();
    await page.reload();
    await expect.poll(() => heading.textContent(), { timeout: 60_000 }).toBe(`#${index}`);
    expect(await page.locator(`[data-testid=compare-rows] tr[data-index="${index}"]`).getAttribute('class')).toContain('selected');
    // A link pasted into another tab.
    const other = await page.context().newPage();
    try {
      await other.goto(link);
      await expect.poll(() => other.getByTestId('compare-sample').locator('h2').textContent(), { timeout: 60_000 }).toBe(`#${index}`);
    } finally {
      await other.close();
    }
    // Back closes the sample the click opened; forward opens it again.
    await page.goBack();
    await expect.poll(() => page.getByTestId('compare-sample').count()).toBe(0);
    expect(new URL(page.url()).hash).toBe(compare);
    await page.goForward();
    await expect.poll(() => heading.textContent(), { timeout: 30_000 }).toBe(`#${index}`);
    // j moves to the next sample in place (no history entry per step); Escape closes, back reopens.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('j');
    const next = await rows.nth(3).getAttribute('data-index');
    await expect.poll(() => heading.textContent()).toBe(`#${next}`);
    await expect.poll(() => new URL(page.url()).hash).toBe(`${compare}&sample=${next}`);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('compare-sample').count()).toBe(0);
    await page.goBack();
    await expect.poll(() => heading.textContent(), { timeout: 30_000 }).toBe(`#${next}`);
  }, 180_000);

  it('the Args column says what its badges count: a header tooltip, and each row in words ("3 of 4 expected args correct")', async () => {
    await page.setViewportSize(SIZES[0]);
    await go(`#/runs/${ids['unconstrained']}?tab=samples`);
    const table = page.getByTestId('run-samples');
    await table.locator('.vrow[data-index]').first().waitFor({ timeout: 60_000 });
    expect(await table.getByRole('columnheader', { name: 'Args' }).getAttribute('title')).toMatch(/^Arguments of the captured request, counted by verdict: correct \(green\), incorrect value \(orange\), missing \(purple\)/);
    const titles = (await table.locator('.vrow[data-index] .arg-counts[title]').evaluateAll((cells) => cells.map((c) => c.getAttribute('title')))) as string[];
    expect(titles.length).toBeGreaterThan(0);
    for (const t of titles) expect(t).toMatch(/^(\d+ of \d+ expected args? correct|no args expected)( · \d+ (incorrect value|missing|unnecessary \(not expected\)|illegal \(not expected\)))*$/);
    // The words agree with the chips: "k of n" is the correct chip over correct + incorrect value + missing.
    const first = table.locator('.vrow[data-index]', { has: page.locator('.arg-counts[title]') }).first();
    const chips = Object.fromEntries((await first.locator('.count-chip').evaluateAll((cs) => cs.map((c) => [c.getAttribute('data-verdict'), Number(c.textContent)]))) as [string, number][]);
    const expected = (chips['correct'] ?? 0) + (chips['incorrect_value'] ?? 0) + (chips['missing'] ?? 0);
    expect(await first.locator('.arg-counts').getAttribute('title')).toMatch(new RegExp(`^${chips['correct'] ?? 0} of ${expected} expected arg`));
  }, 180_000);

  // Issue 26's other "say what they mean" item, on the demo this server already holds.
  it("Coverage's headings say what is counted: endpoints with a sample per API, and samples per endpoint", async () => {
    await page.setViewportSize(SIZES[0]);
    await go('#/datasets?dataset=1');
    await page.getByRole('button', { name: 'Coverage and synthesis' }).click();
    const panel = page.getByTestId('coverage-panel');
    await expect.poll(() => panel.getByTestId('coverage-summary').first().textContent(), { timeout: 60_000 }).toMatch(/^\d+ of \d+ endpoints have a sample/);
    expect(await panel.locator('h3', { hasText: 'Samples per endpoint of harbor' }).count()).toBe(1);
    const head = panel.getByTestId('coverage-table').locator('thead th');
    expect(await head.allTextContents()).toEqual(['', 'endpoint', 'samples']);
    expect(await head.nth(2).getAttribute('title')).toBe('samples of this dataset whose expected request resolves to this endpoint');
    await shot('coverage', 'light', SIZES[0]);
  }, 180_000);

  it('the grid chart of a model with unconstrained and repair runs and no constrained one lists only those two', async () => {
    await page.setViewportSize(SIZES[0]);
    await go(`#/runs/${ids['legend-repair']}?tab=results`);
    const grid = page.getByTestId('chart-grid');
    await grid.locator('.recharts-bar-rectangle').first().waitFor({ timeout: 60_000 });
    expect(await grid.locator('.recharts-legend-item-text').allTextContents()).toEqual(['unconstrained', 'repair']);
    expect(await grid.locator('figcaption').textContent()).toMatch(/^Unconstrained vs repair, with 95% intervals/);
    await page.mouse.move(0, 0);
    await grid.screenshot({ path: path.join(SCREENS, 'light-chart-grid-repair-only-1280.png') });
  }, 180_000);
});
