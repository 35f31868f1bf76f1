import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_CLIENTS, type HttpClient } from '../../main/api/clients.js';
import { unwrap } from '../../main/api/result.js';
import type { JsonValue } from '../../main/api/schemas.js';
import { carriedSource, valueAtPointer } from '../../main/api/steps.js';
import { readFileInput, readSpecDir } from '../../main/cli/files.js';
import { createExecutor, type Executor } from '../../main/execution/index.js';
import { QUOTES, stepsOracleProgram, type CallStyle, type Quote } from '../../main/prompt/index.js';
import { evaluateSteps, stepsOf } from '../../main/runner/index.js';
import type { Step } from '../../main/scoring/index.js';
import { prepareDataset, type PreparedDataset } from '../../main/service/index.js';
import { hasWapiiBench, REPO_ROOT, WAPIIBENCH_SPECS } from '../support/paths.js';

/**
 * The multi-step seed dataset (datasets/multistep.json; issue 37 item 6; scoring.md §7): tasks over
 * the four WAPIIBench APIs that look something up and then act on it. It imports through the same
 * path as any dataset (parsed, its APIs resolved to ../shared/wapiibench/specs, every step's request,
 * stubbed response and carried pointer checked) with no finding, and its ground truth scores
 * correct, every step and every carried value, in every client, quote and call style.
 */
const DATASET = path.join(REPO_ROOT, 'datasets', 'multistep.json');
const APIS = ['asana', 'google_calendar_v3', 'google_sheet_v4', 'slack'];

interface Task {
  readonly index: number;
  readonly api: string;
  readonly task: string;
  readonly steps: readonly Step[];
}

/** Every carried value of a task: where the step sends it, and what the earlier response holds there. */
function carriedValues(steps: readonly Step[]): { where: string; held: JsonValue | undefined }[] {
  return steps.flatMap((step) =>
    Object.entries(step.carried ?? {}).map(([where, source]) => {
      const { step: from, pointer } = carriedSource(source);
      return { where, held: valueAtPointer(steps[from]?.response as JsonValue | undefined, pointer) };
    }),
  );
}

describe.runIf(hasWapiiBench)('the multi-step seed dataset', () => {
  let prepared: PreparedDataset;
  let tasks: Task[];
  let executor: Executor;
  beforeAll(async () => {
    prepared = unwrap(await prepareDataset(unwrap(readFileInput(DATASET)), unwrap(readSpecDir(WAPIIBENCH_SPECS))));
    tasks = prepared.samples.map((s, index) => ({ index, api: s.api, task: s.task, steps: stepsOf(s.fields) ?? [] }));
    // One executor for every program; its sandboxes take them as they come.
    executor = createExecutor({ timeoutMs: 5000 });
  });
  afterAll(async () => {
    await executor[Symbol.asyncDispose]();
  });

  it('holds at least 40 tasks of 2 to 4 steps over all four APIs, each written as steps only', () => {
    const raw = JSON.parse(fs.readFileSync(DATASET, 'utf8')) as Record<string, unknown>[];
    expect(raw.length).toBeGreaterThanOrEqual(40);
    // Every entry parsed, as a multi-step sample (steps, never a top-level config).
    expect(tasks).toHaveLength(raw.length);
    expect(raw.filter((entry) => 'config' in entry || !Array.isArray(entry['steps']))).toEqual([]);
    expect(tasks.filter((t) => t.steps.length < 2 || t.steps.length > 4).map((t) => t.index)).toEqual([]);
    expect([...new Set(tasks.map((t) => t.api))].sort()).toEqual(APIS);
    expect([...prepared.specs.keys()].sort()).toEqual(APIS);
    for (const api of APIS) expect(tasks.filter((t) => t.api === api).length, api).toBeGreaterThanOrEqual(8);
  });

  it('carries a value from an earlier response in at least half of its tasks, never stating it in the task', () => {
    const carrying = tasks.filter((t) => t.steps.some((s) => Object.keys(s.carried ?? {}).length > 0));
    expect(carrying.length * 2).toBeGreaterThanOrEqual(tasks.length);
    // A carried value is what the task makes the program look up: the task text does not give it away.
    const stated = tasks.flatMap((t) => carriedValues(t.steps).filter(({ held }) => held !== undefined && t.task.includes(String(held))).map(({ where }) => `${t.index} ${where}`));
    expect(stated).toEqual([]);
  });

  it('passes every check: each step against the spec, each response against its schema, each carried pointer', () => {
    const findings = prepared.samples.flatMap((s, i) => s.findings.map((f) => `${i} (${s.api}): ${f.message}`));
    expect(findings).toEqual([]);
  });

  const styles = HTTP_CLIENTS.flatMap((client) => (Object.keys(QUOTES) as Quote[]).flatMap((quote) => (['then', 'await'] as const).map((style) => ({ client, quote, style }))));
  it.each(styles)('its ground truth scores every task correct, every step and carried value: $client, $quote quotes, $style', async ({ client, quote, style }: { client: HttpClient; quote: Quote; style: CallStyle }) => {
    const failures = await Promise.all(
      tasks.map(async (t) => {
        const program = stepsOracleProgram(t, client, quote, style);
        const spec = prepared.specs.get(t.api)!.spec;
        const { verdict, execution } = await evaluateSteps(program, t.steps, spec, executor);
        const carried = carriedValues(t.steps);
        const problems = [
          ...(verdict.sample_verdict === 'correct' ? [] : [`verdict ${verdict.sample_verdict}`]),
          ...(verdict.steps_correct === t.steps.length ? [] : [`steps ${verdict.steps_correct}/${t.steps.length}, first failed ${verdict.first_failed_step}`]),
          ...(verdict.extra_requests === 0 ? [] : [`${verdict.extra_requests} extra requests`]),
          ...(verdict.carried_total === carried.length && verdict.carried_correct === verdict.carried_total ? [] : [`carried ${verdict.carried_correct}/${verdict.carried_total} of ${carried.length}`]),
          // Read from the responses, never copied from the stubs (scoring.md §7, Oracle).
          ...carried.filter(({ held }) => program.includes(String(held))).map(({ where }) => `${where} written as a literal`),
          ...(execution.error ? [`error ${execution.error.kind}: ${execution.error.message}`] : []),
        ];
        return problems.length === 0 ? [] : [`${t.index} (${t.api}): ${problems.join('; ')}`];
      }),
    );
    expect(failures.flat()).toEqual([]);
  });
});
