import { beforeAll, describe, expect, it } from 'vitest';
import type { SampleDraft } from '../../main/dataset/index.js';
import type { BundledVocabulary } from '../../main/generation/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import type { CompletionMode } from '../../main/prompt/index.js';
import { constrainedRun } from '../support/executability.js';
import { hasVocabBundle } from '../support/vocab.js';
import { loadWapiiBench } from '../support/wapiibench.js';

/**
 * Constrained code always runs: random-weight models sampled at temperature 1 over the whole
 * distribution write whatever the grammar allows, through the real runner and sandbox. A
 * deterministic slice here (16 samples spread over the four APIs, per vocabulary and setup); all
 * 395 × 2 setups × 2 vocabularies in `npm run bench -- executability`.
 */
describe.skipIf(!hasVocabBundle)('constrained code of a random model always runs', () => {
  let samples: SampleDraft[];
  let specs: Map<string, ApiSpec>;
  beforeAll(async () => {
    ({ samples, specs } = await loadWapiiBench());
  });

  for (const vocabulary of ['qwen2', 'llama-spm'] as BundledVocabulary[]) {
    for (const setup of ['full', 'argument'] as CompletionMode[]) {
      it(`${vocabulary}, ${setup} completion: every output executable and legal, none timed out`, async () => {
        // Offset per setup, so the two setups see different samples.
        const indices = Array.from({ length: 16 }, (_, i) => (Math.floor((i * samples.length) / 16) + (setup === 'full' ? 0 : 7)) % samples.length);
        const tally = await constrainedRun({ vocabulary, setup, samples, indices, specs, maxTokens: 48, seed: 3 });
        expect(tally.outputs).toBe(16);
        expect(tally.failures.map((f) => `#${f.index} ${f.kind}: ${f.detail} — ${JSON.stringify(f.code.slice(-200))}`)).toEqual([]);
        expect(tally.executable).toBe(16);
        expect(tally.illegal).toBe(0);
        expect(tally.timeouts).toBe(0);
      }, 900_000);
    }
  }
});
