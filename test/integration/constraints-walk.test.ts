import { beforeAll, describe, expect, it } from 'vitest';
import { ConstraintMatcher } from '../../main/constraints/index.js';
import type { SampleDraft } from '../../main/dataset/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { oracleProgram } from '../../main/prompt/index.js';
import { hasWapiiBench } from '../support/paths.js';
import { seededRandom } from '../support/random.js';
import { loadWapiiBench } from '../support/wapiibench.js';

const DECLARATIONS = 'const token = process.env.API_TOKEN, userId = 42;\nconst ids = [1, 2];\n';
const ALPHABET = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\n'];

describe.runIf(hasWapiiBench)('no dead ends (character level)', () => {
  let samples: SampleDraft[];
  let specs: Map<string, ApiSpec>;
  beforeAll(async () => {
    ({ samples, specs } = await loadWapiiBench());
  });

  it('random walks through allowed characters can always be completed, by the shortest completion; nextAscii holds every allowed character', () => {
    const rand = seededRandom(20261122);
    let checked = 0;
    let nextAsciiChecks = 0;
    for (let walk = 0; walk < 2000; walk++) {
      const sample = samples[Math.floor(rand() * samples.length)]!;
      const oracle = oracleProgram(sample, rand() < 0.5 ? 'full' : 'argument', 'single');
      // Declarations before the call give the walks references to take (and to complete).
      const starter = DECLARATIONS + oracle.starter;
      const program = DECLARATIONS + oracle.program;
      const { matcher, fed } = ConstraintMatcher.after(specs.get(sample.api)!, starter);
      expect(fed.ok).toBe(true);
      let truth = program.slice(starter.length);
      let typed = starter;
      for (let step = 0; step < 80 && !(step > 0 && matcher.isComplete()); step++) {
        const allowed = ALPHABET.filter((c) => matcher.clone().push(c));
        expect(allowed.length, `no character allowed after ${JSON.stringify(typed.slice(-60))}`).toBeGreaterThan(0);
        // The token mask refuses what nextAscii leaves out without a step: it must never leave out an allowed character.
        const next = matcher.nextAscii();
        if (next) for (const c of allowed) if (!(next[c.charCodeAt(0) >>> 5]! & (1 << (c.charCodeAt(0) & 31)))) expect.fail(`nextAscii leaves out ${JSON.stringify(c)} after ${JSON.stringify(typed.slice(-60))}`);
        if (next) nextAsciiChecks++;
        // Mostly follow the ground truth, sometimes stray onto any allowed character.
        const pick = truth[0] !== undefined && allowed.includes(truth[0]) && rand() < 0.8 ? truth[0] : allowed[Math.floor(rand() * allowed.length)]!;
        truth = truth[0] === pick ? truth.slice(1) : '';
        expect(matcher.push(pick)).toBe(true);
        typed += pick;
        if (step % 4 === 0) {
          const completion = matcher.completion();
          expect(completion, `dead end after ${JSON.stringify(typed.slice(-80))}`).toBeDefined();
          const copy = matcher.clone();
          expect(copy.feed(completion!).ok && copy.isComplete()).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(10_000);
    // Most states say which characters may follow (free text and open strings do not).
    expect(nextAsciiChecks).toBeGreaterThan(30_000);
  });
});
