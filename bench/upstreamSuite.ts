import fs from 'node:fs';
import path from 'node:path';
import { fail, ok, type Result } from '../main/api/result.js';
import { ConstraintMatcher } from '../main/constraints/index.js';
import { loadSpec, type ApiSpec } from '../main/openapi/index.js';

/**
 * Upstream WAPIIBench's constraint suite (its `data/test/method_as_function/{positive,negative}/*.js`
 * on `petstore-expanded-modified.yaml`), run through the matcher. The files are third-party and
 * never committed: fetch them into a folder of their own (see the README's constraints section).
 *
 * Each file is a whole program: `const axios = require('axios');`, sometimes declarations, then
 * one call. As in upstream's test, a positive file must be accepted in full and a negative one
 * refused somewhere. The starter is the file up to the call's `axios.` (its declarations are the
 * names in scope); the matcher takes the rest.
 */
export interface SuiteCase {
  readonly kind: 'positive' | 'negative';
  readonly file: string;
  readonly accepted: boolean;
  /** Where the matcher refused the file (0-based offset, line:column and why), when it did. */
  readonly refused?: { readonly offset: number; readonly line: number; readonly column: number; readonly char: string; readonly reason: string };
  readonly passed: boolean;
  /** Why a failing case fails on purpose (constraints.md differs from upstream there), if it does. */
  readonly deliberate?: string;
}

/**
 * Negative cases the workbench accepts by design: security arguments are permitted, never
 * required (constraints.md; the checks and the scorer's argument matching, main/openapi/match.ts,
 * say the same, because specs mark public operations inconsistently: Slack's `oauth.access`
 * carries a scheme whose only scope is "none", and its WAPIIBench ground truths send no
 * Authorization header). So a call without its API key or bearer token is legal.
 */
export const DELIBERATE: Readonly<Record<string, string>> = {
  'negative/6000.js': 'no API key sent: security arguments are permitted, never required (constraints.md)',
  'negative/6001.js': 'no bearer token sent: security arguments are permitted, never required (constraints.md)',
};

/** Feeds one upstream file through the matcher: accepted in full and complete, or where it was refused. */
export function checkUpstreamFile(spec: ApiSpec, text: string): Pick<SuiteCase, 'accepted' | 'refused'> {
  const at = text.lastIndexOf('axios.');
  const starter = at === -1 ? text : text.slice(0, at + 'axios.'.length);
  const { matcher, fed } = ConstraintMatcher.after(spec, starter);
  const result = fed.ok ? matcher.feed(text.slice(starter.length)) : fed;
  if (!result.ok) {
    const before = text.slice(0, result.offset);
    const line = before.split('\n').length;
    const column = result.offset - (before.lastIndexOf('\n') + 1) + 1;
    return { accepted: false, refused: { offset: result.offset, line, column, char: text[result.offset] ?? '', reason: result.reason } };
  }
  // Accepted text that leaves the call open is not a whole program.
  return matcher.isComplete() ? { accepted: true } : { accepted: false, refused: { offset: text.length, line: text.split('\n').length, column: 0, char: '', reason: 'the call is still open at the end of the file' } };
}

export interface SuiteReport {
  readonly cases: readonly SuiteCase[];
  readonly passed: number;
  readonly total: number;
}

/** Runs the suite in `dir` (`positive/`, `negative/` and the spec beside them). */
export async function runUpstreamSuite(dir: string): Promise<Result<SuiteReport>> {
  const specFile = path.join(dir, 'petstore-expanded-modified.yaml');
  if (!fs.existsSync(specFile)) return fail('not_found', `upstream suite: ${specFile} is missing; fetch stg-tud/WAPIIBench's openapi/test/petstore-expanded-modified.yaml and data/test/method_as_function/ into ${dir}`);
  const loaded = await loadSpec(fs.readFileSync(specFile, 'utf8'), path.basename(specFile));
  if (!loaded.ok) return loaded;
  const cases: SuiteCase[] = [];
  for (const kind of ['positive', 'negative'] as const) {
    const folder = path.join(dir, kind);
    if (!fs.existsSync(folder)) return fail('not_found', `upstream suite: ${folder} is missing`);
    for (const name of fs.readdirSync(folder).filter((f) => f.endsWith('.js')).sort()) {
      const file = `${kind}/${name}`;
      const { accepted, refused } = checkUpstreamFile(loaded.value, fs.readFileSync(path.join(folder, name), 'utf8'));
      const passed = kind === 'positive' ? accepted : !accepted;
      const deliberate = passed ? undefined : DELIBERATE[file];
      cases.push({ kind, file, accepted, ...(refused ? { refused } : {}), passed, ...(deliberate ? { deliberate } : {}) });
    }
  }
  return ok({ cases, passed: cases.filter((c) => c.passed).length, total: cases.length });
}

/** `npm run bench -- upstream-suite --dir <folder>`: passes and fails, each failing case with its first refused character. */
export async function benchUpstreamSuite(dir: string): Promise<void> {
  console.log(`\n## Upstream WAPIIBench constraint suite (method_as_function, ${dir})`);
  const report = await runUpstreamSuite(dir);
  if (!report.ok) {
    console.log(report.error.message);
    return;
  }
  for (const c of report.value.cases.filter((c) => !c.passed)) {
    const where = c.refused ? `refused ${JSON.stringify(c.refused.char)} at ${c.refused.line}:${c.refused.column} (${c.refused.reason})` : 'accepted in full';
    console.log(`- FAIL ${c.file}: ${where}${c.deliberate ? ` — deliberate: ${c.deliberate}` : ''}`);
  }
  const deliberate = report.value.cases.filter((c) => c.deliberate).length;
  console.log(`${report.value.passed}/${report.value.total} pass (${deliberate} of the failures deliberate, documented in bench/upstreamSuite.ts)`);
}
