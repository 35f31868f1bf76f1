import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { startCompletionStandIn } from '../support/completionStandIn.js';
import { hasWapiiBench, tempDir, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';

/** `--json`: verdicts by sample index, and each API's statistics with its sample count. */
interface Report {
  samples: Record<string, unknown>;
  per_api: Record<string, { samples_total: number }>;
}
const countBy = (r: Report): Record<string, number> => Object.fromEntries(Object.entries(r.per_api).map(([api, s]) => [api, s.samples_total]));
const indices = (r: Report): string[] => Object.keys(r.samples);

/**
 * `wapii run --sample N --sample-seed S --stratify api` on WAPIIBench's 395 samples (slack 174,
 * asana 167, google_calendar_v3 37, google_sheet_v4 17), on the dataset file and on the stored
 * dataset, against a local completion stand-in (what it answers does not matter here).
 */
describe.runIf(hasWapiiBench)('wapii run takes a seeded, per-API stratified random sample', () => {
  const dir = tempDir();
  const db = path.join(dir, 'sample.db');
  let standIn: Awaited<ReturnType<typeof startCompletionStandIn>>;
  let fileDraw: string[] = [];
  beforeAll(async () => {
    standIn = await startCompletionStandIn(() => ({ text: "get('/nothing');" }));
  });
  afterAll(async () => {
    await standIn?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const run = async (...args: string[]): Promise<Report> => {
    const out = await cli('--db', db, 'run', '--remote', standIn.url, '--max-tokens', '8', '--json', ...args);
    expect(out.code, out.stderr).toBe(0);
    return JSON.parse(out.stdout) as Report;
  };

  it('on the dataset file: 20 of 395 by largest remainder, the same samples for the same seed', async () => {
    const file = ['--dataset', WAPIIBENCH_ALL, '--specs', WAPIIBENCH_SPECS];
    const a = await run(...file, '--sample', '20', '--sample-seed', '3', '--stratify', 'api');
    // 8.81, 8.46, 1.87, 0.86: floors 8, 8, 1, 0; the three left go to sheet (.86), calendar (.87) and slack (.81).
    fileDraw = indices(a);
    expect(countBy(a)).toEqual({ slack: 9, asana: 8, google_calendar_v3: 2, google_sheet_v4: 1 });
    const b = await run(...file, '--sample', '20', '--sample-seed', '3', '--stratify', 'api');
    expect(indices(b)).toEqual(indices(a));
    const other = await run(...file, '--sample', '20', '--sample-seed', '4', '--stratify', 'api');
    expect(indices(other)).not.toEqual(indices(a));
  }, 600_000);

  it('on the stored dataset: the same draw through the service, and bad options refused in one line', async () => {
    const imported = await cli('--db', db, 'import', WAPIIBENCH_ALL, '--specs', WAPIIBENCH_SPECS, '--name', 'all');
    expect(imported.code, imported.stderr).toBe(0);
    const stored = await run('--dataset', 'all', '--sample', '20', '--sample-seed', '3', '--stratify', 'api');
    expect(countBy(stored)).toEqual({ slack: 9, asana: 8, google_calendar_v3: 2, google_sheet_v4: 1 });
    // The same samples as from the file: both draw from the dataset in its order.
    expect(indices(stored)).toEqual(fileDraw);
    const lone = await cli('--db', db, 'run', '--remote', standIn.url, '--dataset', 'all', '--stratify', 'api');
    expect(lone.code).not.toBe(0);
    expect(lone.stderr.trim().split('\n').at(-1)).toMatch(/--sample-seed and --stratify go with --sample <n>/);
    const bad = await cli('--db', db, 'run', '--remote', standIn.url, '--dataset', 'all', '--sample', '5', '--stratify', 'endpoint');
    expect(bad.stderr.trim().split('\n').at(-1)).toMatch(/--stratify takes api or none, not "endpoint"/);
  }, 600_000);
});
