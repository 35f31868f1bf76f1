import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SampleDraft } from '../../main/dataset/index.js';
import { createExecutor } from '../../main/execution/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { oracleProgram, type Quote, type CompletionMode } from '../../main/prompt/index.js';
import { scoreCodes } from '../../main/runner/index.js';
import { Store } from '../../main/store/index.js';
import { hasWapiiBench, REPO_ROOT, tempDir, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';
import { loadWapiiBench } from '../support/wapiibench.js';

const run = promisify(execFile);
const wapii = (...argv: string[]) => run(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), ...argv], { maxBuffer: 64 * 1024 * 1024 });

describe.runIf(hasWapiiBench)('ground-truth programs of all 395 WAPIIBench samples', () => {
  let samples: SampleDraft[];
  let specs: Map<string, ApiSpec>;
  // Two sandboxes on worker threads: the pool is exercised whatever the machine's core count.
  const executor = createExecutor({ workers: 2 });
  beforeAll(async () => {
    ({ samples, specs } = await loadWapiiBench());
  });
  afterAll(() => executor[Symbol.asyncDispose]());

  const combos = (['full', 'argument'] as CompletionMode[]).flatMap((setup) => (['single', 'double', 'backtick'] as Quote[]).map((quote) => [setup, quote] as const));
  it.each(combos)('score 395/395 correct, 0 illegal: %s completion, %s quotes', async (setup, quote) => {
    const codes = new Map(samples.map((s, i) => [i, oracleProgram(s, setup, quote, quote === 'double' ? 'await' : 'then').program]));
    const scores = await scoreCodes({ samples: samples.map((s, index) => ({ index, api: s.api, config: s.config })), codes, specs, executor });
    const wrong = scores.samples.filter((s) => s.evaluation.verdict.sample_verdict !== 'correct').map((s) => s.index);
    expect(wrong).toEqual([]);
    expect(scores.statistics).toMatchObject({ samples_total: 395, samples_correct: 395, samples_illegal: 0, samples_nonexecutable: 0, urls_correct: 395, methods_correct: 395 });
    expect(Object.keys(scores.perApi)).toEqual(['asana', 'google_calendar_v3', 'google_sheet_v4', 'slack']);
  });

  it('scores the same in reference compatibility mode', async () => {
    const codes = new Map(samples.map((s, i) => [i, oracleProgram(s, 'full', 'single').program]));
    const scores = await scoreCodes({ samples: samples.map((s, index) => ({ index, api: s.api, config: s.config })), codes, specs, executor, compat: 'reference' });
    expect(scores.statistics['samples_correct']).toBe(395);
  });

  it('through the real command: wapii oracle, then wapii score --json --save', async () => {
    const dir = tempDir();
    const codes = path.join(dir, 'codes');
    const db = path.join(dir, 'wapii.db');
    await wapii('oracle', '--dataset', WAPIIBENCH_ALL, '--setup', 'argument', '--quotes', 'backtick', '--out', codes);
    expect(fs.readdirSync(codes)).toHaveLength(395);
    // Reference-style file names work too.
    fs.renameSync(path.join(codes, '0007.js'), path.join(codes, '0007_code.js'));
    const scored = await wapii('--db', db, 'score', '--dataset', WAPIIBENCH_ALL, '--specs', WAPIIBENCH_SPECS, '--codes', codes, '--api', 'slack', '--json', '--save');
    const result = JSON.parse(scored.stdout) as { statistics: Record<string, unknown>; per_api: Record<string, unknown>; samples: Record<string, Record<string, unknown>>; run: number };
    expect(result.statistics).toMatchObject({ samples_total: 174, samples_correct: 174 });
    expect(Object.keys(result.per_api)).toEqual(['slack']);
    expect(result.samples['221']).toMatchObject({ sample_verdict: 'correct', error_verdict: null, url_verdict: 'correct', method_verdict: 'correct', endpoint_verdict: 'correct' });
    const opened = Store.open(db);
    if (!opened.ok) throw new Error(opened.error.message);
    const stored = opened.value.getRun(result.run);
    opened.value.close();
    expect(stored).toMatchObject({ kind: 'imported codes', settings: { compat: 'default', api: 'slack' } });
    expect(stored?.samples).toHaveLength(174);
    expect(stored?.samples[0]).toMatchObject({ index: 221, api: 'slack', verdict: { sample_verdict: 'correct' }, request: { method: 'post' } });
    expect(stored?.samples[0]?.code).toContain('axios.post(`https://slack.com/api/admin.apps.approve`,');
  });
});
