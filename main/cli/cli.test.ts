import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DATASET, DEMO_SPECS, REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { cli, databaseSnapshot as snapshot } from '../../test/support/cli.js';

/** A spec folder holding a copy of the demo spec plus whatever a test writes into it. */
function specDir(files: Record<string, string> = {}): string {
  const dir = tempDir('wapii-specs-');
  fs.copyFileSync(path.join(DEMO_SPECS, 'harbor.yaml'), path.join(dir, 'harbor.yaml'));
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
  return dir;
}

describe('wapii import / list / check / export', () => {
  let db: string;
  beforeAll(async () => {
    db = path.join(tempDir(), 'wapii.db');
    const result = await cli('--db', db, 'import', DEMO_DATASET, '--specs', DEMO_SPECS);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe('imported dataset 1 "demo": 32 samples for 1 APIs (harbor 32); 4 flagged by the checks\n');
  });

  it('lists datasets and filtered samples', async () => {
    const datasets = await cli('--db', db, 'list', '--json');
    expect(JSON.parse(datasets.stdout)).toMatchObject([{ id: 1, name: 'demo', sampleCount: 32 }]);
    const samples = await cli('--db', db, 'list', 'demo', '--method', 'delete', '--json');
    expect((JSON.parse(samples.stdout) as { position: number }[]).map((s) => s.position)).toEqual([7, 25]);
    const table = await cli('--db', db, 'list', 'demo', '--status', 'flagged');
    expect(table.stdout.split('\n').filter((l) => l.includes('harbor'))).toHaveLength(4);
  });

  it('checks a stored dataset and files directly, with the same findings', async () => {
    const stored = await cli('--db', db, 'check', '--json');
    const direct = await cli('check', '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--json');
    expect(stored.code).toBe(0);
    const parsed = JSON.parse(stored.stdout) as { index: number; api: string; findings: { message: string }[] }[];
    expect(parsed.map((s) => s.index)).toEqual([28, 29, 30, 31]);
    expect(parsed[0]).toMatchObject({ api: 'harbor', findings: [{ rule: 'value', message: 'query argument `limit` = "25" must be of type integer (GET /shipments)' }] });
    expect(JSON.parse(direct.stdout)).toEqual(parsed);
    const human = await cli('--db', db, 'check', 'demo');
    expect(human.stdout).toContain('4 of 32 samples flagged');
  });

  it('exports a dataset that imports again unchanged', async () => {
    const out = path.join(tempDir(), 'export.json');
    expect((await cli('--db', db, 'export', 'demo', '--out', out)).code).toBe(0);
    const again = await cli('--db', db, 'import', out, '--specs', DEMO_SPECS, '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ name: 'export', sampleCount: 32, flaggedCount: 4 });
  });
});

describe('bad input: one line on stderr, a non-zero exit, nothing written', () => {
  let db: string;
  let before: string;
  beforeAll(async () => {
    db = path.join(tempDir(), 'wapii.db');
    expect((await cli('--db', db, 'import', DEMO_DATASET, '--specs', DEMO_SPECS)).code).toBe(0);
    before = snapshot(db);
  });

  const expectRefused = async (argv: string[], message: string | RegExp): Promise<void> => {
    const result = await cli('--db', db, ...argv);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.endsWith('\n') && result.stderr.split('\n').length).toBe(2);
    if (typeof message === 'string') expect(result.stderr).toBe(`wapii: ${message}\n`);
    else expect(result.stderr).toMatch(message);
    expect(snapshot(db)).toBe(before);
  };

  it('malformed YAML, with line and column', async () => {
    const dir = specDir({ 'harbor.yaml': 'openapi: 3.0.3\ninfo: {title: x, version: "1"}\npaths:\n  /a:\n    get: {responses: {200: {description: "ok"}\n' });
    await expectRefused(['import', DEMO_DATASET, '--specs', dir], /^wapii: harbor\.yaml: malformed YAML at line 6, column 1: Flow map in block collection must be sufficiently indented and end with a \}\n$/);
  });

  it('an unresolved $ref', async () => {
    const text = fs.readFileSync(path.join(DEMO_SPECS, 'harbor.yaml'), 'utf8').replace("$ref: '#/components/schemas/Parcel'", "$ref: '#/components/schemas/Parcle'");
    await expectRefused(['import', DEMO_DATASET, '--specs', specDir({ 'harbor.yaml': text })], /^wapii: harbor\.yaml: unresolved \$ref "#\/components\/schemas\/Parcle"( \(\d+ uses\))?: nothing in the document at that pointer; fix the references, or import with --lenient-refs /);
  });

  it('a sample whose API has no spec', async () => {
    const dataset = path.join(tempDir(), 'mixed.json');
    const samples = JSON.parse(fs.readFileSync(DEMO_DATASET, 'utf8')) as { api: string }[];
    samples[3]!.api = 'stripe';
    fs.writeFileSync(dataset, JSON.stringify(samples));
    await expectRefused(['import', dataset, '--specs', DEMO_SPECS], 'mixed.json: API `stripe` (1 sample, first: sample 3): no spec stripe.yaml or stripe.json was given (specs found: harbor); give the specs, or import the other samples with --skip-missing-specs');
  });

  it('invalid JSON, with line and column', async () => {
    const dataset = path.join(tempDir(), 'broken.json');
    fs.writeFileSync(dataset, '[\n  {"api": "harbor", "task": "x",, "config": {}}\n]\n');
    await expectRefused(['import', dataset, '--specs', DEMO_SPECS], 'broken.json: invalid JSON at line 2, column 33: property name expected');
  });

  it('a sample that is not a WAPIIBench sample', async () => {
    const dataset = path.join(tempDir(), 'shape.json');
    fs.writeFileSync(dataset, JSON.stringify([{ api: 'harbor', task: 'x', config: { url: 'https://api.harbor.example/v2/me' } }]));
    await expectRefused(['import', dataset, '--specs', DEMO_SPECS], 'shape.json: sample 0: `config.method` expected string, received undefined');
  });

  it('unreadable files and folders', async () => {
    await expectRefused(['import', '/nonexistent/all.json', '--specs', DEMO_SPECS], 'cannot read /nonexistent/all.json: no such file or directory');
    await expectRefused(['import', DEMO_DATASET, '--specs', '/nonexistent/specs'], 'cannot read spec folder /nonexistent/specs: no such file or directory');
    await expectRefused(['import', DEMO_SPECS, '--specs', DEMO_SPECS], `cannot read ${DEMO_SPECS}: is a directory, not a file`);
    await expectRefused(['check', '--dataset', '/nonexistent/all.json', '--specs', DEMO_SPECS], 'cannot read /nonexistent/all.json: no such file or directory');
  });

  it('a dataset that does not exist', async () => {
    await expectRefused(['list', 'nope'], 'no dataset named or numbered "nope" (have: 1 "demo")');
  });

  it('prints no stack trace from the real command either', async () => {
    const dir = specDir({ 'harbor.yaml': 'openapi: 3.0.3\npaths: [\n' });
    const run = promisify(execFile);
    const error = await run(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), '--db', db, 'import', DEMO_DATASET, '--specs', dir]).catch((e: { code: number; stderr: string; stdout: string }) => e);
    expect(error).toMatchObject({ code: 1, stdout: '' });
    expect((error as { stderr: string }).stderr).toMatch(/^wapii: harbor\.yaml: malformed YAML at line 3, column 1: [^\n]+\n$/);
    expect(snapshot(db)).toBe(before);
  });
});
