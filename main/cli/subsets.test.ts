import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_DATASET, DEMO_SPECS, tempDir } from '../../test/support/paths.js';
import { failedWithoutSolvedWith, type Verdict } from '../scoring/index.js';
import { cli } from '../../test/support/cli.js';

const verdict = (sample_verdict: Verdict['sample_verdict']): Verdict => ({ sample_verdict, error_verdict: null, url_verdict: null, method_verdict: null, endpoint_verdict: null, arguments: {} });

describe('model-conditional subsets', () => {
  it('keeps samples with no correct output without and a correct one with; several outputs per sample count as any', () => {
    const without = { '0': verdict('wrong'), '1': verdict('correct'), '2': [verdict('wrong'), verdict('illegal')], '3': [verdict('wrong'), verdict('correct')], '4': verdict('wrong') };
    const withKnowledge = { '0': verdict('correct'), '1': verdict('correct'), '2': [verdict('wrong'), verdict('correct')], '3': verdict('correct'), '4': verdict('wrong') };
    expect(failedWithoutSolvedWith(without, withKnowledge)).toEqual([0, 2]);
  });

  it('`wapii subset` derives them from two stored runs, with provenance, as a dataset that imports', async () => {
    const dir = tempDir('wapii-subset-');
    const db = path.join(dir, 'w.db');
    const oracle = path.join(dir, 'oracle');
    expect((await cli('oracle', '--dataset', DEMO_DATASET, '--setup', 'full', '--out', oracle)).code).toBe(0);
    // Run A solves the even samples only; run B all but sample 3.
    const codes = (name: string, broken: (i: number) => boolean): string => {
      const out = path.join(dir, name);
      fs.mkdirSync(out);
      for (const file of fs.readdirSync(oracle)) {
        const i = Number(file.slice(0, 4));
        fs.writeFileSync(path.join(out, file), broken(i) ? "const axios = require('axios');\nfetch('https://example.com');\n" : fs.readFileSync(path.join(oracle, file), 'utf8'));
      }
      return out;
    };
    const save = async (codeDir: string): Promise<number> => {
      const scored = await cli('--db', db, 'score', '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--codes', codeDir, '--save', '--json');
      expect(scored.code, scored.stderr).toBe(0);
      return (JSON.parse(scored.stdout) as { run: number }).run;
    };
    const a = await save(codes('a', (i) => i % 2 === 1));
    const b = await save(codes('b', (i) => i === 3));
    const out = path.join(dir, 'gate.json');
    const derived = await cli('--db', db, 'subset', '--without', String(a), '--with', String(b), '--out', out, '--json');
    expect(derived.code, derived.stderr).toBe(0);
    const provenance = JSON.parse(derived.stdout) as { source: { dataset: string; samples: number[] }; runs: { without: { id: number }; with: { id: number } } };
    const expected = Array.from({ length: 32 }, (_, i) => i).filter((i) => i % 2 === 1 && i !== 3);
    expect(provenance.source.samples).toEqual(expected);
    expect(provenance.source.dataset).toBe(path.resolve(DEMO_DATASET));
    expect([provenance.runs.without.id, provenance.runs.with.id]).toEqual([a, b]);
    const demo = JSON.parse(fs.readFileSync(DEMO_DATASET, 'utf8')) as { task: string }[];
    expect((JSON.parse(fs.readFileSync(out, 'utf8')) as { task: string }[]).map((s) => s.task)).toEqual(expected.map((i) => demo[i]!.task));
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'gate.provenance.json'), 'utf8'))).toEqual(provenance);
    const imported = await cli('--db', db, 'import', out, '--specs', DEMO_SPECS, '--json');
    expect((JSON.parse(imported.stdout) as { sampleCount: number }).sampleCount).toBe(expected.length);
    const missing = await cli('--db', db, 'subset', '--without', String(a), '--with', '99', '--out', out);
    expect(missing.stderr).toBe(`wapii: no run "99" in ${db} (have: ${a}, ${b})\n`);
  }, 120_000);
});
