import { tokenizer } from 'acorn';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConstraintMatcher } from '../../main/constraints/index.js';
import type { SampleDraft } from '../../main/dataset/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { oracleProgram, type CompletionMode } from '../../main/prompt/index.js';
import { constrainedRun } from '../support/executability.js';
import { hasWapiiBench } from '../support/paths.js';
import { hasVocabBundle } from '../support/vocab.js';
import { loadWapiiBench } from '../support/wapiibench.js';

/** What constraints.md allows between two tokens: runs of at most 16 spaces or tabs around at most one line break. */
const BOUND = /^[ \t]{0,16}(?:\r?\n[ \t]{0,16})?$/;

/**
 * The whitespace between two tokens of the invocation the model wrote (from the starter's call
 * to where the statement ends, or to the end of the output), read by acorn's tokenizer, not by
 * the matcher under test: string contents are inside tokens and not counted.
 */
function gapsOf(spec: ApiSpec, starter: string, code: string): string[] {
  const callStart = starter.lastIndexOf('axios.');
  const matcher = ConstraintMatcher.create(spec);
  let end = code.length;
  for (let i = callStart; i < code.length; i++) {
    if (!matcher.push(code[i]!)) break;
    if (i > callStart + 'axios.'.length && matcher.isComplete()) {
      end = i + 1;
      break;
    }
  }
  const call = code.slice(callStart, end);
  const gaps: string[] = [];
  let last = 0;
  try {
    for (const token of tokenizer(call, { ecmaVersion: 'latest' })) {
      gaps.push(call.slice(last, token.start));
      last = token.end;
    }
  } catch {
    // An output cut off by its token budget ends inside a token: the gaps before it are read.
  }
  return gaps;
}

describe.runIf(hasWapiiBench && hasVocabBundle)('a random-weight model never writes more whitespace between two tokens than the bound', () => {
  let samples: SampleDraft[];
  let specs: Map<string, ApiSpec>;
  beforeAll(async () => {
    ({ samples, specs } = await loadWapiiBench());
  });

  for (const setup of ['full', 'argument'] as CompletionMode[]) {
    it(`qwen2, temperature 1, ${setup} completion`, async () => {
      const indices = Array.from({ length: 6 }, (_, i) => (Math.floor((i * samples.length) / 6) + (setup === 'full' ? 3 : 11)) % samples.length);
      const tally = await constrainedRun({ vocabulary: 'qwen2', setup, samples, indices, specs, maxTokens: 64, seed: 5 });
      expect(tally.codes).toHaveLength(indices.length);
      const over: string[] = [];
      let gaps = 0;
      let whitespace = 0;
      for (const { index, code } of tally.codes) {
        const sample = samples[index]!;
        const { starter } = oracleProgram(sample, setup, 'single');
        expect(code.startsWith(starter), `#${index}: the output continues its starter`).toBe(true);
        for (const gap of gapsOf(specs.get(sample.api)!, starter, code)) {
          gaps++;
          whitespace += gap.length;
          if (!BOUND.test(gap)) over.push(`#${index}: ${JSON.stringify(gap)} in ${JSON.stringify(code.slice(starter.lastIndexOf('axios.')))}`);
        }
      }
      expect(over).toEqual([]);
      // The check read the calls: they have tokens and the model wrote whitespace between some.
      expect(gaps).toBeGreaterThan(indices.length * 3);
      console.log(`${setup}: ${tally.outputs} outputs, ${gaps} gaps between tokens, ${whitespace} whitespace characters in them`);
    }, 900_000);
  }
});
