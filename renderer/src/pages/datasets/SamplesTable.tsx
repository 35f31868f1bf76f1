import { createColumnHelper, flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type SortingState } from '@tanstack/react-table';
import { useMemo, useState } from 'react';
import type { Sample } from '../../../../main/api/schemas.js';
import { useDatasets } from './datasetsStore.js';
import { SortableHead } from '../../components/SortableHead.js';

const column = createColumnHelper<Sample>();

function pathOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return url;
  }
}

/** A sample's expected requests: a multi-step sample's steps, else its one config. */
function requestsOf(s: Sample): readonly { readonly method: string; readonly url: string }[] {
  const steps = s.fields?.['steps'];
  if (!Array.isArray(steps)) return [s.config];
  const configs = steps.flatMap((step) => {
    const config = step && typeof step === 'object' && !Array.isArray(step) ? step['config'] : undefined;
    return config && typeof config === 'object' && !Array.isArray(config) && typeof config['method'] === 'string' && typeof config['url'] === 'string' ? [{ method: config['method'], url: config['url'] }] : [];
  });
  return configs.length > 0 ? configs : [s.config];
}

export function SamplesTable(): React.JSX.Element {
  const samples = useDatasets((s) => s.samples);
  const selectedId = useDatasets((s) => s.selected?.sample.id);
  const openSample = useDatasets((s) => s.openSample);
  const [sorting, setSorting] = useState<SortingState>([]);
  const columns = useMemo(
    () => [
      column.accessor('position', { header: '#', size: 50 }),
      column.accessor('api', { header: 'API', size: 140 }),
      // A task of several requests reads as its steps' methods and paths in order (its config is only the last step's).
      column.accessor((s) => requestsOf(s).map((r) => r.method.toUpperCase()).join(' → '), { id: 'method', header: 'Method', size: 100 }),
      column.accessor((s) => requestsOf(s).map((r) => pathOf(r.url)).join(' → '), { id: 'url', header: 'Path', size: 260, cell: (info) => <span title={info.getValue()}>{info.getValue()}</span> }),
      column.accessor('task', { header: 'Task' }),
      column.accessor('reviewState', { header: 'Review', size: 90 }),
      column.accessor('checkStatus', {
        header: 'Checks',
        size: 90,
        cell: (info) => <span className={`badge ${info.getValue()}`}>{info.getValue() === 'ok' ? 'ok' : `${info.row.original.findings.length} finding${info.row.original.findings.length === 1 ? '' : 's'}`}</span>,
      }),
    ],
    [],
  );
  const table = useReactTable({ data: samples, columns, state: { sorting }, onSortingChange: setSorting, getCoreRowModel: getCoreRowModel(), getSortedRowModel: getSortedRowModel() });
  return (
    <div className="table-scroll">
      <table className="samples" data-testid="samples-table">
        <SortableHead table={table} />
        <tbody>
          {table.getRowModel().rows.map((row) => (
            <tr
              key={row.id}
              data-sample-id={row.original.id}
              className={row.original.id === selectedId ? 'selected' : undefined}
              onClick={() => void openSample(row.original.id)}
            >
              {row.getVisibleCells().map((cell) => (
                <td key={cell.id}>{flexRender(cell.column.columnDef.cell, cell.getContext())}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {samples.length === 0 && <p className="empty">No sample matches these filters.</p>}
    </div>
  );
}
