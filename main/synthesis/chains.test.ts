import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { hasWapiiBench, WAPIIBENCH_SPECS } from '../../test/support/paths.js';
import type { JsonValue, SampleStep } from '../api/schemas.js';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import type { ProviderOutput } from '../providers/types.js';
import { boundedChainAnswerSchema, carriedPointer, pointersMatching, readChainAnswer } from './chainAnswer.js';
import { chainPrompt } from './chainPrompt.js';
import { findChains, pickChains, singular, type Chain } from './chains.js';

async function spec(api: string): Promise<ApiSpec> {
  const loaded = await loadSpec(fs.readFileSync(path.join(WAPIIBENCH_SPECS, `${api}.yaml`), 'utf8'), `${api}.yaml`);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}
const op = (e: { method: string; path: string }): string => `${e.method.toUpperCase()} ${e.path}`;
const find = (chains: readonly Chain[], producer: string, consumer: string, carried: string): Chain | undefined =>
  chains.find((c) => op(c.producer) === producer && op(c.consumer) === consumer && c.parameter.carried === carried);

describe('names read as resources', () => {
  it('makes the last word of a plural singular, and leaves singular words be', () => {
    expect(['tasks', 'custom_fields', 'entries', 'addresses', 'status', 'ts', 'channel', 'project_memberships', 'boxes'].map(singular)).toEqual(['task', 'custom_field', 'entry', 'address', 'status', 'ts', 'channel', 'project_membership', 'box']);
  });
});

describe.runIf(hasWapiiBench)('findChains on the WAPIIBench specs', () => {
  let asana: ApiSpec;
  let slack: ApiSpec;
  let asanaChains: Chain[];
  let slackChains: Chain[];
  beforeAll(async () => {
    [asana, slack] = await Promise.all([spec('asana'), spec('slack')]);
    asanaChains = findChains(asana);
    slackChains = findChains(slack);
  });

  it("finds Asana's gid → {task_gid} and Slack's channels[].id → channel, with their pointer, parameter, rule and score", () => {
    expect(find(asanaChains, 'GET /tasks', 'POST /tasks/{task_gid}/stories', 'path_params.task_gid')).toMatchObject({
      key: 'GET /tasks → POST /tasks/{task_gid}/stories (path_params.task_gid ← /data/*/gid)',
      status: '200',
      field: '/data/*/gid',
      parameter: { in: 'path', name: 'task_gid', carried: 'path_params.task_gid' },
      rule: 'resource',
      score: 1,
    });
    expect(find(slackChains, 'GET /conversations.list', 'POST /chat.postMessage', 'data.channel')).toMatchObject({
      key: 'GET /conversations.list → POST /chat.postMessage (data.channel ← /channels/*/id)',
      field: '/channels/*/id',
      parameter: { in: 'body', name: 'channel', carried: 'data.channel' },
      rule: 'resource',
    });
    // A query parameter named after its resource, a body property inside Asana's `data` wrapper, an exact name (Slack's message `ts`).
    expect(find(asanaChains, 'GET /workspaces', 'GET /projects', 'params.workspace')).toMatchObject({ field: '/data/*/gid', parameter: { in: 'query', name: 'workspace' } });
    expect(find(asanaChains, 'GET /users/{user_gid}', 'POST /tasks', 'data.data.workspace')).toMatchObject({ field: '/data/workspaces/*/gid', parameter: { in: 'body', name: 'data.workspace' } });
    expect(find(slackChains, 'GET /conversations.history', 'POST /chat.update', 'data.ts')).toMatchObject({ field: '/messages/*/ts', rule: 'exact' });
    // `<resource>_id` takes an `id` of that resource: Slack's admin methods take `channel_id`.
    expect(find(slackChains, 'GET /conversations.list', 'POST /admin.conversations.archive', 'data.channel_id')).toMatchObject({ field: '/channels/*/id' });
  });

  it('resists false positives: a gid of another resource, a lookup of what the producer takes, a plain id in a body, a plural, credentials and cursors', () => {
    for (const chains of [asanaChains, slackChains]) {
      for (const c of chains) {
        expect(c.producer).not.toBe(c.consumer);
        expect(c.producer.method).not.toBe('delete');
      }
    }
    // Every chain into {task_gid} reads a task's own gid from a list of tasks: never an assignee's, a workspace's or a project's gid inside a task.
    const intoTask = asanaChains.filter((c) => c.parameter.carried === 'path_params.task_gid');
    expect(intoTask.length).toBeGreaterThan(10);
    for (const c of intoTask) {
      expect(c.field).toBe('/data/*/gid');
      expect(c.producer.path).toMatch(/\/tasks$/);
    }
    // GET /tasks/{task_gid} takes the task's gid: it does not look it up.
    expect(findChains(asana, { limit: 100_000, perParameter: 1000 }).filter((c) => op(c.producer) === 'GET /tasks/{task_gid}' && c.parameter.name.endsWith('task_gid'))).toEqual([]);
    // Slack's users.list lists users (`members/*/id`): no chain sends a user's ID as a channel.
    const slackAll = findChains(slack, { limit: 100_000, perParameter: 1000 });
    expect(slackAll.filter((c) => op(c.producer) === 'GET /users.list' && /(^|\.)channel(_id)?$/.test(c.parameter.carried))).toEqual([]);
    // A plain `id` in a body says nothing of what it identifies (files.comments.delete: a comment's).
    expect(slackAll.filter((c) => c.parameter.carried === 'data.id' || c.parameter.carried === 'params.id')).toEqual([]);
    // A plural parameter takes a list (usergroups.create's `channels`), credentials and paging are no lookups.
    const carried = new Set(slackAll.map((c) => c.parameter.carried));
    for (const never of ['data.channels', 'data.users', 'params.token', 'data.token', 'params.cursor', 'params.limit', 'data.text', 'data.name']) expect(carried.has(never), never).toBe(false);
  });

  it('ranks best first, caps producers per parameter and in all, and picks varied chains', () => {
    for (const chains of [asanaChains, slackChains]) {
      expect(chains.map((c) => c.score)).toEqual([...chains.map((c) => c.score)].sort((a, b) => b - a));
      const perSlot = new Map<string, number>();
      for (const c of chains) perSlot.set(`${op(c.consumer)} ${c.parameter.carried}`, (perSlot.get(`${op(c.consumer)} ${c.parameter.carried}`) ?? 0) + 1);
      expect(Math.max(...perSlot.values())).toBe(3);
      expect(new Set(chains.map((c) => c.key)).size).toBe(chains.length);
    }
    expect(findChains(slack, { limit: 5, perParameter: 1 })).toHaveLength(5);
    const picked = pickChains(slackChains, 8);
    expect(picked).toHaveLength(8);
    // The first picks share neither producer nor consumer.
    const ops = picked.flatMap((c) => [c.producer, c.consumer]);
    expect(new Set(ops).size).toBe(ops.length);
    expect(pickChains(slackChains.slice(0, 3), 10)).toHaveLength(3);
  });

  describe('a chain drafted', () => {
    let chain: Chain;
    const answer = (value: unknown): ProviderOutput => ({ text: JSON.stringify(value), finish: 'stop', usage: { inputTokens: 10, outputTokens: 10 }, requestIds: [] });
    const steps = (channels: JsonValue[], channel: string): Pick<SampleStep, 'config' | 'response'>[] => [
      { config: { url: 'https://slack.com/api/conversations.list', method: 'get', headers: { Authorization: 'Bearer <token>' } }, response: { status: 200, data: { ok: true, channels } } },
      { config: { url: 'https://slack.com/api/chat.postMessage', method: 'post', headers: { Authorization: 'Bearer <token>' }, data: { channel, text: 'hi' } }, response: { status: 200, data: { ok: true } } },
    ];
    beforeAll(() => {
      chain = find(slackChains, 'GET /conversations.list', 'POST /chat.postMessage', 'data.channel')!;
    });

    it('fills carried at the list item the second request sends, else the first item, else index 0', () => {
      const two = [{ id: 'C1', name: 'a' }, { id: 'C2', name: 'b' }];
      expect(pointersMatching({ channels: two }, ['channels', '*', 'id'])).toEqual([{ pointer: '/channels/0/id', value: 'C1' }, { pointer: '/channels/1/id', value: 'C2' }]);
      expect(carriedPointer(slack, chain, steps(two, 'C2'))).toBe('0:/data/channels/1/id');
      expect(carriedPointer(slack, chain, steps(two, 'C9'))).toBe('0:/data/channels/0/id');
      expect(carriedPointer(slack, chain, steps([], 'C9'))).toBe('0:/data/channels/0/id');
      const task = find(asanaChains, 'GET /tasks', 'POST /tasks/{task_gid}/stories', 'path_params.task_gid')!;
      const asanaSteps = [
        { config: { url: 'https://app.asana.com/api/1.0/tasks', method: 'get' }, response: { status: 200, data: { data: [{ gid: '11' }, { gid: '12' }] } } },
        { config: { url: 'https://app.asana.com/api/1.0/tasks/12/stories', method: 'post' }, response: { status: 201, data: {} } },
      ];
      expect(carriedPointer(asana, task, asanaSteps)).toBe('0:/data/data/1/gid');
    });

    it('reads an answer into two-step samples keyed by the chain; a draft for a chain not asked, with one step, or out of order gives nothing', () => {
      const read = readChainAnswer(answer({ samples: [{ chain: 1, task: 'Say hi in b.', steps: steps([{ id: 'C1' }, { id: 'C2' }], 'C2') }] }), slack, [chain]);
      expect(read).toMatchObject({ ok: true, missing: [] });
      if (!read.ok) return;
      expect(read.samples[0]).toMatchObject({ endpoint: chain.key, task: 'Say hi in b.', config: { url: 'https://slack.com/api/chat.postMessage', headers: { Accept: 'application/json, text/plain, */*', 'Content-Type': 'application/json' } } });
      expect(read.samples[0]!.steps![1]!.carried).toEqual({ 'data.channel': '0:/data/channels/1/id' });
      expect(readChainAnswer(answer({ samples: [] }), slack, [chain])).toMatchObject({ ok: true, samples: [], missing: [chain.key] });
      expect(readChainAnswer(answer({ samples: [{ chain: 2, task: 't', steps: steps([], 'C') }] }), slack, [chain])).toMatchObject({ ok: false, failure: { kind: 'unasked_endpoint', message: 'sample 0 is for chain 2, which was not asked for (asked: chains 1 to 1)' } });
      expect(readChainAnswer(answer({ samples: [{ chain: 1, task: 't', steps: steps([], 'C').slice(0, 1) }] }), slack, [chain])).toMatchObject({ ok: false, failure: { kind: 'invalid_sample' } });
      expect(readChainAnswer(answer({ samples: [{ chain: 1, task: 't', steps: steps([], 'C').reverse() }] }), slack, [chain])).toMatchObject({ ok: false, failure: { kind: 'unasked_endpoint', message: "sample 0's step 0 is for POST /chat.postMessage, not GET /conversations.list of chain 1" } });
      expect(readChainAnswer({ ...answer({}), finish: 'length' }, slack, [chain])).toMatchObject({ ok: false, failure: { kind: 'truncated' } });
    });

    it('prompts with both operations of each chain, and bounds the answer for a grammar to the chain', () => {
      const prompt = chainPrompt({ api: 'slack', specText: fs.readFileSync(path.join(WAPIIBENCH_SPECS, 'slack.yaml'), 'utf8'), chains: [chain], samplesPerChain: 2, contextTokens: 128_000, maxOutputTokens: 16_000 });
      if (!prompt.ok) throw new Error(prompt.error.message);
      expect(prompt.value.specScope).toBe('excerpt');
      expect(prompt.value.user).toContain('Write 2 samples for each of these 1 chain of the API "slack"');
      expect(prompt.value.user).toMatch(/^1\. GET \/conversations\.list \(conversations_list.*\) → POST \/chat\.postMessage \(chat_postMessage.*\): the second request's body property `channel`/m);
      expect(prompt.value.user).toContain('/conversations.list:');
      expect(prompt.value.user).not.toContain('/users.list:');
      const bounded = boundedChainAnswerSchema(slack, [chain], 2) as { properties: { samples: { minItems: number; items: { properties: { chain: unknown; steps: { prefixItems: { properties: { response: { properties: { data: unknown } } } }[] } } } } } };
      expect(bounded.properties.samples.minItems).toBe(2);
      expect(bounded.properties.samples.items.properties.chain).toEqual({ const: 1 });
      // The first response leads to the field, with Slack's required `ok`, and a name to find the item by.
      expect(bounded.properties.samples.items.properties.steps.prefixItems[0]!.properties.response.properties.data).toMatchObject({
        properties: { ok: { enum: [true] }, channels: { type: 'array', minItems: 1, items: { properties: { id: { type: 'string' }, name: { type: 'string' } }, required: ['id', 'name'] } } },
      });
      expect(JSON.stringify(bounded)).not.toContain('$ref');
    });
  });
});
