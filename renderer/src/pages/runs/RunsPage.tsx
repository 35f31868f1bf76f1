import { createColumnHelper, flexRender, getCoreRowModel, getSortedRowModel, useReactTable, type SortingState } from '@tanstack/react-table';
import { useEffect, useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import type { RunSummary } from '../../api.js';
import { Empty, Failed, Loading } from '../../components/Empty.js';
import { step, useShortcuts } from '../../components/shortcuts.js';
import { when } from '../../format.js';
import { OverrideMark, Rate } from './Rate.js';
import { RunProgress } from './RunProgress.js';
import { isActive, useRuns } from './runsStore.js';
import { SortableHead } from '../../components/SortableHead.js';
import { runStatusText } from '../../../../main/api/constants.js';

const column = createColumnHelper<RunSummary>();

/** Every run: its model, dataset, setup and setting, status and headline numbers; cancel, resume, delete, compare. */
export function RunsPage(): React.JSX.Element {
  const runs = useRuns((s) => s.runs);
  const loaded = useRuns((s) => s.loaded);
  const failed = useRuns((s) => s.failed);
  const load = useRuns((s) => s.load);
  const navigate = useNavigate();
  const [sorting, setSorting] = useState<SortingState>([{ id: 'id', desc: true }]);
  const [chosen, setChosen] = useState<number[]>([]);
  const [focused, setFocused] = useState<number | undefined>();
  useEffect(() => void load(), [load]);

  const columns = useMemo(
    () => [
      column.display({
        id: 'pick',
        header: '',
        size: 28,
        enableSorting: false,
        cell: ({ row }) => (
          <input
            type="checkbox"
            aria-label={`choose run ${row.original.id} to compare`}
            checked={chosen.includes(row.original.id)}
            onClick={(e) => e.stopPropagation()}
            onChange={(e) => setChosen((c) => (e.target.checked ? [...c, row.original.id] : c.filter((x) => x !== row.original.id)))}
          />
        ),
      }),
      column.accessor('id', { header: '#', size: 48 }),
      column.accessor((r) => r.model ?? (r.kind === 'generation' ? 'remote' : r.kind), { id: 'model', header: 'Model', size: 120, cell: ({ getValue }) => <span title={getValue()}>{getValue()}</span> }),
      column.accessor('dataset', {
        header: 'Dataset',
        size: 84,
        cell: ({ row }) => (
          <>
            <span title={row.original.dataset}>{row.original.dataset}</span>
            {row.original.datasetChanged && (
              <span className="badge flagged" title="the dataset was edited after this run took its samples">
                {' '}
                changed
              </span>
            )}
          </>
        ),
      }),
      column.accessor((r) => (r.setup === 'full' ? 'full' : r.setup === 'argument' ? 'argument' : (r.setup ?? '–')), { id: 'setup', header: 'Setup', size: 60 }),
      column.accessor((r) => r.setting ?? '–', { id: 'setting', header: 'Setting', size: 122 }),
      column.accessor((r) => r.knowledge ?? '–', { id: 'knowledge', header: 'Knowledge', size: 100 }),
      column.accessor('status', {
        header: 'Status',
        size: 200,
        cell: ({ row }) => (
          <div className="status-cell">
            <span className={`status s-${row.original.status}`}>{runStatusText(row.original)}</span>
            <RunProgress run={row.original} compact />
          </div>
        ),
      }),
      // An undefined rate (no executable output for illegal (e)) sorts below every defined one and reads "–" with k/n on hover.
      column.accessor((r) => (r.correctOf?.n === 0 ? -1 : (r.correct ?? -1)), {
        id: 'correct',
        header: 'Correct (t)',
        size: 100,
        cell: ({ row }) => (
          <>
            <Rate value={row.original.correct} of={row.original.correctOf} />
            <OverrideMark count={row.original.overridden} />
          </>
        ),
      }),
      column.accessor((r) => (r.illegalOf?.n === 0 ? -1 : (r.illegal ?? -1)), {
        id: 'illegal',
        header: 'Illegal (e)',
        size: 96,
        cell: ({ row }) => (
          <>
            <Rate value={row.original.illegal} of={row.original.illegalOf} />
            <OverrideMark count={row.original.overridden} />
          </>
        ),
      }),
      column.accessor('createdAt', { header: 'Date', size: 140, cell: ({ getValue }) => when(getValue()) }),
      column.display({ id: 'actions', header: '', size: 100, cell: ({ row }) => <RunActions run={row.original} /> }),
    ],
    [chosen],
  );
  const table = useReactTable({ data: runs, columns, state: { sorting }, onSortingChange: setSorting, getCoreRowModel: getCoreRowModel(), getSortedRowModel: getSortedRowModel() });
  const ordered = table.getRowModel().rows.map((r) => r.original.id);
  useShortcuts('Runs', [
    { keys: 'j', description: 'next run', run: () => setFocused((f) => step(ordered, f, 1)) },
    { keys: 'k', description: 'previous run', run: () => setFocused((f) => step(ordered, f, -1)) },
    { keys: 'Enter', description: 'open the run', run: () => focused !== undefined && void navigate(`/runs/${focused}`) },
    { keys: 'n', description: 'new run', run: () => void navigate('/runs/new') },
  ]);

  return (
    <main className="page scroll">
      <div className="toolbar">
        <h2>Runs</h2>
        <span className="muted">{runs.length > 0 && `${runs.length} run${runs.length === 1 ? '' : 's'} · ${runs.filter((r) => isActive(r.status)).length} active`}</span>
        <span className="spacer" />
        <button className="secondary" disabled={chosen.length < 2} onClick={() => void navigate(`/compare?baseline=${chosen[0]}&runs=${chosen.slice(1).join(',')}`)} title="tick two or more runs; the first ticked is the baseline">
          Compare {chosen.length >= 2 ? chosen.length : ''} selected
        </button>
        <button onClick={() => void navigate('/runs/new')} title="n">
          New run…
        </button>
      </div>
      {!loaded ? (
        failed ? <Failed what="the runs" retry={() => void load()} /> : <Loading what="runs" />
      ) : runs.length === 0 ? (
        <Empty title="No runs yet." testId="runs-empty">
          Add a model on the <Link to="/models">Models</Link> page (or use a remote endpoint), then queue runs from <Link to="/runs/new">New run</Link>.
        </Empty>
      ) : (
        <div className="table-scroll">
          <table className="samples runs" data-testid="runs-table">
            <SortableHead table={table} />
            <tbody>
              {table.getRowModel().rows.map((row) => (
                <tr key={row.id} data-run-id={row.original.id} className={row.original.id === focused ? 'selected' : undefined} onClick={() => void navigate(`/runs/${row.original.id}`)}>
                  {row.getVisibleCells().map((cell) => (
                    <td key={cell.id} className={cell.column.id === 'status' ? 'status-col' : cell.column.id === 'dataset' ? 'dataset-col' : undefined}>
                      {flexRender(cell.column.columnDef.cell, cell.getContext())}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}

/** Cancel, resume, retry errors, delete (asks once), in a row's last cell. */
export function RunActions({ run }: { run: RunSummary }): React.JSX.Element {
  const { cancel, resume, remove } = useRuns.getState();
  const cancelling = useRuns((s) => s.cancelling[run.id] === true);
  const [confirming, setConfirming] = useState(false);
  const stop = (fn: () => void) => (e: React.MouseEvent) => {
    e.stopPropagation();
    fn();
  };
  return (
    <div className="actions">
      {isActive(run.status) && (
        <button className="secondary small" disabled={cancelling} onClick={stop(() => void cancel(run.id))}>
          {cancelling ? 'cancelling…' : 'Cancel'}
        </button>
      )}
      {(run.status === 'cancelled' || run.status === 'interrupted' || run.status === 'failed') && run.kind === 'generation' && (
        <button className="small" onClick={stop(() => void resume(run.id))}>
          Resume
        </button>
      )}
      {!isActive(run.status) &&
        (confirming ? (
          <>
            <button className="danger small" onClick={stop(() => void remove(run.id))}>
              Delete run {run.id}
            </button>
            <button className="link small" onClick={stop(() => setConfirming(false))}>
              keep
            </button>
          </>
        ) : (
          <button className="link small" onClick={stop(() => setConfirming(true))} aria-label={`delete run ${run.id}`}>
            Delete
          </button>
        ))}
    </div>
  );
}
