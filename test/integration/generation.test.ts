import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConstraintMatcher, declaredNames } from '../../main/constraints/index.js';
import { createExecutor, extractInvocation } from '../../main/execution/index.js';
import type { SampleDraft } from '../../main/dataset/index.js';
import { cachedTestModel, localBackend, loadRuntime, type BundledVocabulary, type Generation, type Runtime } from '../../main/generation/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { chatPrompt, completionPrompt, type CompletionMode } from '../../main/prompt/index.js';
import { constrainerFor } from '../../main/runner/index.js';
import { hasVocabBundle } from '../support/vocab.js';
import { loadWapiiBench } from '../support/wapiibench.js';

/**
 * Real node-llama-cpp on random-weight models built on two tokenizer families. A random model
 * says nothing sensible, which is the point: constrained output must be legal whatever it says.
 */
describe.skipIf(!hasVocabBundle)('local generation on random-weight test models', () => {
  let samples: SampleDraft[];
  let specs: Map<string, ApiSpec>;
  beforeAll(async () => {
    ({ samples, specs } = await loadWapiiBench());
  });

  // One sample per API, spread over the file, in both setups.
  const pick = (): { sample: SampleDraft; index: number; setup: CompletionMode }[] => {
    const out: { sample: SampleDraft; index: number; setup: CompletionMode }[] = [];
    for (const api of [...new Set(samples.map((s) => s.api))]) {
      const index = samples.findIndex((s) => s.api === api);
      out.push({ sample: samples[index]!, index, setup: 'full' }, { sample: samples[index + 1]!, index: index + 1, setup: 'argument' });
    }
    return out;
  };

  for (const vocab of ['qwen2', 'llama-spm'] as BundledVocabulary[]) {
    describe(vocab, () => {
      let runtime: Runtime;
      beforeAll(async () => {
        runtime = await loadRuntime(cachedTestModel(vocab), { gpu: 'cpu' });
      });
      afterAll(async () => runtime?.dispose());

      it('loads on the CPU with one thread (a model this small decodes faster on one), and says why it is on the CPU', () => {
        expect(runtime.info).toMatchObject({ backend: 'cpu', architecture: 'llama', quantisation: 'MOSTLY_F16', threads: 1, layersOffloaded: 0 });
        expect(runtime.info.threadsReason).toMatch(/^one: a model under 64 MiB/);
        expect(runtime.info.cpuReason).toMatch(/--gpu cpu/);
        expect(runtime.info.modelSha256).toMatch(/^[0-9a-f]{64}$/);
        const code = "axios.get('https://slack.com/api/conversations.list', { params: { limit: 5 } });";
        expect(runtime.model.detokenize(runtime.model.tokenize(code))).toBe(code);
      });

      it('constrained: every completion, sampled at temperature 1 on two parallel sequences, is a complete legal invocation', async () => {
        await using backend = await localBackend(runtime, { parallel: 2, contextSize: 512, constrainBy: constrainerFor(specs), stepDeadlineMs: 10_000, temperature: 1, topK: 0, topP: 1, maxTokens: 24 });
        const work = pick();
        const results: { item: (typeof work)[number]; generation: Generation; prompt: string }[] = [];
        // Two slots, each working through its half, as the runner drives them.
        await Promise.all(
          [0, 1].map(async (slot) => {
            for (const item of work.filter((_, i) => i % 2 === slot)) {
              const prompt = completionPrompt(item.sample, item.setup);
              results.push({ item, generation: await backend.slot(slot).generate({ prompt, api: item.sample.api, seed: 7 + item.index }), prompt: prompt.text });
            }
          }),
        );
        expect(results).toHaveLength(work.length);
        let replaced = 0;
        for (const { item, generation, prompt } of results) {
          const matcher = ConstraintMatcher.create(specs.get(item.sample.api)!, declaredNames(prompt));
          const fed = matcher.feed(prompt + generation.text);
          expect(fed, `${item.sample.api} #${item.index}: ${JSON.stringify(generation.text)}`).toMatchObject({ ok: true });
          expect(matcher.isComplete()).toBe(true);
          expect(['snippet', 'limit']).toContain(generation.stop);
          expect(generation.tokens).toBeLessThanOrEqual(24);
          if (generation.stop === 'limit') expect(generation.interventions.at(-1)).toMatchObject({ kind: 'closed' });
          for (const i of generation.interventions) {
            if (i.kind !== 'replaced') continue;
            replaced++;
            expect(i.model.token).not.toBe(i.chosen.token);
            expect(typeof i.chosen.text).toBe('string');
          }
        }
        // A random model is overruled all the time; an engine that never intervened would be suspect.
        expect(replaced).toBeGreaterThan(0);
        // The two slots step together: their tokens go to llama.cpp in one batch, not by turns.
        const steps = results.reduce((n, r) => n + r.generation.tokens, 0);
        expect(results.reduce((n, r) => n + r.generation.batched * r.generation.tokens, 0) / steps).toBeGreaterThan(1.4);
        // The wait for llama.cpp's logits is part of each generation's time, never more than all of it.
        for (const { generation } of results) {
          // The first token comes from the prompt's step (promptMs); every later one waited for a decode.
          if (generation.tokens > 1) expect(generation.decodeMs).toBeGreaterThan(0);
          expect(generation.decodeMs).toBeLessThanOrEqual(generation.generateMs);
        }
        // The first constrained test prepares the vocabulary (its trie and class tables), seconds on a busy machine.
      }, 300_000);

      it('constrained argument completion at temperature 1: every output parses and runs without naming anything undeclared', async () => {
        await using backend = await localBackend(runtime, { parallel: 2, contextSize: 512, constrainBy: constrainerFor(specs), stepDeadlineMs: 10_000, temperature: 1, topK: 0, topP: 1, maxTokens: 48 });
        await using executor = createExecutor({ workers: 1 });
        // 40 samples spread over the dataset (all four APIs).
        const work = Array.from({ length: 40 }, (_, i) => Math.floor((i * samples.length) / 40));
        const codes: { index: number; code: string }[] = [];
        await Promise.all(
          [0, 1].map(async (slot) => {
            for (const index of work.filter((_, i) => i % 2 === slot)) {
              const sample = samples[index]!;
              const prompt = completionPrompt(sample, 'argument');
              const generation = await backend.slot(slot).generate({ prompt, api: sample.api, seed: 100 + index });
              codes.push({ index, code: prompt.starter + generation.text });
            }
          }),
        );
        const failures: string[] = [];
        let clean = 0;
        for (const { index, code } of codes) {
          const extraction = extractInvocation(code);
          if (extraction.status !== 'ok') {
            failures.push(`#${index} not extracted (${extraction.status}): ${code.slice(-200)}`);
            continue;
          }
          const run = await executor.run(extraction.program);
          // A random model may call a member that is not a function (TypeError); it must never write code that does not parse or names something undefined.
          if (run.error && (run.error.kind === 'syntax' || /ReferenceError|SyntaxError|is not defined/.test(run.error.message))) failures.push(`#${index} ${run.error.kind}: ${run.error.message}: ${code.slice(-200)}`);
          if (!run.error && run.requests.length > 0) clean++;
        }
        expect(codes).toHaveLength(40);
        expect(failures).toEqual([]);
        console.log(`${vocab}: ${clean} of 40 constrained argument completions ran and sent their request`);
      }, 600_000);

      it('unconstrained: greedy output is deterministic, and the shared prompt head is evaluated once per sequence', async () => {
        await using backend = await localBackend(runtime, { parallel: 1, contextSize: 512, stepDeadlineMs: 10_000, temperature: 0, topK: 40, topP: 0.95, maxTokens: 12 });
        const [a, b] = pick();
        const run = async (item: typeof a) => backend.slot(0).generate({ prompt: completionPrompt(item!.sample, item!.setup), api: item!.sample.api, seed: 1 });
        const first = await run(a);
        const second = await run(b);
        const again = await run(a);
        expect(first.reusedPromptTokens).toBe(0);
        expect(second.reusedPromptTokens).toBeGreaterThan(20); // the template's instruction and examples
        expect(second.reusedPromptTokens).toBeLessThan(second.promptTokens);
        expect(again.text).toBe(first.text);
        expect(again.tokens).toBe(first.tokens);
        expect(first.interventions).toEqual([]);
        expect(first.constraintMs).toBe(0);
      });

      it("chat: the prompt goes through the model's chat wrapper, the reply opens with the starter, and constrained replies are legal", async () => {
        await using free = await localBackend(runtime, { parallel: 1, contextSize: 768, stepDeadlineMs: 10_000, temperature: 0, topK: 40, topP: 0.95, maxTokens: 8, chatWrapper: 'chatML' });
        await using constrained = await localBackend(runtime, { parallel: 1, contextSize: 768, constrainBy: constrainerFor(specs), stepDeadlineMs: 10_000, temperature: 1, topK: 0, topP: 1, maxTokens: 16, chatWrapper: 'chatML' });
        expect(free.manifest).toMatchObject({ chatWrapper: 'ChatML' });
        for (const item of pick().slice(0, 2)) {
          const prompt = chatPrompt(item.sample, item.setup);
          expect(prompt.replyPrefix).toBe('```javascript\n' + prompt.starter);
          const plain = await free.slot(0).generate({ prompt, api: item.sample.api, seed: 1 });
          // Everything the user's message says, framed as a ChatML turn, came before the reply.
          expect(plain.promptTokens).toBeGreaterThan(runtime.model.tokenize(prompt.text + prompt.replyPrefix!).length);
          expect(plain.text).not.toContain('\n```');
          const legal = await constrained.slot(0).generate({ prompt, api: item.sample.api, seed: 3 });
          const matcher = ConstraintMatcher.create(specs.get(item.sample.api)!, declaredNames(prompt.starter));
          expect(matcher.feed(prompt.replyPrefix! + legal.text)).toMatchObject({ ok: true });
          expect(matcher.isComplete()).toBe(true);
        }
      });
    });
  }
});
