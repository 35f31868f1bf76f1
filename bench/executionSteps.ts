import fs from 'node:fs';
import path from 'node:path';
import type { HttpClient } from '../main/api/clients.js';
import type { JsonValue } from '../main/api/schemas.js';
import { checkSample } from '../main/dataset/index.js';
import { createExecutor, Sandbox, type Execution, type Executor, type RunOptions } from '../main/execution/index.js';
import { loadSpec, type ApiSpec } from '../main/openapi/index.js';
import { stepsOracleProgram } from '../main/prompt/index.js';
import { evaluateSteps, stubsOf } from '../main/runner/evaluate.js';
import type { Step } from '../main/scoring/index.js';
import { fmt } from './stats.js';

/**
 * Issue 37: what a multi-step sample (scoring.md §7) costs to execute beside a single request.
 * Both go the same path, `evaluateSteps` through the supervised executor (whole program, stubbed
 * answers, every request normalised and scored against the steps): a one-step sample is the
 * 4-step chain's `chat.postMessage` alone. `evaluateCode` (a single sample's path) would cut the
 * call and run it without stubs, so its time would differ for reasons other than the step count.
 */
const AUTH = { Accept: 'application/json, text/plain, */*', Authorization: 'Bearer <token>' };
const JSON_AUTH = { ...AUTH, 'Content-Type': 'application/json' };
const SLACK = 'https://slack.com/api';

const POST_MESSAGE: Step = {
  config: { url: `${SLACK}/chat.postMessage`, method: 'post', headers: JSON_AUTH, data: { channel: 'D0ALICE01', text: 'Your deploy finished.' } },
  carried: { 'data.channel': '1:/data/channel/id' },
  response: { status: 200, data: { ok: true, channel: 'D0ALICE01', ts: '1700000000.000100', message: { type: 'message', text: 'Your deploy finished.', ts: '1700000000.000100' } } },
};

/** A realistic Slack chain (each request as WAPIIBench's own Slack samples write it): find a user, open a DM, post, pin the post. */
const FOUR_STEP = {
  api: 'slack',
  task: "Send alice@example.com a direct message 'Your deploy finished.' and pin it in that conversation (look her user ID and the DM's channel ID up first).",
  steps: [
    {
      config: { url: `${SLACK}/users.lookupByEmail`, method: 'get', headers: AUTH, params: { email: 'alice@example.com' } },
      response: { status: 200, data: { ok: true, user: { id: 'U0ALICE01', team_id: 'T0ACME001', name: 'alice', deleted: false, is_bot: false } } },
    },
    {
      config: { url: `${SLACK}/conversations.open`, method: 'post', headers: JSON_AUTH, data: { users: 'U0ALICE01' } },
      carried: { 'data.users': '0:/data/user/id' },
      response: { status: 200, data: { ok: true, channel: { id: 'D0ALICE01' } } },
    },
    POST_MESSAGE,
    {
      config: { url: `${SLACK}/pins.add`, method: 'post', headers: JSON_AUTH, data: { channel: 'D0ALICE01', timestamp: '1700000000.000100' } },
      carried: { 'data.channel': '1:/data/channel/id', 'data.timestamp': '2:/data/ts' },
      response: { status: 200, data: { ok: true } },
    },
  ] satisfies Step[],
};

/** The same post alone: the one-step sample. */
const ONE_STEP = {
  api: 'slack',
  task: "Post 'Your deploy finished.' to the conversation D0ALICE01.",
  steps: [{ config: POST_MESSAGE.config, response: POST_MESSAGE.response }] satisfies Step[],
};

const WARMUP = 10;
const RUNS = 100;

/** Where one evaluation's time went: in the sandbox (its own clock), the message to its process and back, and the host's normalising and scoring. */
interface Timing {
  total: number;
  sandbox: number;
  transport: number;
  scoring: number;
}

/** p50 and p90 by the nearest-rank rule. */
function quantiles(values: readonly number[]): { p50: number; p90: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? NaN;
  return { p50: at(0.5), p90: at(0.9) };
}

async function evaluateTimed(program: string, steps: readonly Step[], spec: ApiSpec, executor: Executor, expectRequests: number): Promise<Timing & { ok: boolean }> {
  let run: { wall: number; execution: Execution } | undefined;
  const timed = {
    run: async (code: string, options?: RunOptions): Promise<Execution> => {
      const started = performance.now();
      const execution = await executor.run(code, options);
      run = { wall: performance.now() - started, execution };
      return execution;
    },
  };
  const started = performance.now();
  const evaluation = await evaluateSteps(program, steps, spec, timed);
  const total = performance.now() - started;
  const ok = evaluation.verdict.sample_verdict === 'correct' && evaluation.execution.requests === expectRequests && evaluation.verdict.carried_correct === evaluation.verdict.carried_total;
  return { total, sandbox: run!.execution.durationMs, transport: run!.wall - run!.execution.durationMs, scoring: total - run!.wall, ok };
}

export async function benchExecutionSteps(wapiibench: string): Promise<void> {
  const loaded = await loadSpec(fs.readFileSync(path.join(wapiibench, 'specs', 'slack.yaml'), 'utf8'), 'slack.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  const spec = loaded.value;
  // The chain is a valid multi-step sample: requests, stubbed responses and carried values all pass `check`.
  const findings = checkSample(spec, { api: 'slack', config: FOUR_STEP.steps.at(-1)!.config, source: {}, fields: { steps: FOUR_STEP.steps as unknown as JsonValue } });
  if (findings.length > 0) throw new Error(`bench: the 4-step sample has check findings: ${findings.map((f) => f.message).join('; ')}`);

  const clients: HttpClient[] = ['axios', 'fetch'];
  const cases = clients.flatMap((client) =>
    [ONE_STEP, FOUR_STEP].map((sample) => ({
      client,
      sample,
      program: stepsOracleProgram(sample, client, 'single', 'await'),
      timings: [] as Timing[],
      failed: 0,
    })),
  );

  {
    await using executor = createExecutor({ workers: 1 });
    for (let i = 0; i < WARMUP; i++) for (const c of cases) await evaluateTimed(c.program, c.sample.steps, spec, executor, c.sample.steps.length);
    // Interleaved, the order rotated each round, so drift on a shared machine falls on every case alike.
    for (let i = 0; i < RUNS; i++) {
      for (let k = 0; k < cases.length; k++) {
        const c = cases[(i + k) % cases.length]!;
        const t = await evaluateTimed(c.program, c.sample.steps, spec, executor, c.sample.steps.length);
        c.timings.push(t);
        if (!t.ok) c.failed++;
      }
    }
  }

  // Profile, in this process: the sandbox's start per run (a program that sends nothing: a fresh
  // context and the prelude, Axios among it) against its cost per request (the 4-step minus the
  // 1-step program, over the three requests more).
  const sandbox = new Sandbox();
  const idle = { program: "const axios = require('axios');\n(async () => {})();\n", stubs: stubsOf(spec, FOUR_STEP.steps) };
  const local = cases.map((c) => ({ c, program: c.program, stubs: stubsOf(spec, c.sample.steps), ms: [] as number[] }));
  const idleMs: number[] = [];
  for (let i = 0; i < WARMUP; i++) for (const l of [...local, idle]) sandbox.run(l.program, { stubs: l.stubs });
  for (let i = 0; i < RUNS; i++) {
    idleMs.push(sandbox.run(idle.program, { stubs: idle.stubs }).durationMs);
    for (const l of local) l.ms.push(sandbox.run(l.program, { stubs: l.stubs }).durationMs);
  }
  sandbox.dispose();

  const p = (values: readonly number[]): string => {
    const q = quantiles(values);
    return `${fmt(q.p50, 2)} / ${fmt(q.p90, 2)}`;
  };
  const p50 = (values: readonly number[]): number => quantiles(values).p50;
  console.log(`\n## Execution: a 4-step sample beside a 1-step sample (issue 37; ${RUNS} runs each, interleaved, after ${WARMUP} warm-up)\n`);
  console.log('Both through `evaluateSteps` and the supervised executor (1 sandbox process), the oracle program awaited, Slack: users.lookupByEmail → conversations.open → chat.postMessage → pins.add (4 carried values), and the chat.postMessage alone.\n');
  console.log('| client | steps | total p50 / p90 ms | in sandbox p50 / p90 | message there and back p50 | normalise + score p50 | failed |');
  console.log('|---|---|---|---|---|---|---|');
  for (const c of cases) {
    console.log(`| ${c.client} | ${c.sample.steps.length} | ${p(c.timings.map((t) => t.total))} | ${p(c.timings.map((t) => t.sandbox))} | ${fmt(p50(c.timings.map((t) => t.transport)), 2)} | ${fmt(p50(c.timings.map((t) => t.scoring)), 2)} | ${c.failed} |`);
  }
  console.log('');
  for (const client of clients) {
    const [one, four] = cases.filter((c) => c.client === client);
    const ratio = p50(four!.timings.map((t) => t.total)) / p50(one!.timings.map((t) => t.total));
    const inSandbox = p50(four!.timings.map((t) => t.sandbox)) / p50(one!.timings.map((t) => t.sandbox));
    console.log(`${client}: 4-step / 1-step at p50 ${fmt(ratio, 2)}x (in the sandbox alone ${fmt(inSandbox, 2)}x); target <= 3x: ${ratio <= 3 ? 'met' : 'missed'}`);
  }
  console.log('\nProfile (the sandbox in this process, p50 ms): start per run = a program that sends nothing; per request = (4-step - 1-step) / 3.\n');
  console.log('| client | start per run | 1-step | 4-step | per request |');
  console.log('|---|---|---|---|---|');
  const start = p50(idleMs);
  for (const client of clients) {
    const [one, four] = local.filter((l) => l.c.client === client);
    const a = p50(one!.ms);
    const b = p50(four!.ms);
    console.log(`| ${client} | ${fmt(start, 2)} | ${fmt(a, 2)} | ${fmt(b, 2)} | ${fmt((b - a) / 3, 2)} |`);
  }
}
