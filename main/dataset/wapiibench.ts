import { createHash } from 'node:crypto';
import { z } from 'zod';
import { fail, ok, type Result } from '../api/result.js';
import { RealWorldFieldsSchema, RequestConfigSchema, type JsonValue, type RequestConfig, type Sample, type SampleFields, type SourceNotes } from '../api/schemas.js';
import { parseJsonStrictly } from './json.js';

/** A sample as read from a file, before it has a home in the store. */
export interface SampleDraft {
  readonly id: string;
  readonly api: string;
  readonly task: string;
  readonly config: RequestConfig;
  readonly source: SourceNotes;
  /** Every other field the file gave the sample (the real-world dataset's starter_code, definitions, ...), verbatim. */
  readonly fields?: SampleFields;
}

/** The flat format's own fields; any other field of an entry is the sample's `fields`. */
const FLAT_KEYS: ReadonlySet<string> = new Set(['api', 'index', 'task', 'config', 'checks', 'vetted']);

const FlatEntrySchema = z.object({
  api: z.string().min(1),
  index: z.number().int().optional(),
  task: z.string(),
  config: RequestConfigSchema,
  checks: z.string().optional(),
  vetted: z.boolean().optional(),
});
const PerApiEntrySchema = z.object({ task: z.string(), config: RequestConfigSchema });
const PerApiFileSchema = z.object({ samples: z.array(z.unknown()) });

function describeIssue(where: string, error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return `${where}: invalid sample`;
  const path = issue.path.map(String).join('.');
  return `${where}: ${path ? `\`${path}\` ` : ''}${issue.message.replace(/^Invalid input: /, '')}`;
}

/** Id of a sample: stable across re-imports of the same file; position breaks ties between identical samples. */
export function sampleId(api: string, task: string, config: RequestConfig, occurrence: number): string {
  const hash = createHash('sha256').update(JSON.stringify([api, task, config, occurrence])).digest('hex');
  return `${api}-${hash.slice(0, 12)}`;
}

function withIds(entries: { api: string; task: string; config: RequestConfig; source: SourceNotes; fields?: SampleFields }[]): SampleDraft[] {
  const seen = new Map<string, number>();
  return entries.map((e) => {
    const key = JSON.stringify([e.api, e.task, e.config]);
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    return { ...e, id: sampleId(e.api, e.task, e.config, occurrence) };
  });
}

const PER_API_KEYS: ReadonlySet<string> = new Set(['task', 'config']);

/**
 * An entry's fields beyond the format's own, in the file's order; the real-world dataset's known
 * ones must have their types (a `starter_code` that is not text cannot be a prompt). Undefined
 * when there are none.
 */
function fieldsOf(entry: Record<string, JsonValue>, own: ReadonlySet<string>): { ok: true; value: SampleFields | undefined } | { ok: false; error: z.ZodError } {
  const rest = Object.fromEntries(Object.entries(entry).filter(([k]) => !own.has(k)));
  const known = RealWorldFieldsSchema.safeParse(rest);
  if (!known.success) return { ok: false, error: known.error };
  return { ok: true, value: Object.keys(rest).length > 0 ? rest : undefined };
}

/** `slack.json` → `slack`: per-API files carry their API only in the file name. */
export function apiFromFilename(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? filename;
  return base.replace(/\.json$/i, '');
}

/**
 * Reads either WAPIIBench format: the flat list (`[{api, index, task, config, checks, vetted}]`)
 * or a per-API file (`{"samples": [{task, config}]}`, the API named by the file).
 */
export function parseDataset(text: string, filename: string): Result<SampleDraft[]> {
  const parsed = parseJsonStrictly(text, filename);
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  if (Array.isArray(value)) {
    const entries = [];
    for (const [i, raw] of value.entries()) {
      const parsed = FlatEntrySchema.safeParse(raw);
      if (!parsed.success) return fail('bad_input', describeIssue(`${filename}: sample ${i}`, parsed.error));
      const { api, task, config, index, checks, vetted } = parsed.data;
      const source: SourceNotes = {
        ...(index !== undefined ? { index } : {}),
        ...(checks !== undefined ? { checks } : {}),
        ...(vetted !== undefined ? { vetted } : {}),
      };
      const fields = fieldsOf(raw as Record<string, JsonValue>, FLAT_KEYS);
      if (!fields.ok) return fail('bad_input', describeIssue(`${filename}: sample ${i}`, fields.error));
      entries.push({ api, task, config, source, ...(fields.value ? { fields: fields.value } : {}) });
    }
    return ok(withIds(entries));
  }
  const file = PerApiFileSchema.safeParse(value);
  if (!file.success) {
    return fail('bad_input', `${filename}: not a WAPIIBench dataset (expected a list of samples or {"samples": [...]})`);
  }
  const api = apiFromFilename(filename);
  const entries = [];
  for (const [i, raw] of file.data.samples.entries()) {
    const parsed = PerApiEntrySchema.safeParse(raw);
    if (!parsed.success) return fail('bad_input', describeIssue(`${filename}: sample ${i}`, parsed.error));
    const fields = fieldsOf(raw as Record<string, JsonValue>, PER_API_KEYS);
    if (!fields.ok) return fail('bad_input', describeIssue(`${filename}: sample ${i}`, fields.error));
    entries.push({ api, task: parsed.data.task, config: parsed.data.config, source: { index: i }, ...(fields.value ? { fields: fields.value } : {}) });
  }
  return ok(withIds(entries));
}

type ExportableSample = Pick<Sample, 'api' | 'task' | 'config' | 'source' | 'fields'>;

/**
 * The flat list, with `index` counted per API as WAPIIBench does, and every other field the sample
 * came with. A sample that came with fields of its own and no `index` (the real-world format has
 * none) is written without one, so a flat export is JSON-equal to the file it was imported from.
 */
export function exportFlat(samples: readonly ExportableSample[]): string {
  const counters = new Map<string, number>();
  const list = samples.map((s) => {
    const index = counters.get(s.api) ?? 0;
    counters.set(s.api, index + 1);
    const withIndex = s.source.index !== undefined || s.fields === undefined;
    return {
      api: s.api,
      ...(withIndex ? { index } : {}),
      task: s.task,
      config: s.config,
      ...s.fields,
      ...(s.source.checks !== undefined ? { checks: s.source.checks } : {}),
      ...(s.source.vetted !== undefined ? { vetted: s.source.vetted } : {}),
    };
  });
  return JSON.stringify(list, null, 2) + '\n';
}

/** One `{"samples": [...]}` document per API, keyed by file name (`<api>.json`). */
export function exportPerApi(samples: readonly ExportableSample[]): Record<string, string> {
  const byApi = new Map<string, { task: string; config: RequestConfig }[]>();
  for (const s of samples) {
    const list = byApi.get(s.api) ?? [];
    list.push({ task: s.task, config: s.config, ...s.fields });
    byApi.set(s.api, list);
  }
  return Object.fromEntries([...byApi].map(([api, list]) => [`${api}.json`, JSON.stringify({ samples: list }, null, 2) + '\n']));
}
