import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../main/api/result.js';
import type { RequestConfig } from '../../main/api/schemas.js';
import { readSpecFolder } from '../../main/cli/specFolder.js';
import { ConstraintMatcher } from '../../main/constraints/index.js';
import { Sandbox } from '../../main/execution/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { oracleProgram, type Quote } from '../../main/prompt/index.js';
import { evaluateCode } from '../../main/runner/index.js';
import { prepareDataset } from '../../main/service/index.js';
import { REPO_ROOT } from '../support/paths.js';

const FOLDER = path.join(REPO_ROOT, 'test', 'fixtures', 'openapi', 'ignoredheaders');
const BASE = 'https://api.pager.example';

/**
 * Correct samples of a spec that declares Accept, Content-Type and Authorization as required header
 * parameters with enums and patterns (as PagerDuty's does): OpenAPI says those definitions SHALL be
 * ignored, so none of them may be held against a sample.
 */
const SAMPLES: { api: string; task: string; config: RequestConfig }[] = [
  { api: 'pager', task: 'List the abilities.', config: { url: `${BASE}/abilities`, method: 'get', headers: { Authorization: 'Token token=abc' } } },
  { api: 'pager', task: 'List the abilities, as JSON.', config: { url: `${BASE}/abilities`, method: 'get', headers: { Accept: 'application/json', Authorization: 'Token token=abc' } } },
  { api: 'pager', task: 'Open an incident "Disk full" as ops.', config: { url: `${BASE}/incidents`, method: 'post', headers: { Authorization: 'Token token=abc', From: 'ops@pager.example' }, data: { title: 'Disk full' } } },
  { api: 'pager', task: 'Get the status with a bearer token.', config: { url: `${BASE}/status`, method: 'get', headers: { authorization: 'Bearer xyz' } } },
];

let spec: ApiSpec;
let samples: readonly { api: string; task: string; config: RequestConfig; findings: readonly { message: string }[] }[];
const sandbox = new Sandbox({ timeoutMs: 1000 });
beforeAll(async () => {
  const prepared = unwrap(await prepareDataset({ filename: 'pager.json', content: JSON.stringify(SAMPLES) }, unwrap(await readSpecFolder(FOLDER))));
  spec = prepared.specs.get('pager')!.spec;
  samples = prepared.samples;
});
afterAll(() => sandbox.dispose());

describe('header parameters named Accept, Content-Type or Authorization (ignored, as OpenAPI says)', () => {
  it('are never required nor typed: the checks flag none of the correct samples', () => {
    for (const sample of samples) expect(sample.findings.map((f) => f.message), sample.task).toEqual([]);
  });

  it('leave the other header parameters enforced', async () => {
    const prepared = unwrap(await prepareDataset({ filename: 'pager.json', content: JSON.stringify([{ api: 'pager', task: 'x', config: { url: `${BASE}/incidents`, method: 'post', data: { title: 't' } } }]) }, unwrap(await readSpecFolder(FOLDER))));
    expect(prepared.samples[0]!.findings.map((f) => f.message)).toEqual(['required header `From` of POST /incidents is missing']);
  });

  it('are not required by the constraints: every oracle program is accepted, in both setups and every quote style', () => {
    for (const sample of samples) {
      for (const setup of ['full', 'argument'] as const) {
        for (const quote of ['single', 'double', 'backtick'] as Quote[]) {
          const { starter, program } = oracleProgram(sample, setup, quote);
          const { matcher, fed } = ConstraintMatcher.after(spec, starter);
          expect(fed).toEqual({ ok: true });
          expect(matcher.feed(program.slice(starter.length)), program).toEqual({ ok: true });
          expect(matcher.isComplete(), program).toBe(true);
        }
      }
    }
  });

  it('keep a declared Content-Type out of a body method\'s header, where the body\'s media types decide it', () => {
    const starter = "const axios = require('axios');\n";
    const { matcher } = ConstraintMatcher.after(spec, starter);
    const call = `axios.post('${BASE}/incidents', { title: 't' }, { headers: { From: 'a', 'Content-Type': '|text/plain' } });`;
    const fed = matcher.feed(call.replace('|', ''));
    expect(fed.ok).toBe(false);
    if (!fed.ok) expect(fed.offset - starter.length).toBe(call.indexOf('|'));
  });

  it('are not counted against a correct program by the scorer', async () => {
    for (const sample of samples) {
      const { program } = oracleProgram(sample, 'full', 'single');
      const { verdict } = await evaluateCode(program, sample.config, spec, sandbox);
      expect(verdict.sample_verdict, program).toBe('correct');
      const verdicts = Object.values(verdict.arguments).flatMap((args) => Object.values(args ?? {}).map((a) => a.verdict));
      expect(verdicts).not.toContain('missing');
    }
  });
});
