import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { localClient, openWorkbench, readDemo } from '../../main/service/index.js';
import { Store } from '../../main/store/index.js';
import { DEMO_DATASET, DEMO_SPECS, REPO_ROOT, tempDir } from '../support/paths.js';
import { cli, databaseSnapshot as snapshot } from '../support/cli.js';

const demoSpec = fs.readFileSync(path.join(DEMO_SPECS, 'harbor.yaml'));
const demoSamples = JSON.parse(fs.readFileSync(DEMO_DATASET, 'utf8')) as { api: string; task: string; config: Record<string, unknown> }[];

/** A dataset and spec folder on disk, as bytes, so a test can write what no editor would. */
function files(dataset: Buffer | string, spec: Buffer | string = demoSpec): { dataset: string; specs: string } {
  const dir = tempDir('wapii-input-');
  fs.mkdirSync(path.join(dir, 'specs'));
  fs.writeFileSync(path.join(dir, 'specs', 'harbor.yaml'), spec);
  fs.writeFileSync(path.join(dir, 'data.json'), dataset);
  return { dataset: path.join(dir, 'data.json'), specs: path.join(dir, 'specs') };
}

const oneSample = (config: string): string => `[{"api": "harbor", "task": "t",\n  "config": ${config}}]`;
const URL_ = 'https://api.harbor.example/v2/shipments';
/** A sample up to a byte that Latin-1 writes for "é" and UTF-8 does not allow there. */
const LATIN1_PREFIX = oneSample(`{"url": "${URL_}", "method": "get", "headers": {"X": "caf`);

describe('`wapii import` of bad input prints one line, exits 1 and writes nothing', () => {
  const cases: [string, () => { dataset: string; specs: string }, RegExp][] = [
    [
      'invalid UTF-8 in the dataset, named by its byte offset',
      () => files(Buffer.concat([Buffer.from(LATIN1_PREFIX), Buffer.from([0xe9]), Buffer.from('"}}}]')])),
      new RegExp(`^wapii: \\S+data\\.json is not valid UTF-8: byte 0xe9 at offset ${Buffer.byteLength(LATIN1_PREFIX)} \\(line 2\\); save it as UTF-8$`),
    ],
    [
      'invalid UTF-8 in a spec',
      () => files(JSON.stringify(demoSamples), Buffer.concat([demoSpec.subarray(0, 40), Buffer.from([0xc3, 0x28]), demoSpec.subarray(40)])),
      /^wapii: \S+harbor\.yaml is not valid UTF-8: byte 0xc3 at offset 40 \(line 1\); save it as UTF-8$/,
    ],
    [
      'a duplicate key in the dataset',
      () => files(oneSample(`{"url": "${URL_}", "method": "get",\n "method": "post"}`)),
      /^wapii: data\.json: duplicate key "method" at line 3, column 2 \(first at line 2\); keys must be unique/,
    ],
    ['a `__proto__` key in the dataset', () => files(oneSample(`{"url": "${URL_}", "method": "get", "headers": {"__proto__": "x"}}`)), /^wapii: data\.json: the key "__proto__" at line 2, column \d+ is not supported/],
    ['a dataset nested 100,000 levels deep', () => files(oneSample(`{"url": "${URL_}", "method": "post", "data": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`)), /^wapii: data\.json: nesting deeper than 128 levels at \/0\/config\/data\/0\/0\/0\/…$/],
    [
      'a YAML alias bomb in a spec',
      () => files(JSON.stringify(demoSamples), `${demoSpec.toString()}\nx-bomb:\n${[...'abcdefgh'].map((n, i) => `  ${n}: &${n} [${Array(9).fill(i === 0 ? 'lol' : `*${'abcdefgh'[i - 1]}`).join(', ')}]`).join('\n')}\n`),
      /^wapii: harbor\.yaml: YAML aliases expand to more than 1000 references \(an alias bomb\?\); refusing to expand them$/,
    ],
    [
      'a duplicate operation in a spec',
      () => files(JSON.stringify(demoSamples), demoSpec.toString().replace(/^( {4})get:/m, '$1post: {responses: {"200": {description: ok}}}\n$1get:').replace(/^( {4})post:/m, '$1get: {responses: {"200": {description: ok}}}\n$1post:')),
      /^wapii: harbor\.yaml: duplicate key "get" at line \d+, column 5; keys must be unique/,
    ],
  ];

  for (const [name, make, expected] of cases) {
    it(name, async () => {
      const db = path.join(tempDir(), 'wapii.db');
      expect((await cli('--db', db, 'import', DEMO_DATASET, '--specs', DEMO_SPECS)).code).toBe(0);
      const before = snapshot(db);
      const input = make();
      const result = await cli('--db', db, 'import', input.dataset, '--specs', input.specs);
      expect({ code: result.code, stdout: result.stdout, lines: result.stderr.split('\n').length - 1 }).toEqual({ code: 1, stdout: '', lines: 1 });
      expect(result.stderr.trimEnd()).toMatch(expected);
      expect(snapshot(db)).toBe(before);
    });
  }

  it('a `__proto__` key or deep nesting sent to the service (serve, Electron) is refused the same way', async () => {
    const db = path.join(tempDir(), 'wapii.db');
    const wb = openWorkbench({ db });
    try {
      const client = localClient(wb.service);
      const demo = readDemo(REPO_ROOT);
      const dataset = await client.importDataset({ dataset: demo.dataset, specs: demo.specs });
      const [sample] = wb.store.listSamples(dataset.id);
      const before = snapshot(db);
      // What JSON.parse makes of a request body: `__proto__` as an own key.
      const withProto: unknown = JSON.parse(JSON.stringify({ datasetId: dataset.id, sampleId: sample!.id, reason: 'r', config: { url: URL_, method: 'get', headers: { A: '1' } } }).replace('"A"', '"__proto__"'));
      await expect(client.editSample(withProto as never)).rejects.toMatchObject({ code: 'bad_input', message: 'editSample: config.headers.__proto__: the key "__proto__" is not supported; rename or remove it' });
      const deep: unknown = JSON.parse(`{"datasetId": ${dataset.id}, "sampleId": "${sample!.id}", "reason": "r", "config": {"url": "${URL_}", "method": "post", "data": ${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);
      await expect(client.editSample(deep as never)).rejects.toMatchObject({ code: 'bad_input', message: 'editSample: config.data.0.0.0.0.…: nesting deeper than 128 levels' });
      expect(snapshot(db)).toBe(before);
    } finally {
      wb.store.close();
    }
  });
});

describe('simultaneous `wapii import`s of one name', () => {
  it('all land, under distinct names, with nothing on stderr', async () => {
    const db = path.join(tempDir(), 'wapii.db');
    const run = promisify(execFile);
    const n = 6;
    const results = await Promise.allSettled(Array.from({ length: n }, () => run(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), '--db', db, 'import', DEMO_DATASET, '--specs', DEMO_SPECS])));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value.stderr : String((r.reason as { stderr?: string }).stderr)))).toEqual(Array(n).fill(''));
    const opened = Store.open(db);
    if (!opened.ok) throw new Error(opened.error.message);
    const names = opened.value.listDatasets().map((d) => d.name);
    opened.value.close();
    expect(names.sort()).toEqual(['demo', ...Array.from({ length: n - 1 }, (_, i) => `demo (${i + 2})`)].sort());
  });
});
