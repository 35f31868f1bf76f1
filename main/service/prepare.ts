import path from 'node:path';
import type { FileInput } from '../api/contract.js';
import { fail, ok, type Result } from '../api/result.js';
import type { Finding } from '../api/schemas.js';
import { checkSample, parseDataset, type SampleDraft } from '../dataset/index.js';
import { importSpecFile, loadSpec, specFormatOf, type ApiSpec } from '../openapi/index.js';

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
}

export type ProgressFn = (done: number, total: number, message: string) => void;

/** `specs/slack.yaml` → `slack`: a spec file is named after the API it describes. */
export const apiOfSpecFile = (filename: string): string => path.basename(filename).replace(/\.(ya?ml|json)$/i, '');

/**
 * Reads and checks a dataset and its specs without touching the store: everything that can be
 * wrong with the input is found here, so an import either stores all of it or nothing.
 */
export async function prepareDataset(dataset: FileInput, specFiles: readonly FileInput[], progress?: ProgressFn): Promise<Result<PreparedDataset>> {
  const drafts = parseDataset(dataset.content, dataset.filename);
  if (!drafts.ok) return drafts;
  const byApi = new Map<string, FileInput>();
  for (const file of specFiles) {
    if (!specFormatOf(file.filename)) continue;
    byApi.set(apiOfSpecFile(file.filename), file);
  }
  const used = [...new Set(drafts.value.map((s) => s.api))];
  const specs = new Map<string, PreparedSpec>();
  for (const [i, api] of used.entries()) {
    const file = byApi.get(api);
    if (!file) {
      const position = drafts.value.findIndex((s) => s.api === api);
      const known = [...byApi.keys()].join(', ') || 'none';
      return fail('bad_input', `${dataset.filename}: sample ${position} is for API \`${api}\`, but no spec ${api}.yaml or ${api}.json was given (specs found: ${known})`);
    }
    progress?.(i, used.length, `loading spec ${file.filename}`);
    const imported = await importSpecFile(file);
    if (!imported.ok) return imported;
    const spec = await loadSpec(imported.value.file.content, file.filename);
    if (!spec.ok) return spec;
    specs.set(api, { api, ...imported.value, spec: spec.value });
  }
  const samples = drafts.value.map((draft, i) => {
    if (i % 50 === 0) progress?.(i, drafts.value.length, 'checking samples against their specs');
    return { ...draft, findings: checkSample(specs.get(draft.api)?.spec, draft) };
  });
  progress?.(samples.length, samples.length, 'checked');
  return ok({ samples, specs });
}
