import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unwrap } from '../../main/api/result.js';
import { runCli } from '../../main/cli/program.js';
import { cachedTestModel } from '../../main/generation/index.js';
import { Store } from '../../main/store/index.js';
import { DEMO_DATASET, DEMO_SPECS, tempDir } from '../support/paths.js';
import { hasVocabBundle } from '../support/vocab.js';

describe.runIf(hasVocabBundle)('`wapii run --knowledge` with a random-weight test model', () => {
  it('queues one run per condition, records the condition, and puts its knowledge in every prompt', async () => {
    const db = path.join(tempDir(), 'wapii.db');
    let stdout = '';
    let stderr = '';
    const argv = ['--db', db, 'run', '--model', cachedTestModel('qwen2'), '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--limit', '2', '--max-tokens', '8', '--knowledge', 'none,endpoint+params', '--json'];
    const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
    expect(code, stderr).toBe(0);
    const reports = JSON.parse(stdout) as { run: number; knowledge?: string; statistics: { samples_total: number } }[];
    expect(reports.map((r) => [r.run, r.knowledge, r.statistics.samples_total])).toEqual([[1, undefined, 2], [2, 'endpoint+params', 2]]);
    const store = unwrap(Store.open(db));
    try {
      const [none, withEndpoint] = [store.getRun(1)!, store.getRun(2)!];
      expect((none.manifest as { knowledge: string }).knowledge).toBe('none');
      expect((withEndpoint.manifest as { knowledge: string }).knowledge).toBe('endpoint+params');
      expect(withEndpoint.settings['knowledge']).toBe('endpoint+params');
      expect(none.samples.map((s) => s.prompt?.includes('// Endpoint:'))).toEqual([false, false]);
      expect(withEndpoint.samples.map((s) => s.prompt?.match(/\/\/ Endpoint: .*/)?.[0])).toEqual(['// Endpoint: GET https://api.harbor.example/v2/me', '// Endpoint: GET https://api.harbor.example/v2/warehouses']);
    } finally {
      store.close();
    }
    // The comparison across conditions: correct (t), illegal (e), failure classes and the gain over none.
    let table = '';
    expect(await runCli(['--db', db, 'conditions', '1', '2', '--specs', DEMO_SPECS, '--json'], { stdout: (t) => (table += t), stderr: () => undefined })).toBe(0);
    const rows = JSON.parse(table) as { run: number; knowledge: string; outputs: number; correct: number; gain: number | null; failures: Record<string, number> }[];
    expect(rows.map((r) => [r.run, r.knowledge, r.outputs])).toEqual([[1, 'none', 2], [2, 'endpoint+params', 2]]);
    expect(rows[0]?.gain).toBe(0);
    expect(rows[1]?.gain).toBeCloseTo((rows[1]?.correct ?? 0) - (rows[0]?.correct ?? 0), 10);
    for (const [i, r] of rows.entries()) {
      const urlsIllegal = (reports[i]?.statistics as unknown as Record<string, number>)['urls_illegal'];
      expect(r.failures['hallucinated_endpoint']).toBe(urlsIllegal);
    }
  }, 300_000);
});
