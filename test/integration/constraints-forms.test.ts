import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../support/cli.js';
import { REPO_ROOT, tempDir } from '../support/paths.js';

/**
 * Form-encoded bodies as constraints.md now lets a constrained model write them, scored as
 * scoring.md says (`wapii score`: the sandbox's Axios sends a URLSearchParams as its toString(),
 * the scorer decodes the form into an object of strings), on the relay fixture.
 */
describe('a form body written as new URLSearchParams({...}) or qs.stringify({...}), executed and scored', () => {
  const dir = tempDir('wapii-forms-');
  const URL = 'https://api.relay.example/2010-04-01/Accounts/AC1/Messages.json';
  const send = { To: '+15550001', From: '+15550002', Body: 'hi there' };
  const samples = [
    { api: 'relay', task: 'Text +15550001 from +15550002: hi there.', config: { url: URL, method: 'post', data: send } },
    { api: 'relay', task: 'Text +15550001 as MMS.', config: { url: URL, method: 'post', data: { To: '+15550001', SendAsMms: true } } },
    { api: 'relay', task: 'Text +15550001 as MMS (the form as sent).', config: { url: URL, method: 'post', data: { To: '+15550001', SendAsMms: 'true' } } },
    { api: 'relay', task: 'Text +15550001 from +15550002: hi there.', config: { url: URL, method: 'post', data: send } },
  ];
  const codes = [
    `const axios = require('axios');\naxios.post('${URL}', new URLSearchParams(${JSON.stringify(send)}));\n`,
    `const axios = require('axios');\naxios.post('${URL}', new URLSearchParams({ To: '+15550001', SendAsMms: true }));\n`,
    `const axios = require('axios');\naxios.post('${URL}', new URLSearchParams({ To: '+15550001', SendAsMms: true }));\n`,
    `const axios = require('axios');\nconst qs = require('qs');\naxios.post('${URL}', qs.stringify(${JSON.stringify(send)}));\n`,
  ];
  let report: { samples: Record<string, { sample_verdict: string; error_verdict: string | null; arguments: { data?: Record<string, { actual: unknown; verdict: string }> } }> };
  beforeAll(async () => {
    fs.mkdirSync(path.join(dir, 'specs'));
    fs.mkdirSync(path.join(dir, 'codes'));
    fs.copyFileSync(path.join(REPO_ROOT, 'test', 'fixtures', 'openapi', 'forms', 'relay.yaml'), path.join(dir, 'specs', 'relay.yaml'));
    fs.writeFileSync(path.join(dir, 'dataset.json'), JSON.stringify(samples));
    codes.forEach((code, i) => fs.writeFileSync(path.join(dir, 'codes', `${String(i).padStart(4, '0')}.js`), code));
    const out = await cli('score', '--dataset', path.join(dir, 'dataset.json'), '--specs', path.join(dir, 'specs'), '--codes', path.join(dir, 'codes'), '--json');
    expect(out.code, out.stderr).toBe(0);
    report = JSON.parse(out.stdout) as typeof report;
  }, 180_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('scores a URLSearchParams body of strings correct, key by key', () => {
    expect(report.samples['0']!.sample_verdict).toBe('correct');
    expect(Object.values(report.samples['0']!.arguments.data!).map((a) => a.verdict)).toEqual(['correct', 'correct', 'correct']);
  });

  it('sends a form value as text: `true` in the form is "true", which is correct against "true" and not against true', () => {
    expect(report.samples['1']!.arguments.data!['SendAsMms']).toMatchObject({ actual: 'true', verdict: 'incorrect_value' });
    expect(report.samples['2']!.sample_verdict).toBe('correct');
  });

  it('has no qs module in the sandbox: require("qs") is a runtime error (the constraints allow qs.stringify only where qs is a name in scope)', () => {
    expect(report.samples['3']).toMatchObject({ sample_verdict: 'nonexecutable', error_verdict: 'runtime_error' });
  });
});
