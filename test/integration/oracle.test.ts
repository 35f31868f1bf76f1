import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SampleDraft } from '../../main/dataset/index.js';
import { createExecutor } from '../../main/execution/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { fetchOracleProgram, oracleProgram, type Quote, type CompletionMode } from '../../main/prompt/index.js';
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

  // Issue 25 item 5: the same ground truth written with the global fetch (query in the URL, body as JSON text, form or FormData).
  const fetchCombos = (['full', 'argument'] as CompletionMode[]).flatMap((mode) => (['single', 'backtick'] as Quote[]).map((quote) => [mode, quote] as const));
  it.each(fetchCombos)('fetch form: 395/395 correct, 0 illegal: %s completion, %s quotes', async (mode, quote) => {
    const codes = new Map(samples.map((s, i) => [i, fetchOracleProgram(s, mode, quote, quote === 'backtick' ? 'await' : 'then').program]));
    const scores = await scoreCodes({ samples: samples.map((s, index) => ({ index, api: s.api, config: s.config, task: s.task })), codes, specs, executor, client: 'fetch' });
    const wrong = scores.samples.filter((s) => s.evaluation.verdict.sample_verdict !== 'correct').map((s) => `${s.index}: ${JSON.stringify(s.evaluation.verdict.arguments).slice(0, 200)}`);
    expect(wrong).toEqual([]);
    expect(scores.statistics).toMatchObject({ samples_total: 395, samples_correct: 395, samples_illegal: 0, samples_nonexecutable: 0 });
    // Every one was sent by fetch, with fetch's implicit Accept.
    expect(scores.samples.every((s) => s.evaluation.request?.client === 'fetch' && s.evaluation.request.headers['accept'] === '*/*')).toBe(true);
  });

  it('fetch form through the real command: wapii oracle --client fetch, then wapii score --client fetch', async () => {
    const dir = tempDir();
    const codes = path.join(dir, 'codes');
    await wapii('oracle', '--dataset', WAPIIBENCH_ALL, '--setup', 'full', '--client', 'fetch', '--out', codes);
    expect(fs.readFileSync(path.join(codes, '0000.js'), 'utf8')).toContain('fetch(');
    const scored = await wapii('score', '--dataset', WAPIIBENCH_ALL, '--specs', WAPIIBENCH_SPECS, '--codes', codes, '--api', 'google_sheet_v4', '--client', 'fetch', '--json');
    expect((JSON.parse(scored.stdout) as { statistics: Record<string, unknown> }).statistics).toMatchObject({ samples_total: 17, samples_correct: 17 });
  }, 240_000);

  it('scores the same in reference compatibility mode', async () => {
    const codes = new Map(samples.map((s, i) => [i, oracleProgram(s, 'full', 'single').program]));
    const scores = await scoreCodes({ samples: samples.map((s, index) => ({ index, api: s.api, config: s.config })), codes, specs, executor, compat: 'reference' });
    expect(scores.statistics['samples_correct']).toBe(395);
  }, 240_000);

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
  }, 240_000);
});
