import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { hasWapiiBench, REPO_ROOT, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';

const run = promisify(execFile);

interface RecallJson {
  recall: Record<'1' | '5' | '10', number>;
  per_api: Record<string, Record<'1' | '5' | '10' | 'samples', number>>;
  samples: { index: number; api: string; rank: number | null }[];
}

describe.runIf(hasWapiiBench)('`wapii retrieve` on the 395 WAPIIBench samples', () => {
  it('meets the recall targets (recall@1 >= 0.85, recall@5 >= 0.97) from the task text alone', async () => {
    const { stdout } = await run(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), 'retrieve', '--dataset', WAPIIBENCH_ALL, '--specs', WAPIIBENCH_SPECS, '--json'], { maxBuffer: 16 * 1024 * 1024 });
    const report = JSON.parse(stdout) as RecallJson;
    expect(report.samples).toHaveLength(395);
    expect(report.recall['1']).toBeGreaterThanOrEqual(0.85);
    expect(report.recall['5']).toBeGreaterThanOrEqual(0.97);
    expect(Object.keys(report.per_api)).toEqual(['asana', 'google_calendar_v3', 'google_sheet_v4', 'slack']);
    // recall@k is the share of samples whose rank is at most k.
    const at5 = report.samples.filter((s) => s.rank !== null && s.rank <= 5).length / 395;
    expect(report.recall['5']).toBeCloseTo(at5, 10);
    expect(report.per_api['slack']?.samples).toBe(174);
  });
});
