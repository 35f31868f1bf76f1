import type { RunSampleRow, RunSummary } from '../api/evaluation.js';
import { BOOTSTRAP, HEADLINE, headlineValue, type Interval, type Proportion, type Statistics, type Uncertainty, type Verdict } from '../scoring/index.js';

export type ExportFormat = 'csv' | 'json' | 'markdown' | 'latex' | 'codes';

/** One output as the exports write it: the result-page row plus what a reader needs beside it. */
export interface ExportedOutput {
  readonly row: RunSampleRow;
  /** The verdict in force (override applied) and the scorer's own; null: the output failed to generate. */
  readonly verdict: Verdict | null;
  readonly scorerVerdict: Verdict | null;
  readonly code: string;
  readonly expected: { readonly url: string; readonly method: string } | null;
  readonly captured: { readonly url: string; readonly method: string } | null;
  readonly overrideReason: string | null;
}

export interface ExportReport {
  readonly statistics: Statistics | null;
  readonly per_api: Record<string, Statistics>;
  readonly uncertainty: Uncertainty | null;
  readonly per_api_uncertainty: Record<string, Uncertainty>;
  readonly pass_at_k: Record<string, number>;
}

const ARGUMENT_COLUMNS = ['correct', 'incorrect_value', 'missing', 'unnecessary', 'illegal'] as const;

/**
 * One CSV field. RFC 4180 quoting, and OWASP's guidance against formula injection: a text that
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return would be evaluated by a spreadsheet
 * (`=HYPERLINK(...)` in a task or a generated program), so it gets a leading `'` and is quoted.
 * Numbers are written as numbers (a negative number is data, not a formula).
 */
export const csvField = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  let s = String(v);
  const formula = /^[=+\-@\t\r]/.test(s);
  if (formula) s = `'${s}`;
  return formula || /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/**
 * Markdown inline text: only what starts emphasis, code, links, strikethrough, a table cell or HTML
 * inside a line is escaped, and line breaks become spaces. The text never opens a line (a title
 * after "Run N: ", a table cell), so `-`, `+`, `#`, `.` and `>` that only act there stay as they
 * are: `demo-coder-7b`, not `demo\-coder\-7b`.
 */
export const markdownEscape = (s: string): string =>
  s
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*_[\]|~]/g, (c) => `\\${c}`)
    .replace(/</g, '&lt;');

const latexEscape = (s: string): string =>
  s.replace(/[\r\n]+/g, ' ').replace(/[\\&%$#_{}~^]/g, (c) => (c === '\\' ? '\\textbackslash{}' : c === '~' ? '\\textasciitilde{}' : c === '^' ? '\\textasciicircum{}' : `\\${c}`));

const pct = (v: number): string => (v * 100).toFixed(1);

/**
 * A statistic as a table shows it, or null where it is undefined: a mean argument metric whose
 * denominator is empty has no `all` entry (the JSON writes `{}`), where headlineValue reads 0.
 */
export function definedValue(stats: Statistics, key: string, location = 'all'): number | null {
  const v = stats[key];
  if (typeof v === 'number') return v;
  const at = v?.[location];
  return typeof at === 'number' ? at : null;
}

/** A rate for a table: its percent and 95% interval, or "–" (with k/n for a proportion) when its denominator is 0. */
function rateCell(value: number | null, of: Proportion | undefined, interval: Interval | undefined, style: 'markdown' | 'latex'): string {
  const dash = style === 'latex' ? '--' : '–';
  if (of && of.n === 0) return `${dash} (${of.k}/${of.n})`;
  if (value === null) return dash;
  const percent = style === 'latex' ? `${pct(value)}\\%` : `${pct(value)}%`;
  return interval ? `${percent} [${pct(interval[0])}, ${pct(interval[1])}]` : percent;
}

/** The run, then each API in it: the columns the Results page's headline table shows. */
function columnsOf(report: ExportReport): [string, Statistics, Uncertainty | null][] {
  if (!report.statistics) return [];
  const all: [string, Statistics, Uncertainty | null] = ['all', report.statistics, report.uncertainty];
  return [all, ...Object.entries(report.per_api).map(([api, s]): [string, Statistics, Uncertainty | null] => [api, s, report.per_api_uncertainty[api] ?? null])];
}

/** The pass@k rows (several outputs per task): the run's value, no per-API value. */
const passAtKRows = (report: ExportReport, columns: number): [string, string[]][] => Object.entries(report.pass_at_k).map(([k, v]) => [`pass@${k}`, [pct(v), ...Array<string>(columns - 1).fill('')]]);

/** `, full completion, constrained`: the run's setup and setting as the titles name them. */
const conditionOf = (run: RunSummary): string => `${run.setup ? `, ${run.setup} completion` : ''}${run.setting ? `, ${run.setting}` : ''}`;

/** Every argument of an output with its verdict, `location.key=verdict`, in one cell. */
const argumentVerdicts = (v: Verdict | null): string =>
  v
    ? Object.entries(v.arguments)
        .flatMap(([location, args]) => Object.entries(args ?? {}).map(([key, a]) => `${location}.${key}=${a.verdict}`))
        .join('; ')
    : '';

const overrideNote = (run: RunSummary): string => (run.overridden ? `${run.overridden} verdict${run.overridden === 1 ? '' : 's'} overridden by a reviewer` : '');

/**
 * A run's results as files: every output as CSV and JSON (the reference's names, plus what a
 * reader needs: task, expected and captured request, each argument's verdict, the code, failure
 * classes, tokens, time, override and its reason), the paper's headline table (run and per API)
 * with 95% intervals as Markdown and LaTeX, the programs as a WAPIIBench-style folder.
 */
export function exportRunFiles(format: ExportFormat, run: RunSummary, report: ExportReport, outputs: readonly ExportedOutput[]): Record<string, string> {
  const base = `run-${run.id}`;
  switch (format) {
    case 'csv': {
      const header = [
        'index', 'attempt', 'sample_id', 'api', 'task', 'endpoint', 'expected_method', 'expected_url', 'captured_method', 'captured_url',
        'sample_verdict', 'error_verdict', 'url_verdict', 'method_verdict', 'endpoint_verdict', 'argument_verdicts', ...ARGUMENT_COLUMNS.map((c) => `arguments_${c}`),
        'failures', 'overridden', 'scorer_sample_verdict', 'override_reason', 'error', 'tokens', 'duration_ms', 'code',
      ];
      const lines = outputs.map((o) => {
        const { row } = o;
        return [
          row.index, row.attempt, row.sampleId, row.api, row.task, row.endpoint, o.expected?.method.toUpperCase(), o.expected?.url, o.captured?.method.toUpperCase(), o.captured?.url,
          row.sample_verdict, row.error_verdict, row.url_verdict, row.method_verdict, row.endpoint_verdict, argumentVerdicts(o.verdict), ...ARGUMENT_COLUMNS.map((c) => row.argumentCounts[c] ?? 0),
          row.failures.join(';'), row.overridden, row.overridden ? o.scorerVerdict?.sample_verdict : null, o.overrideReason, row.error, row.tokens, row.durationMs === null ? null : Math.round(row.durationMs), o.code,
        ]
          .map(csvField)
          .join(',');
      });
      return { [`${base}.csv`]: [header.join(','), ...lines].join('\r\n') + '\r\n' };
    }
    case 'json': {
      const samples = Object.fromEntries(
        outputs.map((o) => [
          o.row.attempt ? `${o.row.index}.${o.row.attempt}` : String(o.row.index),
          {
            ...(o.verdict ?? { error: o.row.error }),
            index: o.row.index,
            attempt: o.row.attempt,
            sample_id: o.row.sampleId,
            api: o.row.api,
            task: o.row.task,
            expected: o.expected,
            captured: o.captured,
            failures: o.row.failures,
            overridden: o.row.overridden,
            ...(o.row.overridden ? { override: { scorer_sample_verdict: o.scorerVerdict?.sample_verdict ?? null, reason: o.overrideReason } } : {}),
            error: o.row.error,
            tokens: o.row.tokens,
            duration_ms: o.row.durationMs === null ? null : Math.round(o.row.durationMs),
            code: o.code,
          },
        ]),
      );
      return {
        [`${base}.json`]:
          JSON.stringify(
            {
              run: run.id,
              dataset: run.dataset,
              model: run.model,
              setup: run.setup,
              setting: run.setting,
              overridden: run.overridden,
              statistics: report.statistics,
              intervals: report.uncertainty?.intervals ?? {},
              counts: report.uncertainty?.counts ?? {},
              bootstrap: BOOTSTRAP,
              pass_at_k: report.pass_at_k,
              per_api: report.per_api,
              per_api_intervals: Object.fromEntries(Object.entries(report.per_api_uncertainty).map(([api, u]) => [api, u.intervals])),
              samples,
            },
            null,
            2,
          ) + '\n',
      };
    }
    case 'markdown': {
      const cols = columnsOf(report);
      const lines = [`| | ${cols.map(([c]) => markdownEscape(c)).join(' | ')} |`, `|---|${cols.map(() => '---:').join('|')}|`, `| Samples | ${cols.map(([, s]) => headlineValue(s, 'samples_total')).join(' | ')} |`];
      for (const [label, key] of HEADLINE) lines.push(`| ${label} | ${cols.map(([, s, u]) => rateCell(definedValue(s, key), u?.counts[key], u?.intervals[key], 'markdown')).join(' | ')} |`);
      for (const [label, cells] of passAtKRows(report, cols.length)) lines.push(`| ${label} | ${cells.join(' | ')} |`);
      const title = `Run ${run.id}: ${markdownEscape(run.model ?? run.kind)} on ${markdownEscape(run.dataset)}${markdownEscape(conditionOf(run))}${run.overridden ? ` (${overrideNote(run)})` : ''}`;
      const note = `Percent [95% interval: Wilson; mean metrics: percentile bootstrap]; – : undefined, no sample in the denominator (k/n for a proportion).${run.overridden ? ` Includes ${overrideNote(run)}.` : ''}`;
      return { [`${base}.md`]: `${title}\n\n${lines.join('\n')}\n\n${note}\n` };
    }
    case 'latex': {
      const cols = columnsOf(report);
      const lines = [
        `% Run ${run.id}: ${latexEscape(run.model ?? run.kind)} on ${latexEscape(run.dataset)}${latexEscape(conditionOf(run))}${run.overridden ? ` (${overrideNote(run)})` : ''}`,
        `\\begin{tabular}{l${'r'.repeat(cols.length)}}`,
        '\\toprule',
        ` & ${cols.map(([c]) => latexEscape(c)).join(' & ')} \\\\`,
        '\\midrule',
        `Samples & ${cols.map(([, s]) => headlineValue(s, 'samples_total')).join(' & ')} \\\\`,
        ...HEADLINE.map(([label, key]) => `${latexEscape(label)} & ${cols.map(([, s, u]) => rateCell(definedValue(s, key), u?.counts[key], u?.intervals[key], 'latex')).join(' & ')} \\\\`),
        ...passAtKRows(report, cols.length).map(([label, cells]) => `${latexEscape(label)} & ${cells.map((c) => (c ? `${c}\\%` : '')).join(' & ')} \\\\`),
        '\\bottomrule',
        '\\end{tabular}',
        ...(run.overridden ? [`\\par{\\footnotesize ${latexEscape(overrideNote(run))}.}`] : []),
        `% Percent [95\\% interval: Wilson; mean metrics: percentile bootstrap]; --: undefined, no sample in the denominator (k/n for a proportion).${run.overridden ? ` Includes ${overrideNote(run)}.` : ''}`,
      ];
      return { [`${base}.tex`]: lines.join('\n') + '\n' };
    }
    case 'codes': {
      const files: Record<string, string> = {};
      for (const o of outputs) files[`${base}/${String(o.row.index).padStart(4, '0')}${o.row.attempt ? `_${o.row.attempt}` : ''}_code.js`] = o.code;
      return files;
    }
  }
}
