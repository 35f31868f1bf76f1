import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answersForUncovered, demoSubset, UNCOVERED_BY_SUBSET } from '../../test/support/demoSubset.js';
import { errorReply, safetyReply, samplesReply, startGeminiStandIn, textReply, type Reply, type SeenRequest } from '../../test/support/geminiStandIn.js';
import { DEMO_SPECS, tempDir } from '../../test/support/paths.js';
import type { WorkbenchApi } from '../api/contract.js';
import { environmentKeys } from './apiKeys.js';
import { mayCarryKey as mayReceiveKey } from '../providers/http.js';
import { jobStatusText } from '../api/constants.js';
import { localClient, readDemo, WorkbenchService } from './index.js';
import { Store } from '../store/index.js';

const KEY = 'AIzaSyStandInKey-0123456789-DO-NOT-LEAK';
const MODEL = 'gemini-2.5-pro';
const demo = readDemo(path.dirname(DEMO_SPECS));
const answers = answersForUncovered();
const good = (request: SeenRequest): Reply => samplesReply(request.asked.map((k) => answers.get(k)));

describe('synthesis against a stand-in for the Gemini API', () => {
  let dir: string;
  let store: Store;
  let service: WorkbenchService;
  let client: WorkbenchApi;
  let logs: string[];
  let responses: unknown[];
  let datasetId: number;
  let standIn: Awaited<ReturnType<typeof startGeminiStandIn>>;

  beforeEach(async () => {
    dir = tempDir('wapii-synth-');
    const opened = Store.open(path.join(dir, 'wapii.db'));
    if (!opened.ok) throw new Error(opened.error.message);
    store = opened.value;
    logs = [];
    responses = [];
    service = new WorkbenchService({
      store,
      author: 'tester',
      apiKeys: environmentKeys({ GEMINI_API_KEY: KEY }),
      // Short backoff: a test waits only as long as a Retry-After says.
      synthesisRetry: { retries: 4, minDelayMs: 10, maxDelayMs: 50, maxRetryAfterMs: 5000 },
      log: (m) => logs.push(m),
    });
    service.onEvent((e) => responses.push(e));
    const inner = localClient(service);
    // Every response a client (the renderer) gets is kept, to search it for the key.
    client = new Proxy(inner, {
      get: (target, method: keyof WorkbenchApi) => async (input: never) => {
        const out = await (target[method] as (i: never) => Promise<unknown>)(input);
        responses.push(out);
        return out;
      },
    });
    datasetId = (await client.importDataset({ name: 'subset', dataset: demoSubset(), specs: demo.specs })).id;
    standIn = await startGeminiStandIn({ key: KEY, model: MODEL, respond: good });
  });

  afterEach(async () => {
    await service.settle();
    await standIn.close();
    store.close();
    // The key appears nowhere: not in the database file (nor its WAL), the logs, any response or event.
    for (const file of fs.readdirSync(dir)) expect(fs.readFileSync(path.join(dir, file)).includes(KEY), file).toBe(false);
    expect(JSON.stringify(logs)).not.toContain(KEY);
    expect(JSON.stringify(responses)).not.toContain(KEY);
    for (const r of standIn.requests) expect(r.problems).toEqual([]);
  });

  it('asks for the uncovered endpoints in one request and stores each sample unreviewed, checked, with provenance and a correct ground truth', async () => {
    const job = await client.synthesize({ datasetId, provider: 'gemini', baseUrl: standIn.url, wait: true });
    expect(standIn.requests).toHaveLength(1);
    expect(standIn.requests[0]!.asked).toEqual(UNCOVERED_BY_SUBSET);
    expect(standIn.requests[0]!.prompt).toContain('title: Harbor Logistics API'); // the whole spec fits
    expect(job).toMatchObject({ status: 'finished', provider: 'gemini', model: MODEL, counts: { endpoints: 7, done: 7, failed: 0, pending: 0, samples: 7 } });
    expect(job.usage).toMatchObject({ requests: 1, retries: 0, inputTokens: 1000 });
    expect(job.costUsd).toBeGreaterThan(0);
    const samples = await client.listSamples({ datasetId, filter: {} });
    const made = samples.filter((s) => s.provenance);
    expect(made).toHaveLength(7);
    for (const s of made) {
      expect(s).toMatchObject({ reviewState: 'unreviewed', checkStatus: 'ok', findings: [] });
      expect(s.config.headers?.['Accept']).toBe('application/json, text/plain, */*');
      expect(s.provenance).toMatchObject({ jobId: job.id, provider: 'gemini', model: MODEL, groundTruth: { verdict: 'correct' } });
      expect(s.provenance!.promptHash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.parse(s.provenance!.rawAnswer)).toHaveProperty('samples');
      expect(Date.parse(s.provenance!.createdAt)).not.toBeNaN();
    }
    expect(made.map((s) => s.provenance!.endpoint)).toEqual(UNCOVERED_BY_SUBSET);
    expect((await client.getCoverage({ datasetId })).apis[0]).toMatchObject({ covered: 22, total: 22 });
  });

  it('retries a 429 after its Retry-After and a 500 twice; records a truncated answer, a safety block and a sample for an endpoint not asked for, stores nothing of them, and a resume asks only for those', async () => {
    const seenPerEndpoint = new Map<string, number>();
    standIn.respond.current = (request) => {
      const key = request.asked[0]!;
      const n = seenPerEndpoint.get(key) ?? 0;
      seenPerEndpoint.set(key, n + 1);
      const answer = answers.get(key)!;
      switch (key) {
        case 'GET /carriers':
          return n === 0 ? errorReply(429, 'Resource has been exhausted (e.g. check quota).', { 'retry-after': '1' }) : good(request);
        case 'GET /carriers/{carrier_code}/rates':
          return n < 2 ? errorReply(500, 'An internal error has occurred.') : good(request);
        case 'GET /webhooks':
          return textReply(JSON.stringify({ samples: [answer] }).slice(0, 60));
        case 'POST /webhooks':
          return safetyReply();
        case 'DELETE /webhooks/{webhook_id}':
          return samplesReply([answer, { task: 'Get my account.', config: { url: 'https://api.harbor.example/v2/me', method: 'get', headers: { Authorization: 'Bearer <token>' } } }]);
        default:
          return good(request);
      }
    };
    const before = store.counts();
    const job = await client.synthesize({ datasetId, provider: 'gemini', baseUrl: standIn.url, batchSize: 1, concurrency: 3, wait: true });
    const byKey = new Map(job.endpoints.map((e) => [e.endpoint, e]));
    expect(job).toMatchObject({ status: 'finished', counts: { endpoints: 7, done: 4, failed: 3, samples: 4 } });
    expect(job.usage.retries).toBe(3);
    expect(byKey.get('GET /carriers')).toMatchObject({ status: 'done', samples: 1 });
    expect(byKey.get('GET /carriers/{carrier_code}/rates')).toMatchObject({ status: 'done', samples: 1 });
    const carriers = standIn.requests.filter((r) => r.asked[0] === 'GET /carriers');
    expect(carriers).toHaveLength(2);
    expect(carriers[1]!.at - carriers[0]!.at).toBeGreaterThanOrEqual(1000); // Retry-After: 1 was honoured
    expect(standIn.requests.filter((r) => r.asked[0] === 'GET /carriers/{carrier_code}/rates')).toHaveLength(3);
    expect(byKey.get('GET /webhooks')).toMatchObject({ status: 'failed', failure: 'truncated', rawAnswer: JSON.stringify({ samples: [answers.get('GET /webhooks')] }).slice(0, 60) });
    expect(byKey.get('POST /webhooks')).toMatchObject({ status: 'failed', failure: 'blocked', message: expect.stringContaining('SAFETY') });
    expect(byKey.get('DELETE /webhooks/{webhook_id}')).toMatchObject({ status: 'failed', failure: 'unasked_endpoint', message: expect.stringContaining('GET /me') });
    expect(byKey.get('DELETE /webhooks/{webhook_id}')!.rawAnswer).toContain('Delete webhook wh_hook_9');
    // Nothing partial: 4 samples, one per endpoint that succeeded, none from a failed answer.
    const after = store.counts();
    expect(after['samples']! - before['samples']!).toBe(4);
    expect(store.synthesis.counts()['sample_provenance']).toBe(4);
    const made = (await client.listSamples({ datasetId, filter: {} })).filter((s) => s.provenance);
    expect(made.map((s) => s.provenance!.endpoint).sort()).toEqual(['GET /carriers', 'GET /carriers/{carrier_code}/rates', 'GET /reports/{report_id}', 'POST /reports']);

    const asked = standIn.requests.length;
    standIn.respond.current = good;
    const resumed = await client.resumeSynthesis({ jobId: job.id, wait: true });
    expect(standIn.requests.slice(asked).map((r) => r.asked[0]).sort()).toEqual(['DELETE /webhooks/{webhook_id}', 'GET /webhooks', 'POST /webhooks']);
    expect(resumed).toMatchObject({ status: 'finished', counts: { done: 7, failed: 0, samples: 7 } });
    expect((await client.getCoverage({ datasetId })).apis[0]).toMatchObject({ covered: 22 });
  });

  it('sends the key only to the provider or a server on this machine: another base URL is refused before anything is stored or sent', async () => {
    const before = store.counts();
    await expect(client.synthesize({ datasetId, provider: 'gemini', baseUrl: 'http://203.0.113.7:8080/', wait: true })).rejects.toMatchObject({
      code: 'bad_input',
      message: 'the Gemini key is sent only to https://generativelanguage.googleapis.com or a server on this machine, not to http://203.0.113.7:8080',
    });
    expect(store.counts()).toEqual(before);
    expect(standIn.requests).toHaveLength(0);
    expect(mayReceiveKey('https://generativelanguage.googleapis.com', 'generativelanguage.googleapis.com')).toBe(true);
    expect(mayReceiveKey('http://generativelanguage.googleapis.com', 'generativelanguage.googleapis.com')).toBe(false);
    expect(mayReceiveKey('http://127.0.0.1:9/v1', 'api.openai.com')).toBe(true);
    expect(mayReceiveKey('http://[::1]:9/v1', 'api.openai.com')).toBe(true);
    expect(mayReceiveKey('https://api.openai.com.evil.example/v1', 'api.openai.com')).toBe(false);
    expect(mayReceiveKey('not a url', 'api.openai.com')).toBe(false);
  });

  it('an invalid key or a missing one ends as one line naming what to do; nothing is stored', async () => {
    standIn.respond.current = () => errorReply(400, 'API key not valid. Please pass a valid API key.');
    const job = await client.synthesize({ datasetId, provider: 'gemini', baseUrl: standIn.url, endpoints: ['GET /carriers'], wait: true });
    expect(job.endpoints[0]).toMatchObject({ status: 'failed', failure: 'provider_error', message: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/v1beta\/models\/gemini-2\.5-pro:generateContent answered 400: API key not valid\. Please pass a valid API key\.$/) });
    // Every endpoint failed: the job reads failed, not finished.
    expect(job.status).toBe('failed');
    expect(standIn.requests).toHaveLength(1); // a 400 is not retried
    expect(store.counts()).toMatchObject({ samples: 21 });
    expect(store.synthesis.counts()).toMatchObject({ sample_provenance: 0 });
    const keyless = new WorkbenchService({ store, apiKeys: environmentKeys({}) });
    await expect(localClient(keyless).synthesize({ datasetId, provider: 'gemini', baseUrl: standIn.url })).rejects.toThrow('no Gemini API key: set GEMINI_API_KEY or GOOGLE_API_KEY');
    await expect(client.synthesize({ datasetId, provider: 'gemini', endpoints: ['GET /nowhere'] })).rejects.toThrow(/no endpoint "GET \/nowhere" in the spec of harbor/);
    expect(await client.getApiKeyStatus({})).toEqual([{ provider: 'openai', set: false, source: 'none' }, { provider: 'anthropic', set: false, source: 'none' }, { provider: 'gemini', set: true, source: 'environment' }, { provider: 'openai-compatible', set: false, source: 'none' }]);
    await expect(client.saveApiKey({ provider: 'gemini', key: KEY })).rejects.toThrow(/read from the environment here/);
  });

  it('never follows a redirect to another origin with the key: the call fails naming that origin, and the other server sees nothing', async () => {
    const other = http.createServer((req, res) => {
      otherSaw.push(req.headers);
      res.end('{}');
    });
    const otherSaw: http.IncomingHttpHeaders[] = [];
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      standIn.respond.current = (request) => ({ status: 307, headers: { location: `${otherUrl}${request.path}` }, body: {} });
      const job = await client.synthesize({ datasetId, provider: 'gemini', baseUrl: standIn.url, endpoints: ['GET /carriers'], wait: true });
      expect(otherSaw).toEqual([]);
      expect(standIn.requests).toHaveLength(1); // refused, not retried
      expect(job.endpoints[0]).toMatchObject({ status: 'failed', failure: 'provider_error', message: expect.stringContaining(`a redirect to ${otherUrl}; a request carrying a key never leaves its origin`) });
      expect(job.status).toBe('failed');
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
  });

  it('keeps at most the asked number of samples from an answer that gives more, and says how many it dropped', async () => {
    const answer = answers.get('GET /carriers')!;
    const copies = Array.from({ length: 301 }, (_, i) => ({ ...answer, task: `${answer.task} (${i})` }));
    standIn.respond.current = () => samplesReply(copies);
    const before = store.counts();
    const job = await client.synthesize({ datasetId, provider: 'gemini', baseUrl: standIn.url, endpoints: ['GET /carriers'], wait: true });
    expect(job).toMatchObject({ status: 'finished', counts: { done: 1, failed: 0, samples: 1 } });
    expect(job.endpoints[0]).toMatchObject({ status: 'done', samples: 1, message: 'the answer gave 301 samples; kept the 1 asked for, dropped 300' });
    expect(store.counts()['samples']! - before['samples']!).toBe(1);
    expect(logs.join('\n')).toContain('dropped 300 samples beyond the 1 asked for');
  });

  it('a job with some endpoints failed reads "finished with N errors" and Retry errors asks only for those', async () => {
    standIn.respond.current = (request) => (request.asked[0] === 'GET /webhooks' || request.asked[0] === 'POST /webhooks' ? safetyReply() : good(request));
    const job = await client.synthesize({ datasetId, provider: 'gemini', baseUrl: standIn.url, batchSize: 1, concurrency: 2, wait: true });
    expect(job).toMatchObject({ status: 'finished', counts: { done: 5, failed: 2 } });
    expect(jobStatusText(job)).toBe('finished with 2 errors');
    const asked = standIn.requests.length;
    standIn.respond.current = good;
    const retried = await client.resumeSynthesis({ jobId: job.id, wait: true });
    expect(standIn.requests.slice(asked).map((r) => r.asked[0]).sort()).toEqual(['GET /webhooks', 'POST /webhooks']);
    expect(jobStatusText(retried)).toBe('finished');
  });

  it('cancels a running job; its open endpoints stay for a resume', async () => {
    standIn.respond.current = (request) => (request.asked[0] === 'GET /carriers' ? good(request) : { hang: true });
    const job = await client.synthesize({ datasetId, provider: 'gemini', baseUrl: standIn.url, batchSize: 1, concurrency: 1, wait: false });
    expect(job.status).toBe('running');
    while (standIn.requests.length < 2) await new Promise((r) => setTimeout(r, 20));
    const cancelled = await client.cancelSynthesis({ jobId: job.id });
    await service.settle();
    expect((await client.getSynthesisJob({ jobId: cancelled.id })).status).toBe('cancelled');
    expect((await client.getSynthesisJob({ jobId: job.id })).counts).toMatchObject({ done: 1, pending: 6, samples: 1 });
  });

  it('a job another live process runs shows running, and is neither resumed nor cancelled here; once that process is gone it is interrupted and resumes', async () => {
    standIn.respond.current = () => ({ hang: true });
    const job = await client.synthesize({ datasetId, provider: 'gemini', baseUrl: standIn.url, batchSize: 1, concurrency: 1, wait: false });
    while (standIn.requests.length < 1) await new Promise((r) => setTimeout(r, 20));
    await client.cancelSynthesis({ jobId: job.id });
    await service.settle();
    // Another workbench process sharing the database resumes the job (and is held there).
    const storeModule = fileURLToPath(new URL('../store/index.ts', import.meta.url));
    const script = `const { Store } = await import(${JSON.stringify(storeModule)}); const r = Store.open(${JSON.stringify(path.join(dir, 'wapii.db'))}); if (!r.ok || !r.value.synthesis.claim(${job.id}, () => true).ok) process.exit(1); process.stdout.write('claimed\\n'); setInterval(() => {}, 1000);`;
    const other = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await once(other.stdout, 'data');
      expect((await client.getSynthesisJob({ jobId: job.id })).status).toBe('running');
      await expect(client.resumeSynthesis({ jobId: job.id, wait: true })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('running already') });
      await expect(client.cancelSynthesis({ jobId: job.id })).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('another process') });
    } finally {
      other.kill('SIGKILL');
      await once(other, 'exit');
    }
    expect((await client.getSynthesisJob({ jobId: job.id })).status).toBe('interrupted');
    standIn.respond.current = good;
    const resumed = await client.resumeSynthesis({ jobId: job.id, wait: true });
    expect(resumed).toMatchObject({ status: 'finished', counts: { pending: 0, failed: 0 } });
  });
});
