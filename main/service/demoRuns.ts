import { createExecutor } from '../execution/index.js';
import type { ApiSpec } from '../openapi/index.js';
import { failureClasses, scoreCodes, stepsOf } from '../runner/index.js';
import type { Store } from '../store/index.js';
import type { RunRepository } from '../store/runs.js';
import type { DemoRun } from './demo.js';
import type { RunResults } from './runResults.js';
import { inputManifest, snapshotOf } from './runPlan.js';

/**
 * Scores the shipped demo programs against the stored demo dataset and stores each as a finished
 * run (kind 'imported codes'), so the results, inspector and compare pages have content before
 * any model is added. Same path as `wapii score --save`: extract, execute, compare.
 */
export async function seedDemoRuns(input: { store: Store; runs: RunRepository; results: RunResults; datasetId: number; demoRuns: readonly DemoRun[]; spec: (hash: string) => Promise<ApiSpec | undefined> }): Promise<number[]> {
  const { store, runs } = input;
  const dataset = store.findDataset(input.datasetId);
  if (!dataset || input.demoRuns.length === 0) return [];
  const samples = store.listSamples(dataset.id);
  const specHashes = store.datasetApis(dataset.id);
  const specs = new Map<string, ApiSpec>();
  for (const [api, hash] of specHashes) {
    const spec = await input.spec(hash);
    if (spec) specs.set(api, spec);
  }
  const ids: number[] = [];
  await using executor = createExecutor({ timeoutMs: 1000 });
  for (const demo of input.demoRuns) {
    const taken = samples.filter((s) => demo.codes.has(s.position));
    // A multi-step sample's steps come with its fields.
    const scored = await scoreCodes({ samples: taken.map((s) => ({ index: s.position, api: s.api, config: s.config, ...(s.fields ? { fields: s.fields } : {}) })), codes: demo.codes, specs, executor });
    const inputs = snapshotOf(taken, specHashes);
    const runId = runs.create({
      kind: 'imported codes',
      status: 'running',
      dataset: dataset.name,
      datasetId: dataset.id,
      settings: { ...demo.meta, compat: 'default', demo: demo.name },
      manifest: { ...inputManifest(inputs, specHashes), source: `datasets/demo-runs/${demo.name}` },
      model: { name: demo.meta.model },
      subset: null,
      total: taken.length,
      demo: true,
      ownerPid: process.pid,
      inputs,
    });
    store.transaction(() => {
      for (const s of scored.samples) {
        const e = s.evaluation;
        const config = taken.find((t) => t.position === s.index)?.config;
        const spec = specs.get(s.api);
        const failures = config && spec ? failureClasses(e, spec, config, stepsOf(taken.find((t) => t.position === s.index)?.fields)) : undefined;
        store.addRunSample(runId, { index: s.index, api: s.api, code: s.code, request: e.request, verdict: e.verdict, extraction: e.extraction, execution: e.execution, durationMs: e.execution?.durationMs, failures });
      }
    });
    runs.setStatus(runId, 'finished', { finished: true, ownerPid: null });
    await input.results.storeStatistics(runId);
    ids.push(runId);
  }
  return ids;
}
