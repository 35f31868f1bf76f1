import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DATASET, DEMO_SPECS, tempDir } from '../../test/support/paths.js';
import { runCli } from '../cli/program.js';
import { FAILURE_CLASSES, type FailureClass } from './taxonomy.js';
import type { Verdict } from './verdicts.js';

const demo = JSON.parse(fs.readFileSync(DEMO_DATASET, 'utf8')) as { api: string; task: string; config: unknown }[];
const BASE = 'https://api.harbor.example/v2';
const AUTH = `headers: { Authorization: 'Bearer <token>' }`;
const SHIPMENT = `origin_warehouse_id: 'wh_204', destination: { name: 'Ana Ruiz', street: 'Calle Mayor 5', city: 'Madrid', postal_code: '28013', country: 'ES' }`;

/** One program per class, each written to show it (and only it) against a demo sample; one shows several at once. */
/** The demo's tasks of several requests (scoring.md §7): a case with `multi` takes its sample from them. */
const demoMulti = JSON.parse(fs.readFileSync(path.join(path.dirname(DEMO_DATASET), 'demo-multistep.json'), 'utf8')) as unknown[];
const CASES: readonly { readonly shows: readonly FailureClass[]; readonly sample: number; readonly code: string; readonly multi?: true }[] = [
  { shows: [], sample: 1, code: `axios.get('${BASE}/warehouses', { params: { region: 'eu', limit: 10 }, ${AUTH} });` },
  { shows: ['hallucinated_endpoint'], sample: 0, code: `axios.get('${BASE}/account', { ${AUTH} });` },
  { shows: ['wrong_endpoint'], sample: 0, code: `axios.get('${BASE}/warehouses', { ${AUTH} });` },
  { shows: ['illegal_method'], sample: 0, code: `axios.delete('${BASE}/me', { ${AUTH} });` },
  { shows: ['wrong_method'], sample: 4, code: `axios.delete('${BASE}/warehouses/wh_204', { headers: { 'X-API-Key': '<api-key>' } });` },
  { shows: ['missing_required_argument'], sample: 13, code: `axios.post('${BASE}/shipments', { ${SHIPMENT}, service_level: 'express' }, { ${AUTH} });` },
  { shows: ['missing_argument'], sample: 1, code: `axios.get('${BASE}/warehouses', { params: { region: 'eu' }, ${AUTH} });` },
  { shows: ['illegal_argument'], sample: 1, code: `axios.get('${BASE}/warehouses', { params: { region: 'eu', limit: 10, country: 'DE' }, ${AUTH} });` },
  { shows: ['unnecessary_argument'], sample: 1, code: `axios.get('${BASE}/warehouses', { params: { region: 'eu', limit: 10, cursor: 'c_1' }, ${AUTH} });` },
  { shows: ['wrong_value_type'], sample: 1, code: `axios.get('${BASE}/warehouses', { params: { region: 'eu', limit: '10' }, ${AUTH} });` },
  { shows: ['wrong_value'], sample: 1, code: `axios.get('${BASE}/warehouses', { params: { region: 'us', limit: 10 }, ${AUTH} });` },
  { shows: ['syntax_error'], sample: 0, code: `axios.get('${BASE}/me', { headers: { Authorization 'Bearer <token>' } });` },
  { shows: ['runtime_error'], sample: 0, code: `const settings = undefined;\naxios.get(settings.url, { ${AUTH} });` },
  { shows: ['incomplete'], sample: 0, code: `axios.get('${BASE}/me', { ${AUTH} }` },
  { shows: ['no_request'], sample: 0, code: `fetch('${BASE}/me');` },
  { shows: ['timeout'], sample: 0, code: `while (true) {}\naxios.get('${BASE}/me', { ${AUTH} });` },
  { shows: ['illegal_argument', 'wrong_value_type', 'wrong_value'], sample: 1, code: `axios.get('${BASE}/warehouses', { params: { region: 'us', limit: '10', country: 'DE' }, ${AUTH} });` },
  { shows: ['unsatisfiable'], sample: 0, code: `axios.get('${BASE}/me', {\n//unsatisfiable` },
  // The lookup skipped: the shipment's ID guessed.
  { shows: ['skipped_step'], sample: 1, multi: true, code: `(async () => {\n  await axios.post('${BASE}/shipments/latest/cancel', { reason: 'customer_request' }, { ${AUTH} });\n})();` },
  // Every step right, and a read of a path the API does not have: illegal by that request alone.
  { shows: ['hallucinated_endpoint'], sample: 4, multi: true, code: `(async () => {\n  const list = await axios.get('${BASE}/warehouses', { params: { region: 'us' }, ${AUTH} });\n  await axios.patch(\`${BASE}/warehouses/\${list.data.data[0].id}\`, { status: 'paused' }, { ${AUTH} });\n  await axios.get('${BASE}/warehouse-status', { ${AUTH} });\n})();` },
  // Every step right, and a second warehouse paused too.
  { shows: ['extra_request'], sample: 4, multi: true, code: `(async () => {\n  const list = await axios.get('${BASE}/warehouses', { params: { region: 'us' }, ${AUTH} });\n  for (const w of list.data.data) await axios.patch(\`${BASE}/warehouses/\${w.id}\`, { status: 'paused' }, { ${AUTH} });\n})();` },
];

interface ScoreJson {
  statistics: Record<string, number>;
  samples: Record<string, Verdict>;
  failures: { counts: Record<FailureClass, number>; per_api: Record<string, Record<FailureClass, number>>; samples: Record<string, FailureClass[]> };
}

describe('failure taxonomy through `wapii score` (real sandbox)', () => {
  let result: ScoreJson;
  beforeAll(async () => {
    const dir = tempDir('wapii-taxonomy-');
    fs.writeFileSync(path.join(dir, 'dataset.json'), JSON.stringify(CASES.map((c) => (c.multi ? demoMulti[c.sample] : demo[c.sample]))));
    fs.mkdirSync(path.join(dir, 'codes'));
    CASES.forEach((c, i) => fs.writeFileSync(path.join(dir, 'codes', `${String(i).padStart(4, '0')}.js`), `const axios = require('axios');\n${c.code}\n`));
    let stdout = '';
    const code = await runCli(['score', '--dataset', path.join(dir, 'dataset.json'), '--specs', DEMO_SPECS, '--codes', path.join(dir, 'codes'), '--timeout', '300', '--json'], { stdout: (t) => (stdout += t), stderr: () => undefined });
    expect(code).toBe(0);
    result = JSON.parse(stdout) as ScoreJson;
  }, 60_000);

  it('covers every class', () => {
    expect(new Set(CASES.flatMap((c) => c.shows))).toEqual(new Set(FAILURE_CLASSES));
  });

  for (const [i, c] of CASES.entries()) {
    it(`${c.shows.join(' + ') || 'correct'}: ${c.code.split('\n').pop()?.slice(0, 70)}`, () => {
      expect(result.failures.samples[String(i)]).toEqual(c.shows);
    });
  }

  it('scores the multi-step cases by their steps, with §7\'s fields in --json', () => {
    const i = CASES.findIndex((c) => c.shows.includes('extra_request'));
    expect(result.samples[String(i)]).toMatchObject({ sample_verdict: 'wrong', steps_total: 2, steps_correct: 2, extra_requests: 1, first_failed_step: null });
    expect(result.statistics['steps_total']).toBe(6);
  });

  it('counts agree with the verdict statistics', () => {
    const { counts, per_api } = result.failures;
    const s = result.statistics;
    const verdicts = Object.values(result.samples);
    const withArgument = (v: ArgumentVerdictName) => verdicts.filter((x) => x.sample_verdict !== 'nonexecutable' && Object.values(x.arguments).some((a) => Object.values(a ?? {}).some((r) => r.verdict === v))).length;
    // A multi-step task's extra request to an unknown path is classed so, but is no step's URL verdict.
    expect(counts.hallucinated_endpoint).toBe(s['urls_illegal']! + CASES.filter((c) => c.multi && c.shows.includes('hallucinated_endpoint')).length);
    expect(counts.wrong_endpoint).toBe(s['urls_wrong']);
    expect(counts.illegal_method).toBe(s['methods_illegal']);
    expect(counts.wrong_method).toBe(s['methods_wrong']);
    expect(counts.illegal_argument).toBe(withArgument('illegal'));
    expect(counts.unnecessary_argument).toBe(withArgument('unnecessary'));
    const either = (a: FailureClass, b: FailureClass) => Object.values(result.failures.samples).filter((f) => f.includes(a) || f.includes(b)).length;
    expect(either('missing_argument', 'missing_required_argument')).toBe(withArgument('missing'));
    expect(either('wrong_value', 'wrong_value_type')).toBe(withArgument('incorrect_value'));
    expect(counts.incomplete).toBe(s['errors_incomplete_request']);
    expect(counts.unsatisfiable).toBe(s['errors_unsatisfiable']);
    // The sandbox's verdict `runtime_error` splits into syntax, runtime, timeout and (ran, sent nothing) no_request.
    expect(counts.syntax_error + counts.runtime_error + counts.timeout + counts.no_request).toBe((s['errors_runtime_error'] ?? 0) + (s['errors_timeout'] ?? 0) + (s['errors_no_request'] ?? 0));
    expect(per_api['harbor']).toEqual(counts);
  });
});

type ArgumentVerdictName = 'missing' | 'illegal' | 'unnecessary' | 'incorrect_value';
