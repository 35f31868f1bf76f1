import fs from 'node:fs';
import path from 'node:path';
import { parseDataset } from '../main/dataset/index.js';
import { cachedTestModel, describeRuntime, loadRuntime, localBackend, physicalCores, type Generation, type GenerationBackend, type Runtime, type TestModelShape } from '../main/generation/index.js';
import type { ApiSpec } from '../main/openapi/index.js';
import { completionPrompt, type CompletionPrompt } from '../main/prompt/index.js';
import { constrainerFor } from '../main/runner/index.js';
import { fmt } from './stats.js';

interface Job {
  readonly prompt: CompletionPrompt;
  readonly api: string;
}

interface Tally {
  tokens: number;
  ms: number;
  constraintMs: number;
  replaced: number;
}

const add = (t: Tally, g: Generation): void => {
  t.tokens += g.tokens;
  t.ms += g.generateMs;
  t.constraintMs += g.constraintMs;
  t.replaced += g.interventions.filter((i) => i.kind === 'replaced').length;
};
const perToken = (t: Tally): number => t.ms / Math.max(1, t.tokens);

interface Drained {
  tokens: number;
  ms: number;
  /** Sequences per batch, summed over tokens. */
  batched: number;
  /** Milliseconds waiting for llama.cpp's logits (see Generation.decodeMs), summed over tokens' steps. */
  decodeMs: number;
}

/** Every job through a backend's slots, one queue. */
async function drain(backend: GenerationBackend, jobs: readonly Job[]): Promise<Drained> {
  let next = 0;
  let tokens = 0;
  let batched = 0;
  let decodeMs = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: backend.slots }, async (_, slot) => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        const g = await backend.slot(slot).generate({ prompt: job.prompt, api: job.api, seed: 1 });
        tokens += g.tokens;
        batched += g.batched * g.tokens;
        decodeMs += g.decodeMs ?? 0;
      }
    }),
  );
  return { tokens, ms: performance.now() - started, batched, decodeMs };
}

async function benchModel(label: string, runtime: Runtime, specs: ReadonlyMap<string, ApiSpec>, jobs: readonly Job[], maxTokens: number): Promise<void> {
  const sampling = { temperature: 0, topK: 40, topP: 0.95, maxTokens, contextSize: 512, stepDeadlineMs: 60_000 };
  const free = await localBackend(runtime, { ...sampling, parallel: 1 });
  const constrained = await localBackend(runtime, { ...sampling, parallel: 1, constrainBy: constrainerFor(specs) });
  // Warm-up, not measured: the first samples of an API build its constraint's per-class exit tables once.
  for (const job of jobs.slice(0, 4)) {
    await free.slot(0).generate({ prompt: job.prompt, api: job.api, seed: 1 });
    await constrained.slot(0).generate({ prompt: job.prompt, api: job.api, seed: 1 });
  }
  const a: Tally = { tokens: 0, ms: 0, constraintMs: 0, replaced: 0 };
  const b: Tally = { tokens: 0, ms: 0, constraintMs: 0, replaced: 0 };
  // Interleaved, alternating which goes first, so drift on a busy machine hits both alike.
  for (const [i, job] of jobs.entries()) {
    const order = i % 2 === 0 ? [free, constrained] : [constrained, free];
    for (const backend of order) add(backend === free ? a : b, await backend.slot(0).generate({ prompt: job.prompt, api: job.api, seed: 1 }));
  }
  console.log(`| ${label} | unconstrained | ${a.tokens} | ${fmt(perToken(a))} | | |`);
  console.log(`| ${label} | constrained | ${b.tokens} | ${fmt(perToken(b))} | ${fmt((b.constraintMs / Math.max(1, b.tokens)) * 1000, 0)} | ${fmt((b.replaced / Math.max(1, b.tokens)) * 100, 1)}% |`);
  console.log(`| ${label} | **ratio** | | **${fmt(perToken(b) / perToken(a), 3)}** | | |`);
  await free[Symbol.asyncDispose]();
  await constrained[Symbol.asyncDispose]();

  // Throughput: the same unconstrained jobs on 1, 2 and 4 sequences of one context, twice each, in a
  // mirrored order; each backend alone in memory (an idle context's CPU threads would compete with the measured one).
  const bySequences = new Map<number, Drained>();
  for (const sequences of [1, 2, 4, 4, 2, 1]) {
    await using backend = await localBackend(runtime, { ...sampling, parallel: sequences });
    await drain(backend, jobs.slice(0, sequences)); // each sequence holds the shared prompt head, as in a run
    const r = await drain(backend, jobs);
    const into = bySequences.get(sequences) ?? { tokens: 0, ms: 0, batched: 0, decodeMs: 0 };
    into.tokens += r.tokens;
    into.ms += r.ms;
    into.batched += r.batched;
    into.decodeMs += r.decodeMs;
    bySequences.set(sequences, into);
  }
  // The thread count: 1 and 4 sequences on the other choice (one thread where the default is more,
  // else one per physical core), against the default the rows above ran on (see defaultThreads).
  const other = runtime.info.threads > 1 ? 1 : physicalCores(runtime.llama);
  const onOther = new Map<number, { tokens: number; ms: number }>();
  if (runtime.info.backend === 'cpu' && other !== runtime.info.threads) {
    for (const sequences of [1, 4]) {
      await using backend = await localBackend(runtime, { ...sampling, parallel: sequences, threads: other });
      await drain(backend, jobs.slice(0, sequences));
      onOther.set(sequences, await drain(backend, jobs));
    }
  }
  const tps = (t: { tokens: number; ms: number }): number => (t.tokens / t.ms) * 1000;
  const [one, two, four] = [1, 2, 4].map((n) => bySequences.get(n)!);
  const otherCell = onOther.size > 0 ? `${other}: ${fmt(tps(onOther.get(1)!), 1)} / ${fmt(tps(onOther.get(4)!), 1)}` : 'n/a';
  parallelRows.push(
    `| ${label} | ${runtime.info.threads} | ${fmt(tps(one!), 1)} | ${fmt(tps(two!), 1)} (${fmt(two!.batched / two!.tokens, 2)}) | ${fmt(tps(four!), 1)} (${fmt(four!.batched / four!.tokens, 2)}) | **${fmt(tps(four!) / tps(one!), 2)}×** | ${otherCell} |`,
  );
  // Each token's step waited for its batch's logits: per step, the decode; per token of wall time, the step.
  const decodePerStep = (d: Drained): number => d.decodeMs / d.tokens;
  const share = (d: Drained, sequences: number): number => decodePerStep(d) / ((d.ms * sequences) / d.tokens);
  decodeRows.push(
    `| ${label} | ${[one!, two!, four!].map((d) => fmt(decodePerStep(d), 1)).join(' | ')} | ${fmt((4 / decodePerStep(four!)) / (1 / decodePerStep(one!)), 2)}× | ${fmt(share(one!, 1) * 100, 0)}% / ${fmt(share(four!, 4) * 100, 0)}% |`,
  );
}

const parallelRows: string[] = [];
const decodeRows: string[] = [];

/**
 * Time per generated token, constrained vs unconstrained, on random-weight qwen2-vocabulary models
 * (tiny, and 12 layers × 512 where the forward pass dominates), and tokens/s with 1 vs N
 * parallel sequences. Greedy decoding on the same prompts (WAPIIBench tasks, full completion).
 */
export async function benchGeneration(wapiibench: string, specs: ReadonlyMap<string, ApiSpec>, options: { gpu: 'auto' | 'cpu' } = { gpu: 'auto' }): Promise<void> {
  const parsed = parseDataset(fs.readFileSync(path.join(wapiibench, 'dataset', 'all.json'), 'utf8'), 'all.json');
  if (!parsed.ok) throw new Error(parsed.error.message);
  // Every 20th sample: all four APIs, in file order.
  const jobs: Job[] = parsed.value.filter((_, i) => i % 20 === 0).map((s) => ({ prompt: completionPrompt(s, 'full'), api: s.api }));
  const models: { label: string; shape: Partial<TestModelShape>; jobs: number; maxTokens: number }[] = [
    { label: 'tiny 2×64', shape: { layers: 2, dim: 64 }, jobs: jobs.length, maxTokens: 48 },
    { label: '12×512', shape: { layers: 12, dim: 512 }, jobs: 12, maxTokens: 32 },
    // Most GGUF models people run are quantized; the CPU's batched kernels for them are not f16's.
    { label: '12×512 q8_0', shape: { layers: 12, dim: 512, weights: 'q8_0' }, jobs: 12, maxTokens: 32 },
  ];
  console.log('\n## Generation: constrained vs unconstrained, per generated token\n');
  console.log('Random-weight qwen2-vocabulary models (151,936 tokens), greedy, full completion, the same WAPIIBench prompts for both settings, interleaved.\n');
  const header: string[] = [];
  const rows: (() => Promise<void>)[] = [];
  for (const m of models) {
    rows.push(async () => {
      const runtime = await loadRuntime(cachedTestModel('qwen2', m.shape), { gpu: options.gpu });
      header.push(`- ${m.label}: ${describeRuntime(runtime.info)}`);
      try {
        await benchModel(m.label, runtime, specs, jobs.slice(0, m.jobs), m.maxTokens);
      } finally {
        await runtime.dispose();
      }
    });
  }
  console.log('| model | setting | tokens | ms/token | constraint µs/token | tokens overruled |');
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) await row();
  console.log(`\n${header.join('\n')}\n\nTarget: ratio <= 1.05.\n`);
  console.log('Unconstrained, the same jobs on 1, 2 and 4 sequences of one context; in brackets, the sequences decoded per batch on average. Target: 4 sequences >= 2.5x one on 12×512.\n');
  console.log(`| model | CPU threads (the default) | tokens/s, 1 sequence | 2 sequences | 4 sequences | 4 vs 1 | the other thread count: 1 / 4 sequences |`);
  console.log('|---|---|---|---|---|---|---|');
  for (const row of parallelRows) console.log(row);
  console.log("\nWhere a step's time goes, on the same runs: llama.cpp's decode per step (from queueing a step's tokens to their logits), the 4-vs-1 ratio that decode alone allows (the ceiling for the row above), and the decode's share of the wall time (the rest is sampling, the stop check and the gate).\n");
  console.log('| model | decode ms per step, 1 sequence | 2 sequences | 4 sequences | 4 vs 1 by the decode alone | decode share of wall time, 1 / 4 sequences |');
  console.log('|---|---|---|---|---|---|');
  for (const row of decodeRows) console.log(row);
}
