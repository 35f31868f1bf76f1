import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createFetchClient } from '../../main/api/fetchClient.js';
import { readFileInput } from '../../main/cli/files.js';
import { readSpecFolder } from '../../main/cli/specFolder.js';
import { DEMO_DATASET, DEMO_SPECS, hasWapiiBench, REPO_ROOT, tempDir, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';

const run = promisify(execFile);
const BUILT = path.join(REPO_ROOT, 'out', 'cli', 'index.js');
const built = fs.existsSync(BUILT);
if (!built) console.warn('cli-built: no out/cli/index.js (run `npm run build`); the built CLI is not tested');
// The bundle itself, even where a source changed since the build (bin/wapii.mjs would take tsx then).
const wapii = (...argv: string[]) => run(process.execPath, [BUILT, ...argv], { maxBuffer: 64 * 1024 * 1024 });

// What the bundle must still find at run time: native modules, node-llama-cpp's files, and the
// worker and child entries beside it (sandbox-child.js, header-worker.js, prepare-worker.js).
describe.skipIf(!built)('the built CLI (out/cli)', () => {
  it('prints help and lists an empty database (better-sqlite3)', async () => {
    expect((await wapii('--help')).stdout).toMatch(/^Usage: wapii/);
    expect((await wapii('--db', path.join(tempDir(), 'w.db'), 'list')).stdout).toMatch(/no datasets yet/);
  });

  it.skipIf(!hasWapiiBench)('checks WAPIIBench files without the database', async () => {
    expect((await wapii('check', '--dataset', WAPIIBENCH_ALL, '--specs', WAPIIBENCH_SPECS)).stdout).toMatch(/ of 395 samples flagged\n$/);
  });

  it('scores programs in the sandbox child (isolated-vm)', async () => {
    const { stdout } = await wapii('score', '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--codes', path.join(REPO_ROOT, 'datasets', 'demo-runs', 'demo-7b-constrained'), '--json');
    const scored = JSON.parse(stdout) as { samples: Record<string, { sample_verdict: string }>; statistics: Record<string, number> };
    expect(Object.keys(scored.samples)).toHaveLength(32);
    expect(scored.statistics['samples_correct_wrt_total']).toBeGreaterThan(0);
    expect(stdout).not.toMatch(/crashed/);
  });

  it('serves the demo, imports on its worker and reads a GGUF header on its worker (node-llama-cpp)', async () => {
    const dir = tempDir();
    const model = path.join(dir, 'tiny.gguf');
    await wapii('make-test-model', '--vocab', 'qwen2', '--out', model);
    const child = spawn(process.execPath, [BUILT, '--db', path.join(dir, 'w.db'), 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    try {
      const openUrl = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          output += c.toString();
          const found = /at (http:\/\/\S+\/\?token=\S+)/.exec(output)?.[1];
          if (found) resolve(found);
        });
        child.stderr.on('data', (c: Buffer) => (output += c.toString()));
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
      });
      const url = new URL(openUrl);
      const client = createFetchClient({ baseUrl: url.origin, token: url.searchParams.get('token') ?? '' });
      expect((await client.listDatasets({})).map((d) => d.name)).toEqual(['demo', 'demo-multistep']);
      const dataset = readFileInput(DEMO_DATASET);
      const specs = await readSpecFolder(DEMO_SPECS);
      if (!dataset.ok || !specs.ok) throw new Error('the demo files did not read');
      await client.importDataset({ dataset: dataset.value, specs: specs.value, name: 'again' });
      expect(await client.listDatasets({})).toHaveLength(3);
      expect((await client.addModel({ path: model })).architecture).toBe('llama');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
