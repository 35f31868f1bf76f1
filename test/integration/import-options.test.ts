import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../main/api/result.js';
import type { RequestConfig } from '../../main/api/schemas.js';
import { ConstraintMatcher } from '../../main/constraints/index.js';
import { Sandbox } from '../../main/execution/index.js';
import { checkSample } from '../../main/dataset/index.js';
import { BROKEN_REF, loadSpec, specDocument, type ApiSpec } from '../../main/openapi/index.js';
import { endpointLine, oracleProgram } from '../../main/prompt/index.js';
import { evaluateCode } from '../../main/runner/index.js';
import { cli, databaseSnapshot } from '../support/cli.js';
import { localClient, openWorkbench } from '../../main/service/index.js';
import { REPO_ROOT, tempDir } from '../support/paths.js';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'openapi');
const sandbox = new Sandbox({ timeoutMs: 1000 });

/** The specs a stored dataset was imported with, loaded as every later command loads them. */
async function storedSpecs(ref: string, db: string): Promise<Map<string, ApiSpec>> {
  const wb = openWorkbench({ db });
  try {
    const specs = new Map<string, ApiSpec>();
    for (const [api, hash] of wb.store.datasetApis(wb.store.findDataset(ref)!.id)) {
      const stored = wb.store.getSpec(hash)!;
      specs.set(api, unwrap(await loadSpec(stored.content, stored.filename)));
    }
    return specs;
  } finally {
    await wb.shutdown();
  }
}
afterAll(() => sandbox.dispose());

/** A dataset file of these samples, in a fresh folder. */
function datasetFile(samples: { api: string; task: string; config: RequestConfig }[]): string {
  const file = path.join(tempDir('wapii-import-'), 'ds.json');
  fs.writeFileSync(file, JSON.stringify(samples));
  return file;
}

/** Every path a correct sample takes once imported: the checks, the constraints (oracle program) and the scorer. */
async function expectUsable(spec: ApiSpec, sample: { api: string; task: string; config: RequestConfig }): Promise<void> {
  expect(checkSample(spec, { ...sample, source: {} }).map((f) => f.message)).toEqual([]);
  const { starter, program } = oracleProgram(sample, 'full', 'single');
  const { matcher, fed } = ConstraintMatcher.after(spec, starter);
  expect(fed).toEqual({ ok: true });
  expect(matcher.feed(program.slice(starter.length)), program).toEqual({ ok: true });
  expect(matcher.isComplete()).toBe(true);
  expect((await evaluateCode(program, sample.config, spec, sandbox)).verdict.sample_verdict).toBe('correct');
}

describe('wapii import --lenient-refs (a spec whose $refs point at nothing)', () => {
  const samples = [
    { api: 'chat', task: 'Add contact a@b.example with plan pro.', config: { url: 'https://api.chat.example/contacts', method: 'post', data: { email: 'a@b.example', custom_attributes: { plan: 'pro' } } } },
    { api: 'chat', task: 'Rename contact c1 to Ann, tier gold.', config: { url: 'https://api.chat.example/contacts/c1', method: 'put', data: { name: 'Ann', custom_attributes: { tier: 'gold', seats: 3 } } } },
  ];

  it('is refused by default, every broken reference named in one line, and nothing stored', async () => {
    const db = path.join(tempDir(), 'wapii.db');
    const before = await cli('--db', db, 'list', '--json');
    expect(before.code).toBe(0);
    const snapshot = databaseSnapshot(db);
    const run = await cli('--db', db, 'import', datasetFile(samples), '--specs', path.join(FIXTURES, 'dangling'));
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'wapii: chat.yaml: unresolved $ref "#/components/parameters/missing_version", "#/components/schemas/custom_attributes" (4 uses): nothing in the document at those pointers; fix the references, or import with --lenient-refs (each broken one then stands for any value)\n',
    );
    expect(databaseSnapshot(db)).toBe(snapshot);
  });

  it('imports with each broken reference as any value, named in the result', async () => {
    const db = path.join(tempDir(), 'wapii.db');
    const run = await cli('--db', db, 'import', datasetFile(samples), '--specs', path.join(FIXTURES, 'dangling'), '--lenient-refs', '--json');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      [
        'API `chat`: broken $ref "#/components/parameters/missing_version" (1 use) imported as any value',
        'API `chat`: broken $ref "#/components/schemas/custom_attributes" (4 uses) imported as any value',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(run.stdout)).toMatchObject({ sampleCount: 2, brokenRefs: [{ api: 'chat', ref: '#/components/parameters/missing_version', uses: 1 }, { api: 'chat', ref: '#/components/schemas/custom_attributes', uses: 4 }] });
    // The stored spec loads again (every later command reads it), and marks what each broken reference stood for.
    const specs = await storedSpecs('ds', db);
    const spec = specs.get('chat')!;
    expect(JSON.stringify(specDocument(spec))).toContain(`"${BROKEN_REF}":"#/components/schemas/custom_attributes"`);
    for (const sample of samples) await expectUsable(spec, sample);
  });
});

describe('wapii import --lenient-refs on a multi-file description', () => {
  /** An entry and a part, each with a reference to nothing (the part's pointer read in the part). */
  function folder(): string {
    const dir = tempDir('wapii-specs-');
    fs.mkdirSync(path.join(dir, 'parts'));
    fs.writeFileSync(
      path.join(dir, 'split.yaml'),
      [
        'openapi: 3.0.3',
        "info: {title: Split, version: '1'}",
        "servers: [{url: 'https://split.example'}]",
        'paths:',
        '  /a:',
        '    post:',
        '      requestBody:',
        "        content: {application/json: {schema: {$ref: './parts/a.yaml'}}}",
        "      responses: {'200': {description: ok}}",
        '  /b:',
        '    get:',
        "      parameters: [{$ref: '#/components/parameters/gone'}]",
        "      responses: {'200': {description: ok}}",
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(dir, 'parts', 'a.yaml'), "type: object\nproperties:\n  x: {$ref: '#/definitions/missing'}\n  y: {type: integer}\n");
    return dir;
  }
  const samples = [{ api: 'split', task: 'Post x and y.', config: { url: 'https://split.example/a', method: 'post', data: { x: [1, 'two'], y: 3 } } }];

  it('is refused by default, naming the broken references of the file that holds them', async () => {
    const run = await cli('--db', path.join(tempDir(), 'wapii.db'), 'import', datasetFile(samples), '--specs', folder());
    expect(run).toMatchObject({ code: 1, stderr: 'wapii: split.yaml: unresolved $ref "#/components/parameters/gone": nothing in the document at that pointer; fix the references, or import with --lenient-refs (each broken one then stands for any value)\n' });
    const dir = folder();
    fs.writeFileSync(path.join(dir, 'split.yaml'), fs.readFileSync(path.join(dir, 'split.yaml'), 'utf8').replace(/ {6}parameters: .*\n/, ''));
    const part = await cli('--db', path.join(tempDir(), 'wapii.db'), 'import', datasetFile(samples), '--specs', dir);
    expect(part.stderr).toBe('wapii: parts/a.yaml: unresolved $ref "#/definitions/missing": nothing in the document at that pointer; fix the references, or import with --lenient-refs (each broken one then stands for any value)\n');
  });

  it('imports with each as any value, the part\'s named by its file', async () => {
    const db = path.join(tempDir(), 'wapii.db');
    const run = await cli('--db', db, 'import', datasetFile(samples), '--specs', folder(), '--lenient-refs', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ flaggedCount: 0, brokenRefs: [{ api: 'split', ref: '#/components/parameters/gone', uses: 1 }, { api: 'split', ref: 'parts/a.yaml#/definitions/missing', uses: 1 }] });
    await expectUsable((await storedSpecs('ds', db)).get('split')!, samples[0]!);
  });
});

describe('wapii import --server (a spec that declares no server)', () => {
  const sample = { api: 'cluster', task: 'List 5 pods of namespace prod.', config: { url: 'https://k8s.example:6443/api/v1/namespaces/prod/pods', method: 'get', params: { limit: 5 } } };

  it('without it, every sample is flagged: no server to match', async () => {
    const db = path.join(tempDir(), 'wapii.db');
    const run = await cli('--db', db, 'import', datasetFile([sample]), '--specs', path.join(FIXTURES, 'noserver'), '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ flaggedCount: 1 });
  });

  it('stores the given base URL with the spec, and the checks, constraints, scorer and prompt use it', async () => {
    const db = path.join(tempDir(), 'wapii.db');
    const run = await cli('--db', db, 'import', datasetFile([sample]), '--specs', path.join(FIXTURES, 'noserver'), '--server', 'https://k8s.example:6443/', '--json');
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('API `cluster`: its spec declares no server; using https://k8s.example:6443/\n');
    expect(JSON.parse(run.stdout)).toMatchObject({ flaggedCount: 0, serverFor: ['cluster'] });
    const spec = (await storedSpecs('ds', db)).get('cluster')!;
    expect(spec.servers).toEqual(['https://k8s.example:6443']);
    expect(endpointLine(spec, spec.endpoints[0]!)).toBe('GET https://k8s.example:6443/api/v1/namespaces/{namespace}/pods');
    await expectUsable(spec, sample);
  });

  it('a new version of the spec, still without a server, takes the one given at import (Spec versions)', async () => {
    const db = path.join(tempDir(), 'wapii.db');
    expect((await cli('--db', db, 'import', datasetFile([sample]), '--specs', path.join(FIXTURES, 'noserver'), '--server', 'https://k8s.example:6443', '--name', 'k8s')).code).toBe(0);
    const wb = openWorkbench({ db });
    try {
      const datasetId = wb.store.findDataset('k8s')!.id;
      const content = fs.readFileSync(path.join(FIXTURES, 'noserver', 'cluster.yaml'), 'utf8');
      const diff = await localClient(wb.service).diffSpecVersion({ datasetId, api: 'cluster', spec: { filename: 'cluster.yaml', content } });
      expect(diff.breaks).toEqual([]);
    } finally {
      await wb.shutdown();
    }
  });

  it('reads a relative server against it, and leaves a spec with an absolute server as it is', async () => {
    const dir = tempDir('wapii-specs-');
    fs.writeFileSync(path.join(dir, 'rel.yaml'), "openapi: 3.0.3\ninfo: {title: Rel, version: '1'}\nservers: [{url: /v2}]\npaths:\n  /items:\n    get:\n      responses: {'200': {description: ok}}\n");
    fs.copyFileSync(path.join(FIXTURES, 'dangling', '..', 'swagger2', 'petshop.yaml'), path.join(dir, 'petshop.yaml'));
    const ds = datasetFile([
      { api: 'rel', task: 'List items.', config: { url: 'https://rel.example/v2/items', method: 'get' } },
      { api: 'petshop', task: 'List pets.', config: { url: 'https://api.petshop.example/v1/pets', method: 'get' } },
    ]);
    const db = path.join(tempDir(), 'wapii.db');
    const run = await cli('--db', db, 'import', ds, '--specs', dir, '--server', 'https://rel.example', '--json');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ flaggedCount: 0, serverFor: ['rel'] });
    const specs = await storedSpecs('ds', db);
    expect(specs.get('rel')!.servers).toEqual(['https://rel.example/v2']);
    expect(specs.get('petshop')!.servers).toEqual(['https://api.petshop.example/v1']);
  });

  it.each([
    ['ftp://k8s.example', 'server "ftp://k8s.example" must be an http or https URL, not ftp'],
    ['k8s.example', 'server "k8s.example" is not a URL; give the API\'s base URL, e.g. https://api.example.com/v1'],
    ['https://k8s.example/?x=1', 'server "https://k8s.example/?x=1" must be a base URL without a query, fragment or credentials'],
  ])('refuses %s in one line, storing nothing', async (url, message) => {
    const db = path.join(tempDir(), 'wapii.db');
    const run = await cli('--db', db, 'import', datasetFile([sample]), '--specs', path.join(FIXTURES, 'noserver'), '--server', url);
    expect(run).toMatchObject({ code: 1, stdout: '', stderr: `wapii: ${message}\n` });
  });
});
