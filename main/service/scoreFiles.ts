import { clientField } from '../api/clients.js';
import type { Output, Parsed } from '../api/contract.js';
import type { CodeFailures } from '../api/reports.js';
import { unwrap, WapiiError } from '../api/result.js';
import type { RequestConfig, SampleFields } from '../api/schemas.js';
import { createExecutor } from '../execution/index.js';
import type { ApiSpec } from '../openapi/index.js';
import { failureClasses, scoreCodes, stepsOf, type CodeScores } from '../runner/index.js';
import { countFailures } from '../scoring/index.js';
import type { Store } from '../store/index.js';
import { prepareDataset } from './prepare.js';
import { headlineOf, uncertaintyJson } from './runReport.js';

/** The failure classes of every scored program, and their counts for the run and per API. */
export function failuresOf(scores: CodeScores, expected: ReadonlyMap<number, { readonly config: RequestConfig; readonly fields?: SampleFields | undefined }>, specs: ReadonlyMap<string, ApiSpec>): CodeFailures {
  const items = scores.samples.map((s) => {
    const spec = specs.get(s.api);
    const sample = expected.get(s.index);
    if (!spec || !sample) throw new Error(`bug: sample ${s.index} has no spec or expected request`);
    // The runner's own classification, a multi-step sample's by its steps and the requests its program sent.
    return { index: s.index, api: s.api, failures: failureClasses(s.evaluation, spec, sample.config, stepsOf(sample.fields)) };
  });
  return { ...countFailures(items), samples: Object.fromEntries(items.map((i) => [String(i.index), i.failures])) };
}

/**
 * `wapii score`: one program per sample of a dataset file, extracted, executed in the sandbox and
 * compared; the report as `score --json` prints it, with each program's failure classes. With
 * `save`, stored as a run of kind 'imported codes'.
 */
export async function scoreCodeFiles(store: Store, input: Parsed<'scoreCodes'>): Promise<Output<'scoreCodes'>> {
  const prepared = unwrap(await prepareDataset(input.dataset, input.specs));
  // A real-world sample's code is read with its own starter (its fields).
  const samples = prepared.samples.map((s, index) => ({ index, api: s.api, config: s.config, task: s.task, ...(s.fields ? { fields: s.fields } : {}) })).filter((s) => !input.api || s.api === input.api);
  if (input.api && samples.length === 0) throw new WapiiError('bad_input', `the dataset has no sample for API \`${input.api}\``);
  const specs = new Map([...prepared.specs].map(([api, p]) => [api, p.spec]));
  const codes = new Map(input.codes.map((c) => [c.index, c.code]));
  await using executor = createExecutor({ timeoutMs: input.timeoutMs });
  const scores = await scoreCodes({ samples, codes, specs, executor, compat: input.compat, client: input.client });
  if (scores.samples.length === 0) throw new WapiiError('bad_input', `no code file in ${input.codesFrom ?? 'the codes given'} matches a sample of the dataset`);
  const failures = failuresOf(scores, new Map(samples.map((s) => [s.index, s])), specs);
  const runId = input.save
    ? store.saveRun({
        kind: 'imported codes',
        dataset: input.save.dataset,
        settings: { compat: input.compat, codes: input.save.codes, timeoutMs: input.timeoutMs, ...clientField(input.client), ...(input.api ? { api: input.api } : {}) },
        statistics: { statistics: scores.statistics, per_api: scores.perApi },
        samples: scores.samples.map((s) => ({
          index: s.index,
          api: s.api,
          code: s.code,
          request: s.evaluation.request,
          verdict: s.evaluation.verdict,
          extraction: s.evaluation.extraction,
          execution: s.evaluation.execution,
          durationMs: s.evaluation.execution?.durationMs,
          failures: failures.samples[String(s.index)],
        })),
      })
    : undefined;
  const report = { statistics: scores.statistics, per_api: { ...scores.perApi }, samples: Object.fromEntries(scores.samples.map((s) => [String(s.index), s.evaluation.verdict])) };
  return { report: { ...report, ...uncertaintyJson(report) }, failures, ...(runId !== undefined ? { run: runId } : {}), headline: headlineOf(scores.statistics, scores.perApi) };
}
