import { createHash } from 'node:crypto';
import { z } from 'zod';
import { fail, ok, type Result } from '../api/result.js';
import { RequestConfigSchema, type RequestConfig, type Sample, type SourceNotes } from '../api/schemas.js';
import { parseJsonStrictly } from './json.js';

/** A sample as read from a file, before it has a home in the store. */
export interface SampleDraft {
  readonly id: string;
  readonly api: string;
  readonly task: string;
  readonly config: RequestConfig;
  readonly source: SourceNotes;
}

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

function withIds(entries: { api: string; task: string; config: RequestConfig; source: SourceNotes }[]): SampleDraft[] {
  const seen = new Map<string, number>();
  return entries.map((e) => {
    const key = JSON.stringify([e.api, e.task, e.config]);
    const occurrence = seen.get(key) ?? 0;
    seen.set(key, occurrence + 1);
    return { ...e, id: sampleId(e.api, e.task, e.config, occurrence) };
  });
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
      entries.push({ api, task, config, source });
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
    entries.push({ api, task: parsed.data.task, config: parsed.data.config, source: { index: i } });
  }
  return ok(withIds(entries));
}

type ExportableSample = Pick<Sample, 'api' | 'task' | 'config' | 'source'>;

/** The flat list, with `index` counted per API as WAPIIBench does. */
export function exportFlat(samples: readonly ExportableSample[]): string {
  const counters = new Map<string, number>();
  const list = samples.map((s) => {
    const index = counters.get(s.api) ?? 0;
    counters.set(s.api, index + 1);
    return {
      api: s.api,
      index,
      task: s.task,
      config: s.config,
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
    list.push({ task: s.task, config: s.config });
    byApi.set(s.api, list);
  }
  return Object.fromEntries([...byApi].map(([api, list]) => [`${api}.json`, JSON.stringify({ samples: list }, null, 2) + '\n']));
}
