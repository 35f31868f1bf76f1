import type { SpecVersionDiff } from '../api/specVersions.js';
import { unwrap, WapiiError } from '../api/result.js';
import type { FileInput } from '../api/contract.js';
import { recheckSamples, samplesOnNovelEndpoints } from '../dataset/index.js';
import { describeChange, diffSpecs, GIVEN_SERVER, loadSpec, specDocument, withServer, type ApiSpec } from '../openapi/index.js';
import type { Store } from '../store/index.js';

/**
 * A new version of one API's spec against the version a stored dataset was imported with: the
 * endpoint diff (main/openapi/diff.ts), the samples that break and why, and the samples on added
 * or changed endpoints; nothing is stored (the CLI's spec-diff, spec-recheck and spec-derive, for the app).
 */
export async function diffSpecVersion(store: Store, spec: (hash: string) => Promise<ApiSpec>, input: { datasetId: number; api: string; spec: FileInput }): Promise<SpecVersionDiff> {
  const dataset = store.findDataset(input.datasetId);
  if (!dataset) throw new WapiiError('not_found', `dataset ${input.datasetId} does not exist`);
  const apis = store.datasetApis(dataset.id);
  const hash = apis.get(input.api);
  if (!hash) throw new WapiiError('bad_input', `dataset "${dataset.name}" has no API \`${input.api}\` (it has: ${[...apis.keys()].join(', ')})`);
  const before = await spec(hash);
  // A base URL given at import (--server) is the dataset's, not the file's: a new version that still declares no server takes it too.
  const given = specDocument(before)[GIVEN_SERVER];
  const file = typeof given === 'string' ? withServer(input.spec, given).file : input.spec;
  const after = unwrap(await loadSpec(file.content, file.filename));
  const diff = diffSpecs(before, after);
  const samples = store.listSamples(dataset.id).filter((s) => s.api === input.api);
  const versioned = samples.map((s) => ({ index: s.position, id: s.id, api: s.api, task: s.task, config: s.config }));
  const ids = new Map(versioned.map((s) => [s.index, s.id]));
  const rechecked = recheckSamples(versioned, input.api, before, after);
  return {
    api: input.api,
    before: { title: before.title, version: before.version },
    after: { title: after.title, version: after.version },
    added: [...diff.added],
    removed: [...diff.removed],
    changed: diff.changed.map((c) => ({ endpoint: c.endpoint, changes: c.changes.map((x) => ({ ...x, text: describeChange(x) })) })),
    samples: samples.length,
    breaks: rechecked.filter((r) => r.broken.length > 0).map((r) => ({ index: r.index, sampleId: ids.get(r.index) ?? '', endpoint: r.endpoint, findings: r.broken.map((f) => f.message) })),
    fixes: rechecked.filter((r) => r.fixed.length > 0).length,
    novel: samplesOnNovelEndpoints(versioned, input.api, before, after, diff).map((s) => ({ index: s.index, sampleId: s.id, task: s.task })),
  };
}
