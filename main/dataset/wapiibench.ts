import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { fail, ok, type Result } from '../api/result.js';
import { RealWorldFieldsSchema, RequestConfigSchema, type JsonValue, type RequestConfig, type Sample, type SampleFields, type SourceNotes } from '../api/schemas.js';
import { parseJsonStrictly } from '../openapi/index.js';

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
  /** Absent on a multi-step sample (its `steps` are among its fields). */
  config: RequestConfigSchema.optional(),
  checks: z.string().optional(),
  vetted: z.boolean().optional(),
});
const PerApiEntrySchema = z.object({ index: z.number().int().optional(), task: z.string(), config: RequestConfigSchema.optional() });

/**
 * A sample's request: its `config`, or for a multi-step sample (scoring.md §7: `steps`, never
 * both) its last step's, which lists, filters and the endpoint column show; the steps stay in its
 * fields, verbatim, and an export writes them back without a `config`.
 */
function requestOf(config: RequestConfig | undefined, fields: SampleFields | undefined): { ok: true; config: RequestConfig } | { ok: false; message: string } {
  const steps = fields?.['steps'];
  if (config !== undefined && steps !== undefined) return { ok: false, message: 'has both `config` and `steps`: a sample makes one request or several, not both' };
  if (config !== undefined) return { ok: true, config };
  if (Array.isArray(steps)) return { ok: true, config: (steps.at(-1) as { config: RequestConfig }).config };
  return { ok: false, message: '`config` is required (or `steps` for a multi-step sample)' };
}
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

/** `index`: the workbench's per-API export writes each sample's index; WAPIIBench's own per-API files have none (the position is the index). */
const PER_API_KEYS: ReadonlySet<string> = new Set(['index', 'task', 'config']);

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
      const request = requestOf(config, fields.value);
      if (!request.ok) return fail('bad_input', `${filename}: sample ${i}: ${request.message}`);
      entries.push({ api, task, config: request.config, source, ...(fields.value ? { fields: fields.value } : {}) });
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
    const request = requestOf(parsed.data.config, fields.value);
    if (!request.ok) return fail('bad_input', `${filename}: sample ${i}: ${request.message}`);
    entries.push({ api, task: parsed.data.task, config: request.config, source: { index: parsed.data.index ?? i }, ...(fields.value ? { fields: fields.value } : {}) });
  }
  return ok(withIds(entries));
}

type ExportableSample = Pick<Sample, 'api' | 'task' | 'config' | 'source' | 'fields'>;

/**
 * Each sample's index as an export writes it: the one it came with (WAPIIBench's per-API index,
 * so an export of a subset — the accepted and fixed samples — still lines up with the original
 * file and with runs), or for a sample that came without one (synthesized, added) the next free
 * index of its API after every index the samples hold. A sample that came with fields of its own
 * and no index (the real-world format has none) keeps having none.
 */
export function withExportIndices<T extends ExportableSample>(samples: readonly T[]): T[] {
  const next = new Map<string, number>();
  for (const s of samples) if (s.source.index !== undefined) next.set(s.api, Math.max(next.get(s.api) ?? 0, s.source.index + 1));
  return samples.map((s) => {
    if (s.source.index !== undefined || s.fields !== undefined) return s;
    const index = next.get(s.api) ?? 0;
    next.set(s.api, index + 1);
    return { ...s, source: { ...s.source, index } };
  });
}

/**
 * The flat list: each sample's index (withExportIndices), task and request, every other field it
 * came with, and its `checks` and `vetted` where it has them. A real-world sample (fields, no
 * index) is written as it came, so a flat export is JSON-equal to the file it was imported from.
 */
export function exportFlat(samples: readonly ExportableSample[]): string {
  const list = withExportIndices(samples).map((s) => ({
    api: s.api,
    ...(s.source.index !== undefined ? { index: s.source.index } : {}),
    task: s.task,
    ...(s.fields?.['steps'] === undefined ? { config: s.config } : {}),
    ...s.fields,
    ...(s.source.checks !== undefined ? { checks: s.source.checks } : {}),
    ...(s.source.vetted !== undefined ? { vetted: s.source.vetted } : {}),
  }));
  return JSON.stringify(list, null, 2) + '\n';
}

/** One `{"samples": [...]}` document per API, keyed by file name (`<api>.json`); each sample with its index, as in the flat export. */
export function exportPerApi(samples: readonly ExportableSample[]): Record<string, string> {
  const byApi = new Map<string, Record<string, JsonValue>[]>();
  for (const s of withExportIndices(samples)) {
    const list = byApi.get(s.api) ?? [];
    list.push({ ...(s.source.index !== undefined ? { index: s.source.index } : {}), task: s.task, ...(s.fields?.['steps'] === undefined ? { config: s.config as JsonValue } : {}), ...s.fields });
    byApi.set(s.api, list);
  }
  return Object.fromEntries([...byApi].map(([api, list]) => [`${api}.json`, JSON.stringify({ samples: list }, null, 2) + '\n']));
}

/**
 * The `checks` text an export writes for a sample, recomputed for what it writes: the text the
 * sample came with while its request is the one it came with (WAPIIBench's checker judged exactly
 * that; the round trip stays exact), else the workbench's spec check of the request as written —
 * "OK", or one finding per line. A real-world sample that came without checks gets none (its
 * format has no such field). `findings`: checkRequest of the written request.
 */
export function exportChecks(sample: Pick<Sample, 'config' | 'source' | 'fields'>, imported: RequestConfig | undefined, findings: readonly { readonly message: string }[]): string | undefined {
  if (sample.fields !== undefined && sample.source.checks === undefined) return undefined;
  const unchanged = imported !== undefined && isDeepStrictEqual(imported, sample.config);
  if (sample.source.checks !== undefined && unchanged) return sample.source.checks;
  return findings.length === 0 ? 'OK' : findings.map((f) => `${f.message}\n`).join('');
}
