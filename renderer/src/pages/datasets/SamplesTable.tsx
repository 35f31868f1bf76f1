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

export function SamplesTable(): React.JSX.Element {
  const samples = useDatasets((s) => s.samples);
  const selectedId = useDatasets((s) => s.selected?.sample.id);
  const openSample = useDatasets((s) => s.openSample);
  const [sorting, setSorting] = useState<SortingState>([]);
  const columns = useMemo(
    () => [
      column.accessor('position', { header: '#', size: 50 }),
      column.accessor('api', { header: 'API', size: 140 }),
      column.accessor((s) => s.config.method.toUpperCase(), { id: 'method', header: 'Method', size: 70 }),
      column.accessor((s) => pathOf(s.config.url), { id: 'url', header: 'Path', size: 260 }),
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
