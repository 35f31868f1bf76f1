import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JsonValue, Sample } from '../api/schemas.js';
import { completionPrompt, repairPrompt } from '../prompt/index.js';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { startHostedStandIn } from '../../test/support/hostedStandIn.js';
import { repairScript, userTurns } from '../../test/support/repairScript.js';
import { environmentKeys } from './apiKeys.js';
import { localClient, openWorkbench, readDemo } from './index.js';

const demo = readDemo(REPO_ROOT);
const KEY = 'sk-test-repair';
const MODEL = 'gpt-4o';
/** Each test opens a workbench on the demo (its runs scored on import) and runs a sample: slow on a loaded machine. */
const SLOW = 240_000;

async function open(): Promise<{ client: ReturnType<typeof localClient>; idle: () => Promise<void>; datasetId: number; samples: Sample[] }> {
  const dir = tempDir();
  const workbench = openWorkbench({
    db: path.join(dir, 'w.db'),
    author: 'tester',
    apiKeys: environmentKeys({ OPENAI_API_KEY: KEY }),
    evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu', providerTimeoutMs: 5000, providerRetry: { retries: 0, minDelayMs: 10, maxDelayMs: 10, maxRetryAfterMs: 10 } },
  });
  const seeded = await workbench.service.seedIfEmpty(demo);
  if (!seeded.ok) throw new Error(seeded.error.message);
  const client = localClient(workbench.service);
  const datasetId = (await client.listDatasets({}))[0]!.id;
  return { client, idle: () => workbench.service.evaluation.jobs.idle(), datasetId, samples: workbench.store.listSamples(datasetId) };
}

/** Demo sample 1: "List the first 10 warehouses in the EU region." — GET /warehouses with region and limit. */
const SAMPLE = 1;
/** Every string and number in the expected request, as text. */
function leaves(value: JsonValue | undefined, out: string[] = []): string[] {
  if (typeof value === 'string' || typeof value === 'number') out.push(String(value));
  else if (Array.isArray(value)) for (const v of value) leaves(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) leaves(v, out);
  return out;
}

async function runWith(setting: 'unconstrained' | 'repair', repairRounds?: number) {
  const b = await open();
  const sample = b.samples[SAMPLE]!;
  const server = await startHostedStandIn({ kind: 'openai', key: KEY, model: MODEL, reply: repairScript(sample) });
  try {
    const { runId } = await b.client.startRun({
      datasetId: b.datasetId,
      model: { provider: { name: 'openai', model: MODEL, baseUrl: server.url, concurrency: 1 } },
      subset: { sampleIds: [sample.id] },
      setting,
      ...(repairRounds !== undefined ? { repairRounds } : {}),
    });
    await b.idle();
    const run = await b.client.getRun({ runId });
    const detail = await b.client.getRunSample({ runId, index: sample.position });
    return { run, detail, sample, received: server.received };
  } finally {
    await server.close();
  }
}

describe('the repair setting (a hosted model on a local stand-in)', () => {
  it('a program the spec checker faults is sent back with its findings until it is correct: two rounds', async () => {
    const { run, detail, sample, received } = await runWith('repair', 2);
    expect(run.status).toBe('finished');
    expect(run.statistics).toMatchObject({ samples_total: 1, samples_correct: 1 });
    expect(detail.sample_verdict).toBe('correct');
    expect(received).toHaveLength(3);
    for (const r of received) expect(r.problems).toEqual([]);
    // The follow-ups are the conversation: the first message, then each program and its findings.
    const [, second, third] = received.map(userTurns);
    expect(second).toHaveLength(2);
    expect(second![1]).toMatch(/URL path \/storage-sites matches no endpoint of the spec/);
    expect(third).toHaveLength(3);
    expect(third![2]).toMatch(/query argument `sort` is not defined for GET \/warehouses/);
    // Each round is stored with its program, findings and verdict; the last has nothing left to fix.
    const rounds = (detail.generation as { repair?: { code: string; feedback: string[]; verdict: string }[] } | null)?.repair;
    expect(rounds?.map((r) => r.verdict)).toEqual(['illegal', 'illegal', 'correct']);
    expect(rounds?.map((r) => r.feedback.length > 0)).toEqual([true, true, false]);
    expect(rounds?.[0]?.code).toContain('/v2/storage-sites');
    // What the workbench writes to the model holds no value of the expected request that neither the
    // task states nor the model itself wrote in a program sent back (here: the Authorization and Accept values).
    const told = received.flatMap(userTurns).join('\n');
    const modelWrote = rounds!.slice(0, -1).map((r) => r.code).join('\n'); // the programs sent back
    const hidden = leaves(sample.config as unknown as JsonValue).filter((v) => v.length >= 3 && !sample.task.includes(v) && !modelWrote.includes(v));
    expect(hidden.length).toBeGreaterThan(0);
    for (const value of hidden) expect(told).not.toContain(value);
  }, SLOW);

  it('one round is not enough for this script: the second program is scored, illegal', async () => {
    const one = await runWith('repair', 1);
    expect(one.received).toHaveLength(2);
    expect(one.detail.sample_verdict).toBe('illegal');
  }, SLOW);

  it('without repair the first program is scored: illegal, and no round is stored', async () => {
    const none = await runWith('unconstrained');
    expect(none.received).toHaveLength(1);
    expect(none.detail.sample_verdict).toBe('illegal');
    expect((none.detail.generation as { repair?: unknown } | null)?.repair).toBeUndefined();
  }, SLOW);
});

describe('repairPrompt', () => {
  it("puts a base model's earlier attempts and findings before the starter, which stays last", () => {
    const sample = { api: 'harbor', task: 'List the first 10 warehouses in the EU region.', config: { url: 'https://api.harbor.example/v2/warehouses', method: 'get' } };
    const prompt = completionPrompt(sample, 'full');
    const asked = repairPrompt(prompt, [{ code: `${prompt.starter}get('https://x.example/a');`, feedback: ['URL path /a matches no endpoint of the spec'] }]);
    expect(asked.text.endsWith(prompt.starter)).toBe(true);
    expect(asked.text).toContain("//   const axios = require('axios');");
    expect(asked.text).toContain('// - URL path /a matches no endpoint of the spec');
    expect(repairPrompt(prompt, [])).toBe(prompt);
  });
});
