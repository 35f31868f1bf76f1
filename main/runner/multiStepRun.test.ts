import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, WAPIIBENCH_SPECS } from '../../test/support/paths.js';
import type { SampleFields } from '../api/schemas.js';
import { createExecutor, type Executor } from '../execution/index.js';
import type { Generation, GenerationBackend } from '../generation/index.js';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import type { CompletionPrompt } from '../prompt/index.js';
import { proportionIntervals, type Verdict } from '../scoring/index.js';
import { Store } from '../store/index.js';
import { executeRun, type RunSample } from './run.js';

/**
 * Runs on multi-step samples (scoring.md §7, issue 37 item 4): the model is asked for the task
 * only, writes the whole program, the runner closes what the starter opened, runs it whole against
 * the steps' stubbed answers and stores each step's verdict; statistics count tasks and steps.
 * The backend here writes fixed programs, so what is tested is everything after the model.
 */
const AUTH = { Authorization: 'Bearer <token>' };
const STEPS = [
  { config: { url: 'https://slack.com/api/conversations.list', method: 'get', headers: AUTH, params: { types: 'public_channel' } }, response: { status: 200, data: { ok: true, channels: [{ id: 'C0GENERAL', name: 'general' }, { id: 'C0DEPLOY1', name: 'deploys' }] } } },
  {
    config: { url: 'https://slack.com/api/chat.postMessage', method: 'post', headers: AUTH, data: { channel: 'C0DEPLOY1', text: 'Deploy finished' } },
    carried: { 'data.channel': '0:/data/channels/1/id' },
    response: { status: 200, data: { ok: true, ts: '1700000000.000100' } },
  },
];
const TASK = "Post 'Deploy finished' to the public channel named deploys (look its ID up first).";
const multi: RunSample = { index: 0, api: 'slack', task: TASK, config: STEPS[1]!.config, fields: { steps: STEPS } as SampleFields };
const single: RunSample = { index: 1, api: 'slack', task: 'List the public channels.', config: STEPS[0]!.config };

/** What the "model" writes after the starter, per sample and round. */
// The starter ends in `const response = await axios.`: the model writes the first call on from there.
const PLANNED = "get('https://slack.com/api/conversations.list', { headers: { Authorization: 'Bearer <token>' }, params: { types: 'public_channel' } });\n  await axios.post('https://slack.com/api/chat.postMessage', { channel: response.data.channels.find((c) => c.name === 'deploys').id, text: 'Deploy finished' }, { headers: { Authorization: 'Bearer <token>' } });";
const SKIPPED = "post('https://slack.com/api/chat.postMessage', { channel: 'deploys', text: 'Deploy finished', colour: 'red' }, { headers: { Authorization: 'Bearer <token>' } });";

function backendWriting(texts: (prompt: CompletionPrompt, call: number) => string, seen: CompletionPrompt[]): GenerationBackend {
  let calls = 0;
  return {
    manifest: {},
    slots: 1,
    slot: () => ({
      generate: async ({ prompt }): Promise<Generation> => {
        seen.push(prompt);
        const text = texts(prompt, calls++);
        return { text, tokens: 10, stop: 'snippet', interventions: [], promptTokens: 5, reusedPromptTokens: 0, promptMs: 1, generateMs: 1, constraintMs: 0, batched: 1 };
      },
    }),
    [Symbol.asyncDispose]: async () => {},
  };
}

let spec: ApiSpec;
let executor: Executor;
beforeAll(async () => {
  const loaded = await loadSpec(fs.readFileSync(path.join(WAPIIBENCH_SPECS, 'slack.yaml'), 'utf8'), 'slack.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  spec = loaded.value;
  executor = createExecutor({ timeoutMs: 3000 });
});
afterAll(async () => {
  await executor[Symbol.asyncDispose]();
});

function openStore(): Store {
  const opened = Store.open(path.join(tempDir(), 'multistep-run.db'));
  if (!opened.ok) throw new Error(opened.error.message);
  return opened.value;
}

describe('a run over multi-step and single-request samples', () => {
  it('prompts the task only, runs each program whole and stores its steps, task rate and step rate', async () => {
    const store = openStore();
    const seen: CompletionPrompt[] = [];
    // The multi-step sample gets a planned program (once closing the function itself); the single one an ordinary call.
    const backend = backendWriting((prompt, call) => (prompt.setup.steps ? (call === 0 ? PLANNED : `${SKIPPED}\n})();\n`) : "get('https://slack.com/api/conversations.list', { headers: { Authorization: 'Bearer <token>' }, params: { types: 'public_channel' } });"), seen);
    const { runId, report } = await executeRun({ store, backend, executor, samples: [multi, single], specs: new Map([['slack', spec]]), plan: { mode: 'full', n: 2, seed: 1, settings: {}, manifest: {}, dataset: 'd' } });

    const multiPrompts = seen.filter((p) => p.setup.steps);
    expect(multiPrompts).toHaveLength(2);
    for (const p of multiPrompts) {
      expect(p.setup.steps?.count).toBe(2);
      expect(p.text).toContain(TASK);
      // Neither a stubbed response nor a carried value reaches the model.
      for (const secret of ['C0DEPLOY1', 'C0GENERAL', '1700000000', 'chat.postMessage', 'conversations.list']) expect(p.text).not.toContain(secret);
    }

    const run = store.getRun(runId)!;
    const outputs = run.samples.filter((s) => s.index === 0).sort((a, b) => (a.attempt ?? 0) - (b.attempt ?? 0));
    expect(outputs).toHaveLength(2);
    const [planned, skipped] = outputs.map((o) => o.verdict as Verdict);
    expect(planned).toMatchObject({ sample_verdict: 'correct', steps_total: 2, steps_correct: 2, carried_correct: 1, carried_total: 1, first_failed_step: null, url_verdict: null });
    expect(skipped).toMatchObject({ sample_verdict: 'illegal', steps_correct: 0, steps_missing: 1, first_failed_step: 0 });
    // Its failure: the lookup skipped (its first failing step had no request).
    expect(outputs[1]!.failures).toEqual(['skipped_step']);
    expect(outputs[0]!.failures).toEqual([]);
    // The program ran as written: the runner closed the function the starter opened, once.
    expect(outputs[0]!.code.endsWith('\n})();\n')).toBe(true);
    expect(outputs[1]!.code.match(/\}\)\(\);/g)).toHaveLength(1);
    const execution = outputs[0]!.execution as { captured: { url: string }[] };
    expect(execution.captured.map((c) => c.url)).toEqual(['https://slack.com/api/conversations.list', 'https://slack.com/api/chat.postMessage']);

    // Tasks: 3 of 4 outputs correct (the planned program and both single calls); steps: 2 of 4 correct; requests counted per step.
    const stats = report.statistics;
    expect(stats['samples_total']).toBe(4);
    expect(stats['samples_correct']).toBe(3);
    expect(stats['steps_total']).toBe(4);
    expect(stats['steps_correct']).toBe(2);
    expect(stats['steps_correct_wrt_total']).toBe(0.5);
    expect(stats['requests_total']).toBe(6);
    expect(stats['first_failed_step']).toEqual({ '0': 1 });
    const intervals = proportionIntervals(stats);
    expect(intervals['steps_correct_wrt_total']![0]).toBeLessThan(0.5);
    expect(intervals['steps_correct_wrt_total']![1]).toBeGreaterThan(0.5);
    // URL rates divide by requests (6), not tasks (4).
    expect(stats['urls_correct_wrt_total']).toBeCloseTo(stats['urls_correct'] as number / 6);
    store.close();
  });

  it('takes a chat model\'s whole program: the chat starter opens no call, and a rewritten program runs inside it', async () => {
    const store = openStore();
    const seen: CompletionPrompt[] = [];
    // What alignReply gives for a reply that rewrote the program its own way (unaligned: the code after a line break).
    const rewritten = "\nconst axios = require('axios');\nasync function main() {\n  const list = await axios.get('https://slack.com/api/conversations.list', { headers: { Authorization: 'Bearer <token>' }, params: { types: 'public_channel' } });\n  await axios.post('https://slack.com/api/chat.postMessage', { channel: list.data.channels[1].id, text: 'Deploy finished' }, { headers: { Authorization: 'Bearer <token>' } });\n}\nmain().then(() => {\n});";
    const backend = backendWriting(() => rewritten, seen);
    const { runId } = await executeRun({ store, backend, executor, samples: [multi], specs: new Map([['slack', spec]]), plan: { mode: 'full', promptStyle: 'chat', n: 1, seed: 1, settings: {}, manifest: {}, dataset: 'd' } });
    expect(seen[0]!.setup.starter.endsWith('(async () => {\n')).toBe(true);
    const output = store.getRun(runId)!.samples[0]!;
    expect(output.verdict as Verdict).toMatchObject({ sample_verdict: 'correct', steps_correct: 2, carried_correct: 1 });
    store.close();
  });

  it('repairs a multi-step program with findings that name the step', async () => {
    const store = openStore();
    const seen: CompletionPrompt[] = [];
    const backend = backendWriting((_prompt, call) => (call === 0 ? SKIPPED : PLANNED), seen);
    const { runId } = await executeRun({ store, backend, executor, samples: [multi], specs: new Map([['slack', spec]]), plan: { mode: 'full', n: 1, seed: 1, settings: {}, manifest: {}, dataset: 'd', repairRounds: 2 } });
    const output = store.getRun(runId)!.samples[0]!;
    const rounds = (output.generation as { repair: { feedback: string[] }[] }).repair;
    expect(rounds.length).toBe(2);
    const feedback = rounds[0]!.feedback.join('\n');
    expect(feedback).toMatch(/^step 1 \(POST https:\/\/slack\.com\/api\/chat\.postMessage\): .*colour/m);
    // How many requests the task takes is the expected steps': never said.
    expect(feedback).not.toMatch(/takes 2|2 requests|two requests/);
    // No expected value in the feedback: the looked-up ID appears nowhere.
    expect(feedback).not.toContain('C0DEPLOY1');
    expect(rounds[1]!.feedback).toEqual([]);
    expect((output.verdict as Verdict).sample_verdict).toBe('correct');
    store.close();
  });
});
