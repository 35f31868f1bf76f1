import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConstraintMatcher } from '../../main/constraints/index.js';
import { checkSample, type SampleDraft } from '../../main/dataset/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { oracleProgram, type Quote, type CompletionMode } from '../../main/prompt/index.js';
import { hasWapiiBench, REPO_ROOT, tempDir, WAPIIBENCH_SPECS } from '../support/paths.js';
import { loadWapiiBench } from '../support/wapiibench.js';

/** Samples whose expected values contradict their spec (numbers as strings, arrays for strings, objects for strings, ...). */
const CONTRADICTING = [7, 15, 22, 26, 27, 57, 62, 65, 109, 161, 295, 323, 384];

describe.runIf(hasWapiiBench)('constraints on the 395 WAPIIBench ground truths', () => {
  let samples: SampleDraft[];
  let specs: Map<string, ApiSpec>;
  beforeAll(async () => {
    ({ samples, specs } = await loadWapiiBench());
  });

  const combos = (['full', 'argument'] as CompletionMode[]).flatMap((setup) => (['single', 'double', 'backtick'] as Quote[]).map((quote) => [setup, quote] as const));
  it.each(combos)('accepts every ground truth but the contradicting ones: %s completion, %s quotes', (setup, quote) => {
    const rejected: number[] = [];
    samples.forEach((sample, index) => {
      const { program, starter } = oracleProgram(sample, setup, quote);
      // The starter code primes the matcher (and declares what values may reference); in argument completion that ends inside the invocation.
      const { matcher, fed: primed } = ConstraintMatcher.after(specs.get(sample.api)!, starter);
      expect(primed).toEqual({ ok: true });
      const fed = matcher.feed(program.slice(starter.length));
      if (!fed.ok || !matcher.isComplete()) rejected.push(index);
    });
    expect(rejected).toEqual(CONTRADICTING);
  });

  it('rejects each contradicting sample inside a value its checks flag', () => {
    for (const index of CONTRADICTING) {
      const sample = samples[index]!;
      const findings = checkSample(specs.get(sample.api), sample).filter((f) => f.rule !== 'recorded');
      expect(findings.length, `sample ${index} is flagged`).toBeGreaterThan(0);
      const { program } = oracleProgram(sample, 'full', 'single');
      const fed = ConstraintMatcher.create(specs.get(sample.api)!).feed(program);
      expect(fed.ok).toBe(false);
      if (fed.ok) continue;
      // The flagged key (the last name in its path) stands on the line where the matcher stopped, or the
      // matcher stopped at the `}` that closed an object before a required key it names.
      const line = program.slice(program.lastIndexOf('\n', fed.offset - 1) + 1, program.indexOf('\n', fed.offset));
      const names = findings.flatMap((f) => [...f.message.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.split('.').filter((p) => !/^\d+$/.test(p)).pop()!));
      const inside = names.some((n) => line.includes(n)) || program[fed.offset] === '}';
      expect(inside, `sample ${index}: stopped at ${JSON.stringify(line)}; findings name ${names.join(', ')}`).toBe(true);
    }
  });

  it('wapii constraints check answers per file, with the offset of a rejection', async () => {
    const dir = tempDir();
    const good = path.join(dir, 'good.js');
    const bad = path.join(dir, 'bad.js');
    fs.writeFileSync(good, oracleProgram(samples[0]!, 'full', 'single').program);
    fs.writeFileSync(bad, "// x\nconst axios = require('axios');\n\naxios.get('https://app.asana.com/api/1.0/attachmentz');\n");
    const run = promisify(execFile);
    const out = await run(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), 'constraints', 'check', '--spec', path.join(WAPIIBENCH_SPECS, 'asana.yaml'), '--json', good, bad]);
    const results = JSON.parse(out.stdout) as { file: string; accepted: boolean; offset?: number; reason?: string }[];
    expect(results[0]).toEqual({ file: good, accepted: true });
    expect(results[1]).toMatchObject({ file: bad, accepted: false, offset: "// x\nconst axios = require('axios');\n\naxios.get('https://app.asana.com/api/1.0/attachment".length });
  });
});
