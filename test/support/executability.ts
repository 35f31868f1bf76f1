import fs from 'node:fs';
import path from 'node:path';
import { unwrap } from '../../main/api/result.js';
import type { SampleDraft } from '../../main/dataset/index.js';
import { createExecutor } from '../../main/execution/index.js';
import { cachedTestModel, localBackend, loadRuntime, type BundledVocabulary } from '../../main/generation/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import type { CompletionMode } from '../../main/prompt/index.js';
import { constrainerFor, executeRun } from '../../main/runner/index.js';
import type { Verdict } from '../../main/scoring/index.js';
import { Store } from '../../main/store/index.js';
import { tempDir } from './paths.js';

/** One output that is not executable, or executable but illegal: what the engine let through. */
export interface Failure {
  readonly index: number;
  readonly api: string;
  /** `illegal`, or why the output did not execute (runtime_error, timeout, unsatisfiable, no_request, …, or the generation error). */
  readonly kind: string;
  readonly detail: string;
  readonly code: string;
}

export interface ExecutabilityTally {
  readonly vocabulary: BundledVocabulary;
  readonly setup: CompletionMode;
  readonly outputs: number;
  readonly executable: number;
  readonly illegal: number;
  readonly timeouts: number;
  readonly tokens: number;
  readonly seconds: number;
  readonly failures: readonly Failure[];
  /** Every output's code, by sample position (the whitespace-bound test reads them all). */
  readonly codes: readonly { readonly index: number; readonly code: string }[];
  /** Every output's verdict, and how many requests its program sent. */
  readonly verdicts: readonly (Verdict | null)[];
  readonly requests: readonly number[];
}

/** Sampling of the constrained runs: temperature 1 over the whole distribution (no top-k/top-p cut), so a random model wanders everywhere the grammar lets it. */
export const EXECUTABILITY_SAMPLING = { temperature: 1, topK: 0, topP: 1 } as const;

/**
 * Constrained runs of a random-weight test model through the real runner (generate → extract →
 * execute in the isolated-vm sandbox → score): the outputs that were not executable or were
 * illegal, with their code. A random model writes whatever the grammar allows, so every such
 * output is a hole in the constraint engine.
 */
export async function constrainedRun(input: {
  readonly vocabulary: BundledVocabulary;
  readonly setup: CompletionMode;
  readonly samples: readonly SampleDraft[];
  /** Positions in `samples` to run. */
  readonly indices: readonly number[];
  readonly specs: ReadonlyMap<string, ApiSpec>;
  readonly maxTokens: number;
  readonly seed?: number;
}): Promise<ExecutabilityTally> {
  const started = performance.now();
  // One thread: a 2×64 model's token is too small to share between threads.
  const runtime = await loadRuntime(cachedTestModel(input.vocabulary), { gpu: 'cpu', threads: 1 });
  const dir = tempDir('wapii-executability-');
  const store = unwrap(Store.open(path.join(dir, 'run.db')));
  try {
    await using backend = await localBackend(runtime, { parallel: 1, contextSize: 1024, constrainBy: constrainerFor(input.specs), stepDeadlineMs: 10_000, maxTokens: input.maxTokens, ...EXECUTABILITY_SAMPLING });
    await using executor = createExecutor({ workers: 1, timeoutMs: 1000 });
    const samples = input.indices.map((index) => ({ index, ...pick(input.samples[index]!) }));
    const { runId } = await executeRun({
      store,
      backend,
      executor,
      samples,
      specs: input.specs,
      plan: { mode: input.setup, n: 1, seed: input.seed ?? 1, settings: { setup: input.setup, setting: 'constrained', ...EXECUTABILITY_SAMPLING }, manifest: {}, dataset: 'wapiibench' },
    });
    const run = store.getRun(runId)!;
    const failures: Failure[] = [];
    let executable = 0;
    let illegal = 0;
    let timeouts = 0;
    let tokens = 0;
    for (const s of run.samples) {
      const verdict = s.verdict as Verdict | null;
      tokens += (s.generation as { tokens?: number } | undefined)?.tokens ?? 0;
      const failure = (kind: string, detail: string): void => void failures.push({ index: s.index, api: s.api, kind, detail, code: s.code });
      if (s.error !== undefined || !verdict) failure('error', s.error ?? 'no verdict');
      else if (verdict.sample_verdict === 'nonexecutable') {
        if (verdict.error_verdict === 'timeout') timeouts++;
        const execution = s.execution as { error?: { kind: string; message: string } } | undefined;
        failure(verdict.error_verdict ?? 'nonexecutable', execution?.error ? `${execution.error.kind}: ${execution.error.message}` : JSON.stringify(s.extraction));
      } else {
        executable++;
        if (verdict.sample_verdict === 'illegal') {
          illegal++;
          failure('illegal', JSON.stringify({ url: verdict.url_verdict, method: verdict.method_verdict, arguments: verdict.arguments }));
        }
      }
    }
    return { vocabulary: input.vocabulary, setup: input.setup, outputs: run.samples.length, executable, illegal, timeouts, tokens, seconds: (performance.now() - started) / 1000, failures, codes: run.samples.map((s) => ({ index: s.index, code: s.code })), verdicts: run.samples.map((s) => s.verdict as Verdict | null), requests: run.samples.map((s) => (s.execution as { requests?: number } | undefined)?.requests ?? 0) };
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
    await runtime.dispose();
  }
}

/** What a run takes of a sample: a multi-step sample's steps come with its fields. */
const pick = (s: SampleDraft): { api: string; task: string; config: SampleDraft['config']; fields?: NonNullable<SampleDraft['fields']> } => ({ api: s.api, task: s.task, config: s.config, ...(s.fields ? { fields: s.fields } : {}) });
