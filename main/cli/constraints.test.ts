import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../../test/support/cli.js';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { taskCallStart } from '../service/fileTools.js';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures');
const GITHUB = path.join(FIXTURES, 'realworld', 'specs', 'github_v3.yaml');

/** Writes programs into a fresh folder; returns their paths in order. */
function programs(...texts: string[]): string[] {
  const dir = tempDir('wapii-programs-');
  return texts.map((text, i) => {
    const file = path.join(dir, `${String(i).padStart(4, '0')}.js`);
    fs.writeFileSync(file, text);
    return file;
  });
}

const check = async (spec: string, ...texts: string[]): Promise<{ code: number; results: { accepted: boolean; offset?: number; reason?: string }[]; stderr: string }> => {
  const run = await cli('constraints', 'check', '--spec', spec, '--json', ...programs(...texts));
  return { code: run.code, results: run.code === 0 ? (JSON.parse(run.stdout) as { accepted: boolean }[]) : [], stderr: run.stderr };
};

/** A real-world starter (the fixture's release-watch sample) that calls Axios twice before the task. */
const STARTER = [
  "const axios = require('axios')",
  "const owner = 'natsukagami'",
  '',
  "axios.all([axios.get('https://api.github.com/rate_limit'), axios.head('https://api.github.com/')]).then(() => {})",
  '',
  'async function releases(perPage) {',
  '  // {task}',
  '  const res = await axios.',
].join('\n');
const COMPLETION = "get(`https://api.github.com/repos/${owner}/themis-web-interface/releases`, { params: { per_page: perPage } });\n  return res.data;\n}\n";

describe('wapii constraints check on a program with starter code', () => {
  it('checks the task\'s call, after the `{task}` line, not the starter\'s own calls before it', async () => {
    expect(await check(GITHUB, STARTER + COMPLETION)).toMatchObject({ code: 0, results: [{ accepted: true }] });
  });

  it('finds the task\'s call below its filled-in comment where the placeholder is gone', async () => {
    const filled = STARTER.replace('{task}', "List the releases of 'themis-web-interface', perPage per page.");
    expect(await check(GITHUB, filled + COMPLETION)).toMatchObject({ code: 0, results: [{ accepted: true }] });
  });

  it('still refuses the task\'s call where it breaks the spec, at its offset in the file', async () => {
    const program = STARTER + COMPLETION.replace('per_page', 'zz_page');
    const { results } = await check(GITHUB, program);
    expect(results).toMatchObject([{ accepted: false, offset: program.indexOf('zz_page') }]);
  });

  it('reads names in scope at the call (a parameter of the enclosing function)', async () => {
    const { results } = await check(GITHUB, STARTER + COMPLETION.replace('perPage }', 'notDeclared }'));
    expect(results[0]?.accepted).toBe(false);
  });

  it.each([
    ['placeholder line', 'axios.get(1)\n// {task}\nx = axios.', 'x = axios.'],
    ['comment above the call', "axios.all([])\n\n// List it\n  return axios.", 'axios.', 'last'],
    ['no comment: the first call', "const axios = require('axios');\naxios.", 'axios.'],
  ])('taskCallStart: %s', (_why, text, call, which?: string) => {
    const expected = which === 'last' ? text.lastIndexOf(call) : text.indexOf(call) + call.indexOf('axios.');
    expect(taskCallStart(text)).toBe(expected);
  });
});

describe('wapii constraints check and gbnf load specs as import does (one loader)', () => {
  it('bundles a multi-file description\'s relative $refs', async () => {
    const program = "const axios = require('axios');\n\naxios.post('https://shop.example/api/orders', { items: [{ sku: 'A', quantity: 2 }], total: { amount: 10, currency: 'EUR' } });\n";
    expect(await check(path.join(FIXTURES, 'openapi', 'multifile', 'shop.yaml'), program)).toMatchObject({ code: 0, results: [{ accepted: true }] });
    const gbnf = await cli('constraints', 'gbnf', '--spec', path.join(FIXTURES, 'openapi', 'multifile', 'shop.yaml'));
    expect(gbnf).toMatchObject({ code: 0, stderr: '' });
    expect(gbnf.stdout).toMatch(/^# GBNF for llama\.cpp/);
  });

  it('refuses a $ref that leaves the spec\'s folder, in one line, as import does', async () => {
    const run = await check(path.join(FIXTURES, 'openapi', 'escape', 'leaky.yaml'), 'axios.get(1);\n');
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim()).toMatch(/^[^\n]*leaves the spec's folder[^\n]*$/);
  });

  it('takes Swagger 2.0 and OpenAPI 3.1 descriptions', async () => {
    const swagger = await check(path.join(FIXTURES, 'openapi', 'swagger2', 'petshop.yaml'), "axios.get('https://api.petshop.example/v1/pets', { params: { limit: 10 } });\n");
    expect(swagger).toMatchObject({ code: 0, results: [{ accepted: true }] });
    const v31 = await check(path.join(FIXTURES, 'openapi', 'openapi31', 'messenger.yaml'), "axios.get('https://maps.messenger.example/maps/api/geocode/json', { params: { address: 'x' } });\n");
    expect(v31).toMatchObject({ code: 0, results: [{ accepted: true }] });
  });
});
