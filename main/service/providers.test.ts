import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WorkbenchApi } from '../api/contract.js';
import type { Sample } from '../api/schemas.js';
import { oracleProgram } from '../prompt/index.js';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { startHostedStandIn, STAND_IN_VERSIONS, type HostedKind, type HostedReply, type HostedRequest } from '../../test/support/hostedStandIn.js';
import { startCompletionStandIn } from '../../test/support/completionStandIn.js';
import { environmentKeys } from './apiKeys.js';
import { localClient, openWorkbench, readDemo, type Workbench } from './index.js';

const demo = readDemo(REPO_ROOT);
const KEY = 'sk-test-SECRET-4f9a1c-never-stored';
const ENV: Record<HostedKind, string> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY', gemini: 'GEMINI_API_KEY' };
const MODEL: Record<HostedKind, string> = { openai: 'gpt-4o', anthropic: 'claude-haiku-4-5', gemini: 'gemini-2.5-flash' };

interface Bench {
  workbench: Workbench;
  client: WorkbenchApi;
  datasetId: number;
  samples: Sample[];
  db: string;
}

async function open(keys: Record<string, string>, prices?: Record<string, unknown>, timeoutMs = 5000, db = path.join(tempDir(), 'w.db')): Promise<Bench> {
  const dir = path.dirname(db);
  if (prices) fs.writeFileSync(path.join(dir, 'prices.json'), JSON.stringify(prices));
  const workbench = openWorkbench({
    db,
    author: 'tester',
    apiKeys: environmentKeys(keys),
    evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu', batchPollMs: 20, providerTimeoutMs: timeoutMs, providerRetry: { retries: 2, minDelayMs: 20, maxDelayMs: 50, maxRetryAfterMs: 5000 } },
  });
  const seeded = await workbench.service.seedIfEmpty(demo);
  if (!seeded.ok) throw new Error(seeded.error.message);
  const client = localClient(workbench.service);
  const datasetId = (await client.listDatasets({}))[0]!.id;
  return { workbench, client, datasetId, samples: workbench.store.listSamples(datasetId), db };
}

/** The sample a prompt asks about (its task is in the prompt). */
const sampleOf = (samples: readonly Sample[], prompt: string): Sample => {
  const found = samples.find((s) => prompt.includes(s.task));
  if (!found) throw new Error(`no sample in prompt ${prompt.slice(0, 80)}`);
  return found;
};

/**
 * The scripted model: the ground-truth call for even sample positions, a call to a path the spec
 * lacks for odd ones; as a fenced program (OpenAI, Gemini) or as the continuation of the
 * prefilled starter (Anthropic).
 */
function script(samples: readonly Sample[], kind: HostedKind): (r: HostedRequest) => HostedReply {
  return (r) => {
    const sample = sampleOf(samples, r.prompt);
    const position = samples.indexOf(sample);
    const oracle = oracleProgram(sample, 'full');
    const completion = position % 2 === 0 ? oracle.completion.replace(/\n\n[\s\S]*$/, '') : "get('https://api.harbor.example/v2/no-such-path').then(r => r);";
    if (kind === 'anthropic') return { text: `${completion}\n\`\`\`\nThat makes the request.` };
    return { text: `Here is the program:\n\n\`\`\`javascript\n${oracle.starter}${completion}\n\`\`\`\n` };
  };
}

const waitFor = async (what: () => Promise<boolean> | boolean, ms = 60_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
};

let logged = '';
beforeEach(() => {
  logged = '';
  for (const method of ['log', 'error', 'warn', 'info'] as const) vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void (logged += args.map(String).join(' ') + '\n'));
});
afterEach(() => vi.restoreAllMocks());

describe.each(['openai', 'anthropic', 'gemini'] as const)('a run on a hosted %s model (local stand-in)', (kind) => {
  it("sends the provider's auth header, model and message shape; the run's statistics are what the script implies; the key is nowhere", async () => {
    const b = await open({ [ENV[kind]]: KEY });
    const server = await startHostedStandIn({ kind, key: KEY, model: MODEL[kind], reply: (r) => script(b.samples, kind)(r) });
    try {
      const { runId } = await b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: kind, model: MODEL[kind], baseUrl: server.url } }, subset: { limit: 8 } });
      await b.workbench.service.evaluation.jobs.idle();
      const run = await b.client.getRun({ runId });
      expect(run.error).toBeNull();
      expect(run.status).toBe('finished');
      expect(run.prompt).toBe('chat');
      // Four of the eight samples get the right call, four a path the spec lacks.
      expect(run.statistics).toMatchObject({ samples_total: 8, samples_correct: 4 });
      expect(server.received).toHaveLength(8);
      for (const r of server.received) expect(r.problems).toEqual([]);
      if (kind === 'anthropic') for (const r of server.received) expect(r.prefill).toMatch(/^```javascript\n[\s\S]*axios\.$/);
      // The model version the provider answered with, request ids, tokens and cost per output and per run.
      expect(run.manifest).toMatchObject({ provider: kind, model: MODEL[kind], usage: { outputs: 8, modelVersions: [STAND_IN_VERSIONS[kind]] } });
      expect((run.manifest?.['usage'] as { costUsd: number }).costUsd).toBeGreaterThan(0);
      const detail = await b.client.getRunSample({ runId, index: 0 });
      expect(detail.sample_verdict).toBe('correct');
      const stored = b.workbench.store.getRun(runId)!.samples.find((s) => s.index === 0)!.generation as { provider: { requestIds: string[]; modelVersion: string; costUsd: number } };
      expect(stored.provider.requestIds.length).toBeGreaterThan(0);
      expect(stored.provider.modelVersion).toBe(STAND_IN_VERSIONS[kind]);
      // The key: in no byte of the database, no log line, no export.
      b.workbench.store.close();
      for (const file of fs.readdirSync(path.dirname(b.db)).filter((f) => f.startsWith('w.db'))) expect(fs.readFileSync(path.join(path.dirname(b.db), file)).includes(KEY)).toBe(false);
      expect(logged).not.toContain(KEY);
    } finally {
      await server.close();
    }
  });
});

describe('hosted runs: limits, errors, cancel', () => {
  it('retries a 429 after its Retry-After and counts every output once', async () => {
    const b = await open({ OPENAI_API_KEY: KEY });
    const at: number[] = [];
    const server = await startHostedStandIn({ kind: 'openai', key: KEY, model: 'gpt-4o', reply: (r, n) => (at.push(Date.now()), n === 1 ? { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '1' } } : script(b.samples, 'openai')(r)) });
    try {
      const { runId } = await b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o', baseUrl: server.url, concurrency: 1 } }, subset: { limit: 3 } });
      await b.workbench.service.evaluation.jobs.idle();
      const run = await b.client.getRun({ runId });
      expect(run).toMatchObject({ status: 'finished', error: null, done: 3 });
      expect(server.received).toHaveLength(4);
      // The second request waited at least the second the server asked for.
      expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(1000);
    } finally {
      await server.close();
    }
  });

  it('a refused key: one line before anything is queued; a key refused mid-run ends the run failed with one line and counts no sample for it', async () => {
    const b = await open({ GEMINI_API_KEY: 'wrong-key' });
    const server = await startHostedStandIn({ kind: 'gemini', key: KEY, model: 'gemini-2.5-flash', reply: (r) => script(b.samples, 'gemini')(r) });
    try {
      await expect(b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'gemini', model: 'gemini-2.5-flash', baseUrl: server.url } }, subset: { limit: 3 } })).rejects.toThrow(/^gemini gemini-2\.5-flash: .*answered 401: invalid x-api-key \(check the API key\)$/);
      expect((await b.client.listRuns({})).filter((r) => !r.demo)).toEqual([]);
    } finally {
      await server.close();
    }
    const c = await open({ OPENAI_API_KEY: KEY });
    // The key is revoked after two answers (and the server echoes it back, which no error line repeats).
    const revoking = await startHostedStandIn({ kind: 'openai', key: KEY, model: 'gpt-4o', reply: (r, n) => (n <= 2 ? script(c.samples, 'openai')(r) : { status: 401, message: `Incorrect API key provided: ${KEY}`, code: 'invalid_api_key' }) });
    try {
      const { runId } = await c.client.startRun({ datasetId: c.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o', baseUrl: revoking.url, concurrency: 1 } }, subset: { limit: 6 } });
      await c.workbench.service.evaluation.jobs.idle();
      const run = await c.client.getRun({ runId });
      expect(run.status).toBe('failed');
      expect(run.error).toMatch(/^[^\n]*answered 401: Incorrect API key provided: <key> \(check the API key\)$/);
      expect(run.done).toBe(2);
      expect(c.workbench.store.getRun(runId)!.samples.filter((s) => s.error !== undefined)).toEqual([]);
    } finally {
      await revoking.close();
    }
  });

  it('a spent quota (429 insufficient_quota) is not retried: the run fails with that line', async () => {
    const b = await open({ OPENAI_API_KEY: KEY });
    const server = await startHostedStandIn({ kind: 'openai', key: KEY, model: 'gpt-4o', reply: () => ({ status: 429, message: 'You exceeded your current quota, please check your plan and billing details.', code: 'insufficient_quota' }) });
    try {
      const { runId } = await b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o', baseUrl: server.url, concurrency: 1 } }, subset: { limit: 4 } });
      await b.workbench.service.evaluation.jobs.idle();
      const run = await b.client.getRun({ runId });
      expect(run.status).toBe('failed');
      expect(run.error).toMatch(/exceeded your current quota/);
      expect(server.received).toHaveLength(1);
    } finally {
      await server.close();
    }
  });

  it('cancel during a stalled request answers within a second; the run is cancelled, nothing stored for the stalled sample, and the queue goes on', async () => {
    const b = await open({ ANTHROPIC_API_KEY: KEY }, undefined, 600_000);
    const server = await startHostedStandIn({ kind: 'anthropic', key: KEY, model: 'claude-haiku-4-5', reply: () => ({ hang: true }) });
    try {
      const { runId } = await b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'anthropic', model: 'claude-haiku-4-5', baseUrl: server.url } }, subset: { limit: 4 } });
      await waitFor(() => server.received.length >= 1);
      const started = Date.now();
      const summary = await b.client.cancelRun({ runId });
      expect(Date.now() - started).toBeLessThan(1000);
      expect(summary.status).toBe('cancelled');
      expect(b.workbench.store.getRun(runId)!.samples).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('a request with no answer times out; a run whose every output failed ends failed, one with some errors "finished with N errors"', async () => {
    const b = await open({ OPENAI_API_KEY: KEY }, undefined, 300);
    let stall = true;
    const server = await startHostedStandIn({ kind: 'openai', key: KEY, model: 'gpt-4o', reply: (r) => (stall || sampleOf(b.samples, r.prompt) === b.samples[1] ? { hang: true } : script(b.samples, 'openai')(r)) });
    try {
      const first = await b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o', baseUrl: server.url } }, subset: { limit: 2 } });
      await b.workbench.service.evaluation.jobs.idle();
      const failed = await b.client.getRun({ runId: first.runId });
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatch(/^all 2 outputs failed; the first: .*did not answer within 0\.3 s$/);
      stall = false;
      const second = await b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o', baseUrl: server.url } }, subset: { limit: 3 } });
      await b.workbench.service.evaluation.jobs.idle();
      const partly = await b.client.getRun({ runId: second.runId });
      expect(partly.status).toBe('finished');
      expect(partly.error).toMatch(/^finished with 1 errors; the first: /);
    } finally {
      await server.close();
    }
  });

  it('a remote endpoint where nothing listens is refused before queueing, in one line', async () => {
    const b = await open({});
    await expect(b.client.startRun({ datasetId: b.datasetId, model: { remote: { url: 'http://127.0.0.1:9', model: 'm' } }, subset: { limit: 2 } })).rejects.toThrow(/^openai-compatible m: cannot reach http:\/\/127\.0\.0\.1:9\/v1\/models/);
    await expect(b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o' } }, subset: { limit: 2 } })).rejects.toThrow(/^no OpenAI API key: set OPENAI_API_KEY/);
    expect((await b.client.listRuns({})).filter((r) => !r.demo)).toEqual([]);
  });

  it('a key is not sent across a redirect, nor to a non-loopback http origin', async () => {
    const b = await open({ OPENAI_API_KEY: KEY });
    const elsewhere = await startCompletionStandIn(() => ({ text: 'x' }));
    const server = await startHostedStandIn({ kind: 'openai', key: KEY, model: 'gpt-4o', reply: () => ({ redirect: `${elsewhere.url}/v1/chat/completions` }) });
    try {
      const { runId } = await b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o', baseUrl: server.url } }, subset: { limit: 2 } });
      await b.workbench.service.evaluation.jobs.idle();
      const run = await b.client.getRun({ runId });
      expect(run.status).toBe('failed');
      expect(run.error).toMatch(/answered 307, a redirect to http:\/\/127\.0\.0\.1:\d+; a request carrying a key never leaves its origin/);
      expect(elsewhere.received).toEqual([]);
      await expect(b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o', baseUrl: 'http://api.example.com/v1' } }, subset: { limit: 2 } })).rejects.toThrow(/the OpenAI key is sent only to https:\/\/api\.openai\.com or a server on this machine/);
    } finally {
      await server.close();
      await elsewhere.close();
    }
  });

  it('prices: an estimate before queueing, cost per output and run, and a spending cap that stops the run', async () => {
    const b = await open({ OPENAI_API_KEY: KEY }, { 'openai/gpt-4o': { input: 1000, output: 1000 } });
    const server = await startHostedStandIn({ kind: 'openai', key: KEY, model: 'gpt-4o', reply: () => ({ text: '```javascript\naxios.get("x")\n```', inputTokens: 100, outputTokens: 100 }) });
    try {
      const preview = await b.client.previewRun({ datasetId: b.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o', baseUrl: server.url, spendingCapUsd: 0.5 } }, subset: { limit: 10 }, sampling: { maxTokens: 100 } });
      // 10 outputs of at most 100 tokens at $1000 per million: $1 of output, plus the prompts.
      expect(preview.cost).toMatchObject({ outputTokens: 1000, capUsd: 0.5 });
      expect(preview.cost!.usd).toBeGreaterThan(1);
      expect(preview.estimate).toMatch(/at most about \$\d+\.\d\d .*; the run stops at \$0\.50/);
      // Each output costs $0.20: the cap of $0.50 is passed at the third.
      const { runId } = await b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o', baseUrl: server.url, spendingCapUsd: 0.5, concurrency: 1 } }, subset: { limit: 10 } });
      await b.workbench.service.evaluation.jobs.idle();
      const run = await b.client.getRun({ runId });
      expect(run.status).toBe('failed');
      expect(run.error).toMatch(/^stopped at the spending cap of \$0\.50 \(\$0\.6000 spent on 3 outputs\); raise the cap and resume$/);
      expect(run.done).toBe(3);
      expect(run.manifest?.['usage']).toMatchObject({ outputs: 3, inputTokens: 300, outputTokens: 300, costUsd: expect.closeTo(0.6, 6) });
    } finally {
      await server.close();
    }
  });
});

describe("OpenAI's Batch API", () => {
  it('one batch for the run: uploaded, polled, read back; the statistics are what the script implies, at the batch price', async () => {
    const prices = { 'openai/gpt-4o': { input: 2.5, output: 10, batchInput: 1.25, batchOutput: 5 } };
    const b = await open({ OPENAI_API_KEY: KEY }, prices);
    const server = await startHostedStandIn({ kind: 'openai', key: KEY, model: 'gpt-4o', batchPolls: 3, reply: (r) => script(b.samples, 'openai')(r) });
    try {
      const { runId } = await b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o', baseUrl: server.url, batch: true } }, subset: { limit: 6 } });
      await b.workbench.service.evaluation.jobs.idle();
      const run = await b.client.getRun({ runId });
      expect(run).toMatchObject({ status: 'finished', error: null, done: 6 });
      expect(run.statistics).toMatchObject({ samples_total: 6, samples_correct: 3 });
      expect(server.batches).toHaveLength(1);
      expect(server.batches[0]).toMatchObject({ lines: 6, problems: [] });
      expect(server.batches[0]!.polls).toBeGreaterThan(3);
      for (const r of server.received) expect(r.problems).toEqual([]);
      expect(run.manifest).toMatchObject({ batches: ['batch_1'], price: { batch: true } });
      const usage = run.manifest?.['usage'] as { inputTokens: number; outputTokens: number; costUsd: number };
      expect(usage.costUsd).toBeCloseTo((usage.inputTokens * 1.25 + usage.outputTokens * 5) / 1e6, 10);
    } finally {
      await server.close();
    }
  });

  it('cancelling a run whose batch is pending cancels the batch at OpenAI; its resume asks again for what the batch never answered', async () => {
    const b = await open({ OPENAI_API_KEY: KEY });
    const standIn = { kind: 'openai' as const, key: KEY, model: 'gpt-4o', batchPolls: Number.MAX_SAFE_INTEGER, reply: (r: HostedRequest) => script(b.samples, 'openai')(r) };
    const server = await startHostedStandIn(standIn);
    try {
      const { runId } = await b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o', baseUrl: server.url, batch: true } }, subset: { limit: 4 } });
      await waitFor(() => server.batches.length === 1 && server.batches[0]!.polls >= 2);
      const cancelled = await b.client.cancelRun({ runId });
      expect(cancelled.status).toBe('cancelled');
      // The stand-in received POST /v1/batches/batch_1/cancel: the batch is not left to run and be billed.
      expect(server.batches[0]).toMatchObject({ cancelRequests: 1, cancelled: true });
      expect((await b.client.getRun({ runId })).error).toBe('cancelled; finished outputs are kept; batch batch_1 cancelled at OpenAI');
      expect(b.workbench.store.getRun(runId)!.samples).toEqual([]);
      // Resumed: batch_1 ended cancelled with no answer, so the four requests go in a new batch.
      standIn.batchPolls = 0;
      await b.client.resumeRun({ runId });
      await b.workbench.service.evaluation.jobs.idle();
      expect(await b.client.getRun({ runId })).toMatchObject({ status: 'finished', done: 4, statistics: { samples_correct: 2 }, manifest: { batches: ['batch_1', 'batch_2'] } });
      expect(server.batches.map((x) => [x.id, x.lines, x.cancelRequests])).toEqual([
        ['batch_1', 4, 1],
        ['batch_2', 4, 0],
      ]);
    } finally {
      await server.close();
    }
  });

  it('a run interrupted while its batch is pending (the workbench stopped) leaves the batch running, and its resume reads it: nothing is submitted twice', async () => {
    let b = await open({ OPENAI_API_KEY: KEY });
    const standIn = { kind: 'openai' as const, key: KEY, model: 'gpt-4o', batchPolls: Number.MAX_SAFE_INTEGER, reply: (r: HostedRequest) => script(b.samples, 'openai')(r) };
    const server = await startHostedStandIn(standIn);
    try {
      const { runId } = await b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'openai', model: 'gpt-4o', baseUrl: server.url, batch: true } }, subset: { limit: 4 } });
      await waitFor(() => server.batches.length === 1 && server.batches[0]!.polls >= 2);
      await b.workbench.shutdown();
      expect(server.batches[0]).toMatchObject({ cancelRequests: 0, cancelled: false });
      // OpenAI finishes the batch meanwhile; the workbench opens again on the same database.
      standIn.batchPolls = 0;
      b = await open({ OPENAI_API_KEY: KEY }, undefined, 5000, b.db);
      expect(await b.client.getRun({ runId })).toMatchObject({ status: 'interrupted', manifest: { batches: ['batch_1'] } });
      await b.client.resumeRun({ runId });
      await b.workbench.service.evaluation.jobs.idle();
      expect(await b.client.getRun({ runId })).toMatchObject({ status: 'finished', done: 4, statistics: { samples_correct: 2 } });
      expect(server.batches).toHaveLength(1);
      expect(server.batches[0]!.cancelRequests).toBe(0);
    } finally {
      await b.workbench.shutdown();
      await server.close();
    }
  });
});

describe('listProviderModels', () => {
  it("lists each provider's models through its own API and key, for the New run page", async () => {
    const b = await open({ OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY, GEMINI_API_KEY: KEY });
    for (const kind of ['openai', 'anthropic', 'gemini'] as const) {
      const server = await startHostedStandIn({ kind, key: KEY, model: MODEL[kind], reply: () => ({ text: '' }) });
      try {
        expect(await b.client.listProviderModels({ provider: kind, baseUrl: server.url })).toEqual({ models: [MODEL[kind]] });
      } finally {
        await server.close();
      }
    }
    const server = await startCompletionStandIn(() => ({ text: '' }));
    try {
      expect(await b.client.listProviderModels({ provider: 'openai-compatible', baseUrl: server.url })).toEqual({ models: ['stand-in'] });
    } finally {
      await server.close();
    }
  });
});

describe('a run on a pool of OpenAI-compatible servers (stand-ins)', () => {
  it('one server goes away mid-run with requests in flight: the run still finishes every sample, each output naming its server', async () => {
    const b = await open({});
    const answer = (prompt: string): { text: string } => ({ text: oracleProgram(sampleOf(b.samples, prompt), 'full').completion.replace(/\n\n[\s\S]*$/, '') });
    const a = await startCompletionStandIn(async ({ prompt }) => (await new Promise((r) => setTimeout(r, 30)), answer(prompt)));
    let gone: Promise<void> | undefined;
    const dying = await startCompletionStandIn(({ prompt }, n) => {
      if (n <= 2) return answer(prompt);
      gone ??= dying.close();
      return new Promise(() => undefined);
    });
    try {
      const { runId } = await b.client.startRun({ datasetId: b.datasetId, model: { provider: { name: 'openai-compatible', model: 'stand-in', baseUrl: dying.url, pool: [a.url], concurrency: 2 } }, subset: { limit: 10 } });
      await b.workbench.service.evaluation.jobs.idle();
      await gone;
      const run = await b.client.getRun({ runId });
      expect(run).toMatchObject({ status: 'finished', error: null, done: 10, statistics: { samples_correct: 10 } });
      const servers = b.workbench.store.getRun(runId)!.samples.map((s) => (s.generation as { provider: { server: string } }).provider.server);
      expect(servers.filter((s) => s === dying.url)).toHaveLength(2);
      expect(servers.filter((s) => s === a.url)).toHaveLength(8);
      expect(run.manifest?.['usage']).toMatchObject({ servers: { [dying.url]: 2, [a.url]: 8 } });
    } finally {
      await a.close();
    }
  });
});
