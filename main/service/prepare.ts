import path from 'node:path';
import type { FileInput } from '../api/contract.js';
import { fail, ok, type Result } from '../api/result.js';
import type { Finding } from '../api/schemas.js';
import { checkSample, parseDataset, type SampleDraft } from '../dataset/index.js';
import { checkServerUrl, importSpecFile, loadSpec, specFormatOf, withoutBrokenRefs, withServer, type ApiSpec, type BrokenRef } from '../openapi/index.js';

export interface PreparedSpec {
  readonly api: string;
  /** What is stored: OpenAPI 3 text (a Swagger 2.0 file converted). */
  readonly file: FileInput;
  /** A converted Swagger 2.0 file as given, kept beside the converted one. */
  readonly original?: FileInput;
  readonly spec: ApiSpec;
}

export interface PreparedDataset {
  readonly samples: readonly (SampleDraft & { findings: Finding[] })[];
  /** Only the specs the dataset uses, by API. */
  readonly specs: ReadonlyMap<string, PreparedSpec>;
  /** APIs without a spec whose samples were left out (only with `skipMissingSpecs`). */
  readonly skipped?: readonly SkippedApi[];
  /** Broken `$ref`s each stored as any value (only with `lenientRefs`), per API. */
  readonly brokenRefs?: readonly (BrokenRef & { readonly api: string })[];
  /** The APIs whose spec declared no server and took the one given (`server`). */
  readonly serverFor?: readonly string[];
}

/** An API of the dataset that no spec file describes, and how many of its samples that leaves out. */
export interface SkippedApi {
  readonly api: string;
  readonly samples: number;
}

export interface PrepareOptions {
  /** Import the samples whose API has a spec and leave the others out (default: refuse the import). */
  readonly skipMissingSpecs?: boolean;
  /** Import a spec with `$ref`s that point at nothing, each stored as any value (default: refuse it). */
  readonly lenientRefs?: boolean;
  /** The base URL for a spec that declares no server (none, or only relative ones); stored in the spec. */
  readonly server?: string;
  /** Told the name of each file before it is read (the dataset, then each spec), so a failure that ends the thread (its memory limit) can name it. */
  readonly reading?: (filename: string) => void;
}

export type ProgressFn = (done: number, total: number, message: string) => void;

/** `specs/slack.yaml` → `slack`: a spec file is named after the API it describes. */
export const apiOfSpecFile = (filename: string): string => path.basename(filename).replace(/\.(ya?ml|json)$/i, '');

/**
 * Reads and checks a dataset and its specs without touching the store: everything that can be
 * wrong with the input is found here, so an import either stores all of it or nothing.
 */
export async function prepareDataset(dataset: FileInput, specFiles: readonly FileInput[], progress?: ProgressFn, options: PrepareOptions = {}): Promise<Result<PreparedDataset>> {
  const server = options.server === undefined ? undefined : checkServerUrl(options.server);
  if (server && !server.ok) return server;
  options.reading?.(dataset.filename);
  const drafts = parseDataset(dataset.content, dataset.filename);
  if (!drafts.ok) return drafts;
  const byApi = new Map<string, FileInput>();
  for (const file of specFiles) {
    if (!specFormatOf(file.filename)) continue;
    byApi.set(apiOfSpecFile(file.filename), file);
  }
  const apis = [...new Set(drafts.value.map((s) => s.api))];
  // One line per API without a spec (the real-world dataset names eleven APIs); the rest may still be imported.
  const missing = apis.filter((api) => !byApi.has(api));
  if (missing.length > 0 && !options.skipMissingSpecs) {
    const known = [...byApi.keys()].join(', ') || 'none';
    const lines = missing.map((api) => {
      const positions = drafts.value.flatMap((s, i) => (s.api === api ? [i] : []));
      return `API \`${api}\` (${positions.length} sample${positions.length === 1 ? '' : 's'}, first: sample ${positions[0]}): no spec ${api}.yaml or ${api}.json was given`;
    });
    const hint = missing.length < apis.length ? '; give the specs, or import the other samples with --skip-missing-specs' : '';
    return fail('bad_input', `${dataset.filename}: ${lines.join('\n')} (specs found: ${known})${hint}`);
  }
  const skipped: SkippedApi[] = missing.map((api) => ({ api, samples: drafts.value.filter((s) => s.api === api).length }));
  const used = apis.filter((api) => byApi.has(api));
  if (used.length === 0) return fail('bad_input', `${dataset.filename}: no sample's API has a spec (specs found: ${[...byApi.keys()].join(', ') || 'none'})`);
  const specs = new Map<string, PreparedSpec>();
  const brokenRefs: (BrokenRef & { api: string })[] = [];
  const serverFor: string[] = [];
  for (const [i, api] of used.entries()) {
    const file = byApi.get(api)!;
    progress?.(i, used.length, `loading spec ${file.filename}`);
    options.reading?.(file.filename);
    const converted = await importSpecFile(file);
    if (!converted.ok) return converted;
    let imported = converted.value;
    if (server) {
      const given = withServer(imported.file, server.value);
      imported = { ...imported, file: given.file };
      if (given.applied) serverFor.push(api);
    }
    if (options.lenientRefs) {
      const patched = withoutBrokenRefs(imported.file);
      imported = { ...imported, file: patched.file };
      for (const b of patched.broken) brokenRefs.push({ api, ...b });
    }
    const spec = await loadSpec(imported.file.content, file.filename);
    if (!spec.ok) return spec;
    specs.set(api, { api, ...imported, spec: spec.value });
  }
  options.reading?.(dataset.filename);
  const kept = drafts.value.filter((draft) => specs.has(draft.api));
  const samples = kept.map((draft, i) => {
    if (i % 50 === 0) progress?.(i, kept.length, 'checking samples against their specs');
    return { ...draft, findings: checkSample(specs.get(draft.api)?.spec, draft) };
  });
  progress?.(samples.length, samples.length, 'checked');
  return ok({ samples, specs, ...(skipped.length > 0 ? { skipped } : {}), ...(brokenRefs.length > 0 ? { brokenRefs } : {}), ...(serverFor.length > 0 ? { serverFor } : {}) });
}
