import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { hasChromium, launchChromium } from '../test/support/browser.js';
import { tempDir } from '../test/support/paths.js';
import { startServe } from '../test/support/serve.js';
import { fmt } from './stats.js';

const kb = (bytes: number): string => `${(bytes / 1000).toFixed(1)} kB`;
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

/**
 * The first page of the built renderer (`out/renderer`: run `npm run build` first), as a browser
 * meets it on `wapii serve`: the JavaScript it loads before the Datasets page shows (raw, as sent
 * on the wire, and gzipped at level 9, whatever the server sends) and the time to first
 * contentful paint, in Chromium, from a fresh browser context each time (nothing cached).
 */
export async function benchFirstLoad(runs = 5): Promise<void> {
  console.log('\n## First load of the Datasets page (Chromium on `wapii serve`)\n');
  if (!hasChromium) {
    console.log('skipped: no Chromium (set WAPII_CHROMIUM)');
    return;
  }
  const serve = await startServe(['--db', path.join(tempDir(), 'bench-first-load.db')]);
  const browser = await launchChromium();
  try {
    const rows: { fcp: number; scripts: number; raw: number; wire: number; gz: number; ready: number }[] = [];
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const scripts: { raw: number; wire: number; gz: number }[] = [];
      const pending: Promise<void>[] = [];
      page.on('response', (response) => {
        if (response.request().resourceType() !== 'script') return;
        pending.push(
          (async () => {
            const body = await response.body();
            const sizes = await response.request().sizes();
            scripts.push({ raw: body.length, wire: sizes.responseBodySize, gz: gzipSync(body, { level: 9 }).length });
          })(),
        );
      });
      const started = Date.now();
      await page.goto(serve.openUrl);
      await page.getByTestId('sample-count').waitFor();
      const ready = Date.now() - started;
      await Promise.all(pending);
      const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN);
      rows.push({ fcp, ready, scripts: scripts.length, raw: scripts.reduce((n, s) => n + s.raw, 0), wire: scripts.reduce((n, s) => n + s.wire, 0), gz: scripts.reduce((n, s) => n + s.gz, 0) });
      await context.close();
    }
    const last = rows[rows.length - 1]!;
    console.log('| scripts | JS raw | JS on the wire | JS gzipped (-9) | first contentful paint, median ms (runs) | samples shown, median ms |');
    console.log('|---:|---:|---:|---:|---:|---:|');
    console.log(`| ${last.scripts} | ${kb(last.raw)} | ${kb(last.wire)} | ${kb(last.gz)} | ${fmt(median(rows.map((r) => r.fcp)), 0)} (${rows.map((r) => Math.round(r.fcp)).join(', ')}) | ${fmt(median(rows.map((r) => r.ready)), 0)} |`);
  } finally {
    await browser.close();
    await serve.stop();
  }
}
