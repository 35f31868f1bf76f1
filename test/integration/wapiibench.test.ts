import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { hasWapiiBench, REPO_ROOT, tempDir, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';

const run = promisify(execFile);
const wapii = (...argv: string[]) => run(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), ...argv], { maxBuffer: 64 * 1024 * 1024 });

interface Flagged {
  index: number;
  api: string;
  findings: { rule: string; message: string }[];
}

describe.runIf(hasWapiiBench)('the WAPIIBench dataset through the real `wapii` command', () => {
  it('imports 395 samples for 4 APIs and flags the samples that disagree with their specs', async () => {
    const db = path.join(tempDir(), 'wapii.db');
    const imported = await wapii('--db', db, 'import', WAPIIBENCH_ALL, '--specs', WAPIIBENCH_SPECS, '--json');
    const summary = JSON.parse(imported.stdout) as { sampleCount: number; apis: { api: string; samples: number }[] };
    expect(summary.sampleCount).toBe(395);
    expect(summary.apis.map((a) => [a.api, a.samples])).toEqual([
      ['asana', 167],
      ['google_calendar_v3', 37],
      ['google_sheet_v4', 17],
      ['slack', 174],
    ]);

    const checked = await wapii('--db', db, 'check', '--json');
    const flagged = JSON.parse(checked.stdout) as Flagged[];
    const byIndex = new Map(flagged.map((f) => [f.index, f]));
    // The four samples WAPIIBench's own checks flagged and its authors kept after review.
    for (const index of [133, 162, 165, 271]) expect(byIndex.get(index)?.findings.some((f) => f.rule === 'recorded')).toBe(true);
    // Values that contradict the spec's types: numbers written as strings, arrays where a string is declared, ...
    expect(byIndex.get(15)?.findings.map((f) => f.message)).toEqual(['body argument `data.contribution_weight` = "0" must be of type number (PUT /goal_relationships/{goal_relationship_gid})']);
    expect(byIndex.get(62)?.findings.map((f) => f.message)).toEqual(['body argument `data.followers` = ["112233","445566"] must be of type string (POST /projects/{project_gid}/addFollowers)']);
    expect(byIndex.get(295)?.findings.map((f) => f.message)).toEqual(['body argument `ts` = "1678901234.567890" must be of type number (POST /chat.delete)']);
    expect(byIndex.get(323)?.findings.map((f) => f.rule)).toEqual(['argument', 'argument', 'required', 'required']);
    expect(flagged.map((f) => f.index)).toEqual([7, 15, 22, 26, 27, 55, 57, 62, 65, 109, 133, 158, 161, 162, 165, 271, 295, 323, 377, 384]);

    // Checking the files directly, without the database, finds the same.
    const direct = await wapii('check', '--dataset', WAPIIBENCH_ALL, '--specs', WAPIIBENCH_SPECS, '--json');
    expect((JSON.parse(direct.stdout) as Flagged[]).map(({ index, api, findings }) => ({ index, api, findings }))).toEqual(
      flagged.map(({ index, api, findings }) => ({ index, api, findings })),
    );
  });

  it('reads the per-API files too', async () => {
    const checked = await wapii('check', '--dataset', path.join(path.dirname(WAPIIBENCH_ALL), 'slack.json'), '--specs', WAPIIBENCH_SPECS, '--json');
    // Per-API files carry no `checks` notes, so only the spec findings remain (all.json positions 295, 323, 377, 384 minus 221).
    expect((JSON.parse(checked.stdout) as Flagged[]).map((f) => f.index)).toEqual([74, 102, 156, 163]);
  });
});
