import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostedStandIn, type HostedReply, type HostedRequest } from '../../test/support/hostedStandIn.js';
import { hasWapiiBench, tempDir, WAPIIBENCH_SPECS } from '../../test/support/paths.js';
import type { WorkbenchApi } from '../api/contract.js';
import type { SampleStep } from '../api/schemas.js';
import { runCli } from '../cli/program.js';
import { Store } from '../store/index.js';
import { environmentKeys } from './apiKeys.js';
import { localClient, WorkbenchService } from './index.js';

/**
 * Synthesis drafts multi-step samples from chains (issue 37 item 7): through the service, against
 * a local stand-in for the OpenAI chat API that checks what it receives — the chain answer's JSON
 * Schema, a prompt that names both operations of each chain — and answers drafts.
 */
const KEY = 'sk-chains-stand-in-0123456789-DO-NOT-LEAK';
const MODEL = 'gpt-4o';
const AUTH = { Authorization: 'Bearer <token>' };
/** chat.postMessage's answer as Slack's description requires it. */
const POSTED = { ok: true, channel: 'C0DEPLOY1', ts: '1700000000.000100', message: { type: 'message', text: 'Deploy finished', ts: '1700000000.000100', user: 'U0DEPLOYBOT', team: 'T0TEAM0001' } };
const post = (channel: string, text: string): SampleStep['config'] => ({ url: 'https://slack.com/api/chat.postMessage', method: 'post', headers: { ...AUTH, 'Content-Type': 'application/json' }, data: { channel, text } });

/** A good draft of the conversations.list chain: the channel the task names is the second of the list, its ID never in the task. */
const GOOD = {
  chain: 1,
  task: "Post 'Deploy finished' to the public channel named deploys.",
  steps: [
    {
      config: { url: 'https://slack.com/api/conversations.list', method: 'get', headers: AUTH, params: { types: 'public_channel' } },
      response: { status: 200, data: { ok: true, channels: [{ id: 'C0GENERAL1', name: 'general' }, { id: 'C0DEPLOY1', name: 'deploys' }] } },
    },
    { config: post('C0DEPLOY1', 'Deploy finished'), response: { status: 200, data: POSTED } },
  ],
};
/** A draft whose first response holds no channel ID at all: the chain's carried pointer points at nothing. */
const HOLLOW = {
  chain: 1,
  task: "Post 'Standup in 5' to the channel named standup that I am a member of.",
  steps: [
    { config: { url: 'https://slack.com/api/users.conversations', method: 'get', headers: AUTH }, response: { status: 200, data: { ok: true, channels: [] } } },
    { config: post('C0STANDUP', 'Standup in 5'), response: { status: 200, data: { ...POSTED, channel: 'C0STANDUP' } } },
  ],
};

/** What the stand-in checks in every request, beyond its provider shape: the chain answer schema and the chain instructions. */
function chainProblems(request: HostedRequest): string[] {
  const problems: string[] = [];
  const format = request.body['response_format'] as { type?: string; json_schema?: { name?: string; schema?: { properties?: { samples?: { items?: { properties?: Record<string, { items?: { required?: string[] } }>; required?: string[] } } } } } } | undefined;
  const item = format?.json_schema?.schema?.properties?.samples?.items;
  if (format?.type !== 'json_schema' || format.json_schema?.name !== 'wapiibench_chains') problems.push('no json_schema response format named wapiibench_chains');
  if (!item?.required?.includes('steps') || !item.required.includes('chain') || !item.properties?.['steps']?.items?.required?.includes('response')) problems.push('the answer schema does not ask for each step\'s config and response');
  const system = String((request.body['messages'] as { role: string; content: string }[])[0]?.content ?? '');
  if (!/the task must not state/.test(system) || !/Bearer <token>/.test(system)) problems.push('the system message is not the chain instructions');
  return problems;
}

describe.runIf(hasWapiiBench)('synthesis drafts multi-step samples from chains', () => {
  let dir: string;
  let store: Store;
  let service: WorkbenchService;
  let client: WorkbenchApi;
  let datasetId: number;
  let server: Awaited<ReturnType<typeof startHostedStandIn>>;
  let reply: (request: HostedRequest) => HostedReply;
  const logs: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    dir = tempDir('wapii-chains-');
    const opened = Store.open(path.join(dir, 'wapii.db'));
    if (!opened.ok) throw new Error(opened.error.message);
    store = opened.value;
    service = new WorkbenchService({ store, author: 'tester', apiKeys: environmentKeys({ OPENAI_API_KEY: KEY }), synthesisRetry: { retries: 0, minDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 }, log: (m) => logs.push(m) });
    client = localClient(service);
    const single = { api: 'slack', task: 'List the public channels.', config: { url: 'https://slack.com/api/conversations.list', method: 'get', headers: AUTH, params: { types: 'public_channel' } } };
    const slack = { filename: 'slack.yaml', content: fs.readFileSync(path.join(WAPIIBENCH_SPECS, 'slack.yaml'), 'utf8') };
    datasetId = (await client.importDataset({ name: 'chains', dataset: { filename: 'chains.json', content: JSON.stringify([single]) }, specs: [slack] })).id;
    server = await startHostedStandIn({
      kind: 'openai',
      key: KEY,
      model: MODEL,
      reply: (request) => {
        problems.push(...chainProblems(request));
        return reply(request);
      },
    });
  });

  afterAll(async () => {
    await service.settle();
    await server.close();
    store.close();
  });

  it('asks for chains by both operations, stores each draft unreviewed as a multi-step sample with its steps and carried, and a resume asks only for the chain left', async () => {
    // The first answer drafts the first chain and leaves the second out.
    reply = () => ({ text: JSON.stringify({ samples: [GOOD] }) });
    const job = await client.synthesize({ datasetId, provider: 'openai', model: MODEL, baseUrl: server.url, kind: 'chains', endpoints: ['POST /chat.postMessage'], maxChains: 2, batchSize: 2, wait: true });
    expect(server.received.filter((r) => r.method === 'POST')).toHaveLength(1);
    const [asked] = server.received.filter((r) => r.method === 'POST');
    // The prompt names the producer and the consumer operation of each chain, and where the value goes.
    expect(asked!.prompt).toContain('of the API "slack"');
    expect(asked!.prompt).toMatch(/^1\. GET \/conversations\.list \(conversations_list.*\) → POST \/chat\.postMessage \(chat_postMessage.*\): the second request's body property `channel` is the `id` of an item of a list in the first response \(status 200\), at JSON pointer \/channels\/\*\/id/m);
    expect(asked!.prompt).toMatch(/^2\. GET \/users\.conversations \(users_conversations.*\) → POST \/chat\.postMessage/m);
    expect(asked!.prompt).toContain('OpenAPI specification (the part these operations use)'); // Slack's whole spec does not fit
    const keys = ['GET /conversations.list → POST /chat.postMessage (data.channel ← /channels/*/id)', 'GET /users.conversations → POST /chat.postMessage (data.channel ← /channels/*/id)'];
    expect(job).toMatchObject({ status: 'finished', settings: { kind: 'chains', maxChains: 2, batchSize: 2 }, counts: { endpoints: 2, done: 1, failed: 1, samples: 1 } });
    expect(job.endpoints.map((e) => [e.endpoint, e.status, e.failure])).toEqual([
      [keys[0], 'done', undefined],
      [keys[1], 'failed', 'missing'],
    ]);
    expect(job.endpoints[1]!.message).toBe('the answer holds no sample for this chain');

    const queue = (await client.listSamples({ datasetId, filter: { reviewState: 'unreviewed' } })).filter((s) => s.provenance);
    expect(queue).toHaveLength(1);
    const [draft] = queue;
    const steps = draft!.fields?.['steps'] as unknown as SampleStep[];
    expect(draft).toMatchObject({ api: 'slack', task: GOOD.task, reviewState: 'unreviewed', checkStatus: 'ok', findings: [], provenance: { jobId: job.id, provider: 'openai', model: MODEL, endpoint: keys[0], groundTruth: { verdict: 'correct' } } });
    expect(steps).toHaveLength(2);
    expect(steps[0]).toEqual({ config: { ...GOOD.steps[0]!.config, headers: { ...AUTH, Accept: 'application/json, text/plain, */*' } }, response: GOOD.steps[0]!.response });
    // carried is filled from the chain, at the list item whose ID the second request sends.
    expect(steps[1]!.carried).toEqual({ 'data.channel': '0:/data/channels/1/id' });
    expect(steps[1]!.config).toEqual(draft!.config);
    expect(draft!.config).toMatchObject({ url: 'https://slack.com/api/chat.postMessage', method: 'post', data: { channel: 'C0DEPLOY1', text: 'Deploy finished' } });
    expect(JSON.parse(draft!.provenance!.rawAnswer)).toEqual({ samples: [GOOD] });

    // The resume asks for the chain left, alone; its answer's first response holds no channel ID.
    reply = () => ({ text: JSON.stringify({ samples: [HOLLOW] }) });
    const resumed = await client.resumeSynthesis({ jobId: job.id, wait: true });
    const again = server.received.filter((r) => r.method === 'POST');
    expect(again).toHaveLength(2);
    expect(again[1]!.prompt).toMatch(/^1\. GET \/users\.conversations \(users_conversations.*\) → POST \/chat\.postMessage/m);
    expect(again[1]!.prompt).not.toContain('GET /conversations.list (');
    expect(resumed).toMatchObject({ status: 'finished', counts: { done: 2, failed: 0, samples: 2 } });
    expect(problems).toEqual([]);
  });

  it('flags a draft whose carried pointer holds nothing (the checks, not a silent accept), and keeps it in the review queue', async () => {
    const queue = (await client.listSamples({ datasetId, filter: { reviewState: 'unreviewed' } })).filter((s) => s.provenance);
    const hollow = queue.find((s) => s.task === HOLLOW.task)!;
    expect(hollow).toMatchObject({ reviewState: 'unreviewed', checkStatus: 'flagged', provenance: { endpoint: 'GET /users.conversations → POST /chat.postMessage (data.channel ← /channels/*/id)' } });
    const steps = hollow.fields?.['steps'] as unknown as SampleStep[];
    expect(steps[1]!.carried).toEqual({ 'data.channel': '0:/data/channels/0/id' });
    expect(hollow.findings).toContainEqual({ rule: 'carried', step: 1, message: "step 1: carried data.channel ← 0:/data/channels/0/id: step 0's response holds nothing there" });
    expect(hollow.provenance!.groundTruth.verdict).not.toBe('correct');
    // Flagged drafts are listed as any flagged sample is.
    expect((await client.listSamples({ datasetId, filter: { checkStatus: 'flagged' } })).map((s) => s.id)).toContain(hollow.id);
  });

  it('`uncovered` leaves out the chains a multi-step sample of the dataset follows; `all` keeps them', async () => {
    reply = () => ({ hang: true });
    const followed = ['GET /conversations.list → POST /chat.postMessage (data.channel ← /channels/*/id)', 'GET /users.conversations → POST /chat.postMessage (data.channel ← /channels/*/id)'];
    const chainsOf = async (endpoints: 'uncovered' | 'all'): Promise<string[]> => {
      const job = await client.synthesize({ datasetId, provider: 'openai', model: MODEL, baseUrl: server.url, kind: 'chains', endpoints, maxChains: 200, concurrency: 1, wait: false });
      await client.cancelSynthesis({ jobId: job.id });
      await service.settle();
      return job.endpoints.map((e) => e.endpoint);
    };
    const all = await chainsOf('all');
    expect(all).toHaveLength(200);
    expect(all).toEqual(expect.arrayContaining(followed));
    const uncovered = await chainsOf('uncovered');
    for (const key of followed) expect(uncovered).not.toContain(key);
    expect(uncovered).toContain('GET /admin.conversations.search → POST /chat.postMessage (data.channel ← /channels/*/id)');
  });

  it('refuses a chain answer with a step to another operation, and an endpoint no chain has, in one line', async () => {
    reply = () => ({ text: JSON.stringify({ samples: [{ ...GOOD, steps: [GOOD.steps[0], { ...GOOD.steps[1], config: { ...GOOD.steps[1]!.config, url: 'https://slack.com/api/chat.update' } }] }] }) });
    const before = store.counts();
    const job = await client.synthesize({ datasetId, provider: 'openai', model: MODEL, baseUrl: server.url, kind: 'chains', endpoints: ['GET /conversations.list'], maxChains: 1, wait: true });
    expect(job.counts).toMatchObject({ endpoints: 1, failed: 1, samples: 0 });
    expect(job.endpoints[0]).toMatchObject({ failure: 'unasked_endpoint', message: expect.stringMatching(/^sample 0's step 1 is for POST \/chat\.update, not [A-Z]+ \/\S+ of chain 1$/) });
    expect(store.counts()['samples']).toBe(before['samples']);
    await expect(client.synthesize({ datasetId, provider: 'openai', model: MODEL, baseUrl: server.url, kind: 'chains', endpoints: ['GET /api.test'] })).rejects.toThrow('no chain found with "GET /api.test" in the spec of slack');
    expect(problems).toEqual([]);
    expect(JSON.stringify(logs)).not.toContain(KEY);
  });

  it('`wapii synthesize --chains N` asks for at most N chains per API and prints the chains job', async () => {
    reply = () => ({ text: JSON.stringify({ samples: [] }) });
    const asked = server.received.filter((r) => r.method === 'POST').length;
    let out = '';
    const io = { stdout: (t: string) => void (out += t), stderr: () => undefined };
    process.env['OPENAI_API_KEY'] = KEY;
    try {
      const args = ['--db', path.join(dir, 'wapii.db'), 'synthesize', '--dataset', 'chains', '--provider', 'openai', '--model', MODEL, '--base-url', server.url, '--chains', '1', '--endpoints', 'all', '--json'];
      expect(await runCli(args, io)).toBe(0);
    } finally {
      delete process.env['OPENAI_API_KEY'];
    }
    const job = JSON.parse(out) as { settings: Record<string, unknown>; counts: Record<string, number>; endpoints: { endpoint: string; failure?: string }[] };
    expect(job.settings).toMatchObject({ kind: 'chains', maxChains: 1, endpoints: 'all', batchSize: 4 });
    expect(job.counts).toMatchObject({ endpoints: 1, failed: 1 });
    expect(job.endpoints[0]).toMatchObject({ failure: 'missing' });
    const prompts = server.received.filter((r) => r.method === 'POST').slice(asked);
    expect(prompts).toHaveLength(1);
    expect(prompts[0]!.prompt).toContain('for each of these 1 chain of the API "slack"');
    expect(problems).toEqual([]);
  });
});
