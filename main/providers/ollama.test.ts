import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { answersForUncovered, demoSubset, UNCOVERED_BY_SUBSET } from '../../test/support/demoSubset.js';
import { DEMO_SPECS, REPO_ROOT, tempDir } from '../../test/support/paths.js';
import type { Sample } from '../api/schemas.js';
import { oracleProgram } from '../prompt/index.js';
import { environmentKeys } from '../service/apiKeys.js';
import { localClient, openWorkbench, readDemo, type Workbench } from '../service/index.js';

/**
 * Ollama, added as one file and its registry entry (issue 35 item 1's proof): runs and synthesis
 * reach it through the service as they reach every provider. The stand-in checks each request as
 * Ollama's API takes it: a completion prompt to /api/generate with `raw: true` and no stream, chat
 * to /api/chat with system/user/assistant roles, a JSON Schema as `format`, the model it has.
 */

const MODEL = 'qwen2.5-coder:1.5b-base';

interface Seen {
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly problems: string[];
}

type Reply = (seen: Seen) => { text: string; done_reason?: string };

async function ollamaStandIn(reply: Reply): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const url = req.url ?? '';
      const send = (status: number, body: unknown): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'GET' && url === '/api/tags') return send(200, { models: [{ name: MODEL, model: MODEL, size: 986_000_000 }, { name: 'llama3.2:latest', model: 'llama3.2:latest' }] });
      let body: Record<string, unknown> = {};
      const problems: string[] = [];
      try {
        body = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        problems.push('body is not JSON');
      }
      if (req.headers['content-type'] !== 'application/json') problems.push(`content-type ${String(req.headers['content-type'])}`);
      if (req.headers.authorization !== undefined) problems.push('an authorization header to a server that takes no key');
      if (body['model'] !== MODEL) problems.push(`model ${String(body['model'])}`);
      if (body['stream'] !== false) problems.push('stream is not false (the answer would come as NDJSON chunks)');
      const options = body['options'] as Record<string, unknown> | undefined;
      if (!options || !Number.isInteger(options['num_predict']) || typeof options['temperature'] !== 'number') problems.push(`options ${JSON.stringify(options)}`);
      if (body['format'] !== undefined && (body['format'] as { type?: unknown }).type !== 'object') problems.push('format is not a JSON Schema object');
      if (req.method === 'POST' && url === '/api/generate') {
        if (body['raw'] !== true) problems.push('raw is not true: Ollama would wrap the starter code in a chat template');
        if (typeof body['prompt'] !== 'string') problems.push('no prompt');
      } else if (req.method === 'POST' && url === '/api/chat') {
        const messages = body['messages'];
        if (!Array.isArray(messages) || messages.length === 0 || messages.some((m: { role?: unknown; content?: unknown }) => !['system', 'user', 'assistant'].includes(String(m?.role)) || typeof m?.content !== 'string')) problems.push(`messages ${JSON.stringify(messages).slice(0, 200)}`);
      } else {
        problems.push(`${req.method} ${url}`);
        seen.push({ path: url, body, problems });
        return send(404, { error: `${url} not found` });
      }
      const entry: Seen = { path: url, body, problems };
      seen.push(entry);
      let answer: ReturnType<Reply>;
      try {
        answer = reply(entry);
      } catch (error) {
        problems.push(`the stand-in could not answer: ${String(error)}`);
        return send(500, { error: 'stand-in failed' });
      }
      const { text, done_reason = 'stop' } = answer;
      const counts = { prompt_eval_count: 120, eval_count: Math.ceil(text.length / 4) };
      if (url === '/api/generate') return send(200, { model: MODEL, created_at: new Date().toISOString(), response: text, done: true, done_reason, ...counts });
      return send(200, { model: MODEL, created_at: new Date().toISOString(), message: { role: 'assistant', content: text }, done: true, done_reason, ...counts });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

const opened: Workbench[] = [];
const standIns: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const w of opened.splice(0)) await w.service.settle();
  for (const s of standIns.splice(0)) await s.close();
});

async function open(): Promise<Workbench> {
  const dir = tempDir('wapii-ollama-');
  const workbench = openWorkbench({ db: path.join(dir, 'w.db'), author: 'tester', apiKeys: environmentKeys({}), evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu', providerTimeoutMs: 5000 } });
  opened.push(workbench);
  return workbench;
}

/** The sample a prompt asks about (its task is in the prompt). */
const sampleOf = (samples: readonly Sample[], prompt: string): Sample => {
  const found = samples.find((s) => prompt.includes(s.task));
  if (!found) throw new Error(`no sample in prompt ${prompt.slice(0, 80)}`);
  return found;
};

describe('Ollama as a provider (a stand-in that checks what it receives)', () => {
  it.each(['completion', 'chat'] as const)('a %s run: every request as Ollama takes it, the ground-truth call scores correct, usage counted', async (style) => {
    const workbench = await open();
    const seeded = await workbench.service.seedIfEmpty(readDemo(REPO_ROOT));
    if (!seeded.ok) throw new Error(seeded.error.message);
    const client = localClient(workbench.service);
    const datasetId = (await client.listDatasets({}))[0]!.id;
    const samples = workbench.store.listSamples(datasetId);
    const server = await ollamaStandIn((seen) => {
      const prompt = style === 'completion' ? String(seen.body['prompt']) : (seen.body['messages'] as { content: string }[]).map((m) => m.content).join('\n');
      const oracle = oracleProgram(sampleOf(samples, prompt), 'full');
      const call = oracle.completion.replace(/\n\n[\s\S]*$/, '');
      return { text: style === 'completion' ? call : `\`\`\`javascript\n${oracle.starter}${call}\n\`\`\`` };
    });
    standIns.push(server);
    const { runId } = await client.startRun({ datasetId, model: { provider: { name: 'ollama', model: MODEL, baseUrl: server.url } }, prompt: style, subset: { limit: 4 } });
    await workbench.service.evaluation.jobs.idle();
    const run = await client.getRun({ runId });
    expect(run.error).toBeNull();
    expect(run.status).toBe('finished');
    expect(run.statistics).toMatchObject({ samples_total: 4, samples_correct: 4 });
    expect(server.seen.map((s) => s.path)).toEqual(Array(4).fill(style === 'completion' ? '/api/generate' : '/api/chat'));
    for (const s of server.seen) expect(s.problems).toEqual([]);
    expect(run.manifest).toMatchObject({ provider: 'ollama', model: MODEL, usage: { outputs: 4, inputTokens: 480 } });
  });

  it('synthesis: the samples schema goes as `format` to /api/chat, and each answer is checked and stored unreviewed', async () => {
    const workbench = await open();
    const client = localClient(workbench.service);
    const demo = readDemo(path.dirname(DEMO_SPECS));
    const datasetId = (await client.importDataset({ name: 'subset', dataset: demoSubset(), specs: demo.specs })).id;
    const answers = answersForUncovered();
    const server = await ollamaStandIn((seen) => {
      const messages = seen.body['messages'] as { role: string; content: string }[];
      const asked = [...(messages.at(-1)?.content ?? '').matchAll(/^- ([A-Z]+ \/\S*)/gm)].map((m) => m[1] ?? '');
      if (messages[0]?.role !== 'system') seen.problems.push('no system message');
      if (seen.body['format'] === undefined) seen.problems.push('no format: the answer is not held to the samples schema');
      return { text: JSON.stringify({ samples: asked.map((k) => answers.get(k)) }) };
    });
    standIns.push(server);
    const job = await client.synthesize({ datasetId, provider: 'ollama', model: MODEL, baseUrl: server.url, wait: true });
    expect(job).toMatchObject({ status: 'finished', provider: 'ollama', model: MODEL, counts: { endpoints: UNCOVERED_BY_SUBSET.length, done: UNCOVERED_BY_SUBSET.length, failed: 0 } });
    expect(server.seen.length).toBeGreaterThan(0);
    for (const s of server.seen) expect(s.problems).toEqual([]);
    const made = (await client.listSamples({ datasetId, filter: {} })).filter((s) => s.provenance?.provider === 'ollama');
    expect(made).toHaveLength(UNCOVERED_BY_SUBSET.length);
    for (const s of made) expect(s).toMatchObject({ reviewState: 'unreviewed', checkStatus: 'ok', provenance: { model: MODEL, groundTruth: { verdict: 'correct' } } });
  });

  it('lists its models from /api/tags, and a model it lacks is refused before a run is queued, in one line', async () => {
    const workbench = await open();
    const seeded = await workbench.service.seedIfEmpty(readDemo(REPO_ROOT));
    if (!seeded.ok) throw new Error(seeded.error.message);
    const client = localClient(workbench.service);
    const server = await ollamaStandIn(() => ({ text: '' }));
    standIns.push(server);
    expect(await client.listProviderModels({ provider: 'ollama', baseUrl: server.url })).toEqual({ models: ['llama3.2:latest', MODEL] });
    expect((await client.listProviders({})).find((p) => p.name === 'ollama')).toMatchObject({ label: 'Ollama', key: 'none', defaultBaseUrl: 'http://127.0.0.1:11434', capabilities: { completion: true, chat: true, jsonSchema: true, constraints: 'none' } });
    const datasetId = (await client.listDatasets({}))[0]!.id;
    await expect(client.startRun({ datasetId, model: { provider: { name: 'ollama', model: 'mistral', baseUrl: server.url } }, subset: { limit: 2 } })).rejects.toThrow(/^ollama mistral: http:\/\/127\.0\.0\.1:\d+ has no model "mistral" \(it has llama3\.2:latest, qwen2\.5-coder:1\.5b-base\): pull it first/);
    await expect(client.startRun({ datasetId, model: { provider: { name: 'ollama', model: MODEL, baseUrl: server.url } }, setting: 'constrained', subset: { limit: 2 } })).rejects.toThrow(/ollama exposes no logits/);
    // llama3.2 is asked for as Ollama names it: its :latest tag.
    await client.listProviderModels({ provider: 'ollama', baseUrl: server.url });
    expect(server.seen.filter((s) => s.problems.length > 0)).toEqual([]);
  });
});
