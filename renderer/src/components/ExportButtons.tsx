import { useState } from 'react';
import type { ExportFormat } from '../api.js';
import { getClient } from '../client.js';
import { attempt } from '../notices.js';
import { saveFile, tar } from './download.js';

const FORMATS: readonly { format: ExportFormat; label: string; title: string }[] = [
  { format: 'csv', label: 'CSV', title: "the samples with their verdicts, under the reference's names" },
  { format: 'json', label: 'JSON', title: 'statistics, per-API statistics and samples' },
  { format: 'markdown', label: 'Markdown', title: 'the headline tables' },
  { format: 'latex', label: 'LaTeX', title: 'the headline tables' },
  { format: 'codes', label: 'Code folder', title: 'the generated programs as NNNN_code.js, in one .tar' },
];
const TYPES: Record<string, string> = { csv: 'text/csv', json: 'application/json', md: 'text/markdown', tex: 'application/x-tex' };

/** Export a run: each format downloads as a file (the code folder as one tar). */
export function ExportButtons({ runId }: { runId: number }): React.JSX.Element {
  const [busy, setBusy] = useState<ExportFormat | undefined>();
  const run = async (format: ExportFormat): Promise<void> => {
    setBusy(format);
    const out = await attempt(() => getClient().exportRun({ runId, format }));
    setBusy(undefined);
    if (!out) return;
    const files = Object.entries(out.files);
    if (format === 'codes' || files.length > 1) {
      // The service names the programs inside their folder (`<run>/0007_code.js`); the archive takes the folder's name.
      const folder = files[0]?.[0].includes('/') ? files[0][0].split('/')[0] : `run-${runId}-codes`;
      const named = Object.fromEntries(files.map(([name, content]) => [name.includes('/') ? name : `${folder}/${name}`, content]));
      return saveFile(`${folder}.tar`, tar(named), 'application/x-tar');
    }
    for (const [name, content] of files) saveFile(name, content, TYPES[name.split('.').pop() ?? ''] ?? 'text/plain');
  };
  return (
    <div className="export" role="group" aria-label="Export">
      <span className="muted">Export</span>
      {FORMATS.map((f) => (
        <button key={f.format} className="secondary small" title={f.title} disabled={busy !== undefined} onClick={() => void run(f.format)}>
          {busy === f.format ? '…' : f.label}
        </button>
      ))}
    </div>
  );
}
