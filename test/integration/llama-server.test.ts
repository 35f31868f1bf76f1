import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../main/api/result.js';
import { runCli } from '../../main/cli/program.js';
import { ConstraintMatcher, declaredNames } from '../../main/constraints/index.js';
import { cachedTestModel } from '../../main/generation/index.js';
import { Store } from '../../main/store/index.js';
import { tempDir, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';
import { hasVocabBundle } from '../support/vocab.js';
import { loadWapiiBench } from '../support/wapiibench.js';

/** The llama-server scripts/build-llama-server.sh built on this machine (or $WAPII_LLAMA_SERVER), if any. */
function llamaServerBinary(): string | undefined {
  const named = process.env['WAPII_LLAMA_SERVER'];
  if (named) return fs.existsSync(named) ? named : undefined;
  const cache = process.env['WAPII_LLAMA_SERVER_CACHE'] ?? path.join(process.env['XDG_CACHE_HOME'] ?? path.join(os.homedir(), '.cache'), 'wapii', 'llama-server');
  if (!fs.existsSync(cache)) return undefined;
  for (const commit of fs.readdirSync(cache)) {
    const bin = path.join(cache, commit, 'llama-server');
    if (fs.existsSync(bin)) return bin;
  }
  return undefined;
}

const binary = llamaServerBinary();
if (!binary) console.warn('llama-server.test: skipped — no llama-server on this machine; build it with scripts/build-llama-server.sh (.ci/run does), or set WAPII_LLAMA_SERVER');

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Until /health answers 200 (the model is loaded), or the process exits. */
async function ready(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`llama-server exited with ${child.exitCode}: ${log().slice(-2000)}`);
    try {
      if ((await fetch(`${url}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`llama-server did not become ready: ${log().slice(-2000)}`);
}

/**
 * Whether the matcher's refusal at `offset` is one GBNF cannot express: an object closed before its
 * required keys, or a key its object already has (the key around `offset` spelled earlier as a key).
 */
function setSemantics(text: string, offset: number): boolean {
  if (text[offset] === '}') return true;
  const keyStart = Math.max(text.lastIndexOf('{', offset), text.lastIndexOf(',', offset)) + 1;
  const key = /^\s*["']?([A-Za-z_$][\w$-]*)/.exec(text.slice(keyStart))?.[1];
  if (key === undefined) return false;
  const escaped = key.replace(/\$/g, '\\$');
  return new RegExp(`[{,]\\s*["']?${escaped}["']?\\s*:`).test(text.slice(0, keyStart));
}

/**
 * `wapii run --remote` against a real llama-server (built from the llama.cpp source node-llama-cpp
 * ships) on a random-weight model, constrained through the exported GBNF: llama.cpp's grammar
 * sampler keeps every token inside the grammar, so every output must be legal whatever the model
 * says, and the workbench's own matcher must accept it.
 */
describe.skipIf(!binary || !hasVocabBundle)('wapii run --remote against a real llama-server', () => {
  let child: ChildProcess;
  let url: string;
  let output = '';
  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    child = spawn(binary!, ['-m', cachedTestModel('qwen2'), '--host', '127.0.0.1', '--port', String(port), '-c', '4096', '-np', '1', '-t', '1', '--no-webui'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    await ready(url, child, () => output);
  }, 150_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });

  it('constrained full completion at temperature 1: every output legal under the spec and in the matcher\'s language but for set semantics (required or repeated keys)', async () => {
    const db = path.join(tempDir(), 'remote.db');
    // 12 samples spread over the four APIs, as a dataset file of their own.
    const all = JSON.parse(fs.readFileSync(WAPIIBENCH_ALL, 'utf8')) as unknown[];
    const picked = Array.from({ length: 12 }, (_, i) => all[Math.floor((i * all.length) / 12)]);
    const dataset = path.join(path.dirname(db), 'picked.json');
    fs.writeFileSync(dataset, JSON.stringify(picked));
    let stdout = '';
    let stderr = '';
    const started = performance.now();
    const code = await runCli(['--db', db, 'run', '--remote', url, '--dataset', dataset, '--specs', WAPIIBENCH_SPECS, '--setting', 'constrained', '--setup', 'full', '--temperature', '1', '--max-tokens', '96', '--json'], {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
    });
    const seconds = (performance.now() - started) / 1000;
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as { run: number; statistics: Record<string, number> };
    const store = unwrap(Store.open(db));
    const run = store.getRun(report.run)!;
    store.close();
    expect(run.samples).toHaveLength(12);
    expect(run.samples.filter((s) => s.error !== undefined).map((s) => s.error)).toEqual([]);
    const { specs } = await loadWapiiBench();
    for (const s of run.samples) {
      // What the server generated (before any closing the backend appended) stays inside the workbench's
      // language, but for the export's set-semantics relaxation (its header says so): GBNF cannot say
      // "each key once, the required ones before `}`", so the matcher may refuse a closing brace or a
      // key given twice, and nothing else.
      const prompt = s.prompt ?? '';
      const text = prompt + (s.rawOutput ?? '');
      const fed = ConstraintMatcher.create(specs.get(s.api)!, declaredNames(prompt)).feed(text);
      if (!fed.ok) expect(setSemantics(text, fed.offset), `#${s.index}: ${fed.reason} in ${JSON.stringify(s.rawOutput)}`).toBe(true);
    }
    expect(report.statistics['samples_illegal']).toBe(0);
    const tokens = run.samples.reduce((n, s) => n + ((s.generation as { tokens?: number } | undefined)?.tokens ?? 0), 0);
    const generateMs = run.samples.reduce((n, s) => n + ((s.generation as { generateMs?: number } | undefined)?.generateMs ?? 0), 0);
    console.log(
      `llama-server run: ${run.samples.length} outputs, ${report.statistics['samples_executable']} executable, ${report.statistics['samples_illegal']} illegal, ${report.statistics['samples_correct']} correct; ${tokens} tokens, ${((tokens / generateMs) * 1000).toFixed(1)} tokens/s per request, ${seconds.toFixed(1)} s in all`,
    );
  }, 600_000);
});
