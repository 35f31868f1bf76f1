import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answersForUncovered, demoSubset, UNCOVERED_BY_SUBSET } from '../../test/support/demoSubset.js';
import { samplesReply, startGeminiStandIn, type Reply, type SeenRequest } from '../../test/support/geminiStandIn.js';
import { DEMO_SPECS, REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { unwrap } from '../api/result.js';
import { Store } from '../store/index.js';
import { runCli } from './program.js';

const KEY = 'AIzaSyCliStandInKey-9876543210-DO-NOT-LEAK';
const answers = answersForUncovered();
const good = (request: SeenRequest): Reply => samplesReply(request.asked.map((k) => answers.get(k)));

function wapii(args: string[]): { child: ReturnType<typeof spawn>; output: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), ...args], { env: { ...process.env, GEMINI_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  return { child, output: () => output, exit: new Promise((resolve) => child.on('exit', (code) => resolve(code))) };
}

describe('wapii synthesize, killed and resumed', () => {
  const dir = tempDir('wapii-cli-synth-');
  const db = path.join(dir, 'wapii.db');
  const datasetFile = path.join(dir, 'subset.json');
  let standIn: Awaited<ReturnType<typeof startGeminiStandIn>>;
  const outputs: string[] = [];
  beforeAll(async () => {
    fs.writeFileSync(datasetFile, demoSubset().content);
    const io = { stdout: (t: string) => outputs.push(t), stderr: (t: string) => outputs.push(t) };
    expect(await runCli(['--db', db, 'import', datasetFile, '--specs', DEMO_SPECS, '--name', 'subset'], io)).toBe(0);
    standIn = await startGeminiStandIn({ key: KEY, model: 'gemini-2.5-pro', respond: good });
  });
  afterAll(() => standIn.close());

  it('a process killed with SIGKILL mid-job resumes without asking again for the endpoints it stored', async () => {
    // Three answers, then the fourth request hangs: the process is killed while it waits.
    standIn.respond.current = (request, index) => (index < 3 ? good(request) : { hang: true });
    const first = wapii(['--db', db, 'synthesize', '--dataset', 'subset', '--provider', 'gemini', '--base-url', standIn.url, '--batch-size', '1', '--concurrency', '1']);
    while (standIn.requests.length < 4) await new Promise((r) => setTimeout(r, 50));
    first.child.kill('SIGKILL');
    expect(await first.exit).toBe(null);
    outputs.push(first.output());
    const storedFirst = standIn.requests.slice(0, 3).map((r) => r.asked[0]);
    {
      using store = unwrap(Store.open(db));
      const [job] = store.synthesis.listJobs(undefined);
      expect(job).toMatchObject({ id: 1, status: 'interrupted', counts: { done: 3, pending: 4, samples: 3 } });
      expect(store.synthesis.counts()['sample_provenance']).toBe(3);
    }
    const asked = standIn.requests.length;
    standIn.respond.current = good;
    const second = wapii(['--db', db, 'synthesize', '--resume', '1', '--json']);
    expect(await second.exit).toBe(0);
    outputs.push(second.output());
    const resumedAsks = standIn.requests.slice(asked).map((r) => r.asked[0]);
    expect(resumedAsks).toHaveLength(4);
    for (const k of storedFirst) expect(resumedAsks).not.toContain(k);
    expect(JSON.parse(second.output().slice(second.output().indexOf('{')))).toMatchObject({ id: 1, status: 'finished', counts: { done: 7, samples: 7 } });
    for (const r of standIn.requests) expect(r.problems).toEqual([]);
  });

  it('list --json shows reviewState, checkStatus and provenance; export --review keeps only the states asked for', async () => {
    let stdout = '';
    const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => outputs.push(t) };
    expect(await runCli(['--db', db, 'list', 'subset', '--json'], io)).toBe(0);
    outputs.push(stdout);
    const samples = JSON.parse(stdout) as { id: string; reviewState: string; checkStatus: string; provenance?: { endpoint: string; provider: string; groundTruth: { verdict: string } } }[];
    expect(samples).toHaveLength(28);
    const made = samples.filter((s) => s.provenance);
    expect(made.map((s) => s.provenance!.endpoint).sort()).toEqual([...UNCOVERED_BY_SUBSET].sort());
    for (const s of made) expect(s).toMatchObject({ reviewState: 'unreviewed', checkStatus: 'ok', provenance: { provider: 'gemini', groundTruth: { verdict: 'correct' } } });

    {
      using store = unwrap(Store.open(db));
      const { WorkbenchService, localClient } = await import('../service/index.js');
      const client = localClient(new WorkbenchService({ store }));
      await client.reviewSamples({ datasetId: 1, sampleIds: [made[0]!.id, made[1]!.id], reviewState: 'accepted' });
      await client.editSample({ datasetId: 1, sampleId: made[2]!.id, task: 'Get report rep_311.', reason: 'fixed the id' });
      await client.reviewSamples({ datasetId: 1, sampleIds: [made[3]!.id], reviewState: 'rejected' });
    }
    const out = path.join(dir, 'reviewed.json');
    expect(await runCli(['--db', db, 'export', 'subset', '--out', out, '--review', 'accepted,fixed'], io)).toBe(0);
    const exported = JSON.parse(fs.readFileSync(out, 'utf8')) as { task: string }[];
    expect(exported).toHaveLength(3);
    expect(exported.map((s) => s.task)).toContain('Get report rep_311.');
    stdout = '';
    expect(await runCli(['--db', db, 'export', 'subset', '--out', out, '--review', 'accepted,maybe'], io)).toBe(1);
  });

  it('the key appears in no output and not in the database file', () => {
    expect(outputs.join('')).not.toContain(KEY);
    for (const file of fs.readdirSync(dir)) expect(fs.readFileSync(path.join(dir, file)).includes(KEY), file).toBe(false);
  });
});
