import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseDataset, type SampleDraft } from '../../main/dataset/index.js';
import type { BundledVocabulary } from '../../main/generation/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { constrainedRun } from '../support/executability.js';
import { REPO_ROOT } from '../support/paths.js';
import { hasVocabBundle } from '../support/vocab.js';
import { loadWapiiBench } from '../support/wapiibench.js';

/**
 * A constrained run of a random-weight model on the multi-step seed dataset (issue 37): the model
 * writes whatever the constraint lets it, at temperature 1 over its whole distribution, so every
 * output that does not run or sends an illegal request is a hole. Every request a program makes is
 * held to the spec (not only the first), names the program declared between calls are in scope
 * for later calls, and the text is cut back to where the program parses.
 */
describe.skipIf(!hasVocabBundle)('constrained multi-step programs of a random model', () => {
  let samples: SampleDraft[];
  let specs: Map<string, ApiSpec>;
  beforeAll(async () => {
    ({ specs } = await loadWapiiBench());
    const parsed = parseDataset(fs.readFileSync(path.join(REPO_ROOT, 'datasets/multistep.json'), 'utf8'), 'multistep.json');
    if (!parsed.ok) throw new Error(parsed.error.message);
    samples = parsed.value.filter((s) => s.fields?.['steps'] !== undefined);
  });

  for (const vocabulary of ['qwen2'] as BundledVocabulary[]) {
    it(`${vocabulary}: every output executes and every captured request is legal`, async () => {
      const indices = samples.map((_, i) => i);
      const tally = await constrainedRun({ vocabulary, setup: 'full', samples, indices, specs, maxTokens: 128, seed: 5 });
      expect(tally.outputs).toBe(samples.length);
      expect(tally.failures.map((f) => `#${f.index} ${f.kind}: ${f.detail} — ${JSON.stringify(f.code.slice(-300))}`)).toEqual([]);
      expect(tally.executable).toBe(samples.length);
      expect(tally.illegal).toBe(0);
      // Scored as multi-step samples; how many went on past their first call is the model's (reported, not asserted).
      expect(tally.verdicts.every((v) => v?.steps_total !== undefined)).toBe(true);
      console.log(`multi-step constrained: ${tally.outputs} outputs, requests per output ${JSON.stringify(tally.requests)}, ${tally.seconds.toFixed(0)} s`);
    }, 1_800_000);
  }
});
