import type { RunSampleRow, RunSummary } from '../api/evaluation.js';
import { HEADLINE, headlineValue, type Statistics, type Verdict } from '../scoring/index.js';

export type ExportFormat = 'csv' | 'json' | 'markdown' | 'latex' | 'codes';

interface ExportedOutput {
  readonly row: RunSampleRow;
  readonly verdict: Verdict | null;
  readonly code: string;
}

const ARGUMENT_COLUMNS = ['correct', 'incorrect_value', 'missing', 'unnecessary', 'illegal'] as const;

/** RFC 4180: quote a field holding a comma, quote or line break; double the quotes inside. */
const csvField = (v: unknown): string => {
  const s = v === null || v === undefined ? '' : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

const pct = (v: number): string => (v * 100).toFixed(1);
const latexEscape = (s: string): string => s.replace(/[\\&%$#_{}~^]/g, (c) => (c === '\\' ? '\\textbackslash{}' : c === '~' ? '\\textasciitilde{}' : c === '^' ? '\\textasciicircum{}' : `\\${c}`));

function columnsOf(report: { statistics: Statistics | null; per_api: Record<string, Statistics> }): [string, Statistics][] {
  if (!report.statistics) return [];
  const apis = Object.entries(report.per_api);
  return apis.length > 1 ? [['all', report.statistics], ...apis] : [['all', report.statistics]];
}

/**
 * A run's results as files: the samples as CSV and JSON under the reference's names, the paper's
 * headline table (run and per API) as Markdown and LaTeX, the programs as a WAPIIBench-style folder.
 */
export function exportRunFiles(format: ExportFormat, run: RunSummary, report: { statistics: Statistics | null; per_api: Record<string, Statistics> }, outputs: readonly ExportedOutput[]): Record<string, string> {
  const base = `run-${run.id}`;
  switch (format) {
    case 'csv': {
      const header = ['index', 'attempt', 'sample_id', 'api', 'endpoint', 'sample_verdict', 'error_verdict', 'url_verdict', 'method_verdict', 'endpoint_verdict', ...ARGUMENT_COLUMNS.map((c) => `arguments_${c}`), 'overridden', 'error', 'tokens', 'duration_ms'];
      const lines = outputs.map(({ row }) =>
        [row.index, row.attempt, row.sampleId, row.api, row.endpoint, row.sample_verdict, row.error_verdict, row.url_verdict, row.method_verdict, row.endpoint_verdict, ...ARGUMENT_COLUMNS.map((c) => row.argumentCounts[c] ?? 0), row.overridden, row.error, row.tokens, row.durationMs]
          .map(csvField)
          .join(','),
      );
      return { [`${base}.csv`]: [header.join(','), ...lines].join('\r\n') + '\r\n' };
    }
    case 'json': {
      const samples = Object.fromEntries(outputs.map((o) => [o.row.attempt ? `${o.row.index}.${o.row.attempt}` : String(o.row.index), { ...(o.verdict ?? { error: o.row.error }), sample_id: o.row.sampleId, api: o.row.api, overridden: o.row.overridden }]));
      return { [`${base}.json`]: JSON.stringify({ run: run.id, dataset: run.dataset, model: run.model, setup: run.setup, setting: run.setting, statistics: report.statistics, per_api: report.per_api, samples }, null, 2) + '\n' };
    }
    case 'markdown': {
      const cols = columnsOf(report);
      const lines = [`| | ${cols.map(([c]) => c).join(' | ')} |`, `|---|${cols.map(() => '---:').join('|')}|`, `| Samples | ${cols.map(([, s]) => headlineValue(s, 'samples_total')).join(' | ')} |`];
      for (const [label, key] of HEADLINE) lines.push(`| ${label} | ${cols.map(([, s]) => pct(headlineValue(s, key))).join(' | ')} |`);
      const title = `Run ${run.id}: ${run.model ?? run.kind} on ${run.dataset}${run.setup ? `, ${run.setup} completion` : ''}${run.setting ? `, ${run.setting}` : ''}${run.overridden ? ` (${run.overridden} verdicts overridden)` : ''}`;
      return { [`${base}.md`]: `${title}\n\n${lines.join('\n')}\n` };
    }
    case 'latex': {
      const cols = columnsOf(report);
      const lines = [
        `\\begin{tabular}{l${'r'.repeat(cols.length)}}`,
        '\\toprule',
        ` & ${cols.map(([c]) => latexEscape(c)).join(' & ')} \\\\`,
        '\\midrule',
        `Samples & ${cols.map(([, s]) => headlineValue(s, 'samples_total')).join(' & ')} \\\\`,
        ...HEADLINE.map(([label, key]) => `${latexEscape(label)} & ${cols.map(([, s]) => `${pct(headlineValue(s, key))}\\%`).join(' & ')} \\\\`),
        '\\bottomrule',
        '\\end{tabular}',
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
