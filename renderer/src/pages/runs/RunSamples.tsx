import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import { FAILURE_CLASSES } from '../../../../main/api/constants.js';
import { ARGUMENT_VERDICTS, ERROR_VERDICTS, PART_VERDICTS, SAMPLE_VERDICTS, type RunSampleRow, type RunSampleSort, type SampleVerdict } from '../../api.js';
import { Empty } from '../../components/Empty.js';
import { Verdict } from '../../components/Verdict.js';
import { keyOf, useRunPage } from './runPageStore.js';
import './failures.css';
import './timeline.css';
import { OneOf, verbatim } from '../../components/OneOf.js';
import { pageWording } from './errorWording.js';

const NOT_CORRECT: SampleVerdict[] = SAMPLE_VERDICTS.filter((v) => v !== 'correct');
const ROW_HEIGHT = 30;

/** The run's samples: filters by verdicts, API, endpoint and text; sortable; virtualised. */
export function RunSamples(): React.JSX.Element {
  return (
    <section className="run-samples">
      <SampleFilters />
      <SampleRows />
    </section>
  );
}

function SampleFilters(): React.JSX.Element {
  const filter = useRunPage((s) => s.filter);
  const setFilter = useRunPage((s) => s.setFilter);
  const sort = useRunPage((s) => s.sort);
  const setSort = useRunPage((s) => s.setSort);
  const apis = useRunPage((s) => s.run?.apis ?? []);
  const total = useRunPage((s) => s.total);
  const loading = useRunPage((s) => s.loadingRows);
  const [text, setText] = useState(filter.text ?? '');
  const [endpoint, setEndpoint] = useState(filter.endpoint ?? '');
  // Filter as the user types, but not on every keystroke.
  useEffect(() => {
    const t = setTimeout(() => {
      if ((filter.text ?? '') !== text || (filter.endpoint ?? '') !== endpoint) void setFilter({ text, endpoint });
    }, 250);
    return () => clearTimeout(t);
  }, [text, endpoint, filter.text, filter.endpoint, setFilter]);
  const verdicts = filter.sampleVerdicts ?? [];
  const verdictChoice = verdicts.length === 0 ? '' : verdicts.length === NOT_CORRECT.length && NOT_CORRECT.every((v) => verdicts.includes(v)) ? 'not-correct' : verdicts.join(',');
  const one = <T extends string>(value: T | undefined): T[] | undefined => (value ? [value] : undefined);
  return (
    <div className="filters">
      <label>
        Verdict
        <select aria-label="Sample verdict" value={verdictChoice} onChange={(e) => void setFilter({ sampleVerdicts: e.target.value === 'not-correct' ? NOT_CORRECT : e.target.value ? (e.target.value.split(',') as SampleVerdict[]) : undefined })}>
          <option value="">all</option>
          <option value="not-correct">not correct</option>
          {SAMPLE_VERDICTS.map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
      </label>
      <OneOf label="Error" aria="Error verdict" any="any" options={ERROR_VERDICTS} value={filter.errorVerdicts?.[0]} onChange={(v) => void setFilter({ errorVerdicts: one(v) })} />
      <OneOf label="Endpoint" aria="Endpoint verdict" any="any" options={PART_VERDICTS} value={filter.endpointVerdicts?.[0]} onChange={(v) => void setFilter({ endpointVerdicts: one(v) })} />
      <OneOf label="An argument" aria="Argument verdict" any="any" options={ARGUMENT_VERDICTS} value={filter.argumentVerdicts?.[0]} onChange={(v) => void setFilter({ argumentVerdicts: one(v) })} />
      <OneOf label="Failure" aria="Failure class" any="any" options={FAILURE_CLASSES} value={filter.failures?.[0]} onChange={(v) => void setFilter({ failures: one(v) })} />
      <OneOf label="API" aria="Run API" any="all" text={verbatim} options={apis} value={filter.apis?.[0]} onChange={(v) => void setFilter({ apis: one(v) })} />
      <input aria-label="Endpoint contains" placeholder="GET /path…" value={endpoint} onChange={(e) => setEndpoint(e.target.value)} size={14} />
      <label className="check">
        <input type="checkbox" checked={filter.overridden ?? false} onChange={(e) => void setFilter({ overridden: e.target.checked || undefined })} /> overridden
      </label>
      <input className="search" type="search" aria-label="Search samples" placeholder="Search task, id, code… ( / )" value={text} onChange={(e) => setText(e.target.value)} />
      <label>
        Sort
        <select aria-label="Sort samples" value={sort.by} onChange={(e) => void setSort({ by: e.target.value as RunSampleSort['by'], dir: sort.dir ?? 'asc' })}>
          {(['index', 'api', 'verdict', 'tokens', 'duration'] as const).map((b) => (
            <option key={b} value={b}>
              {b}
            </option>
          ))}
        </select>
      </label>
      <button type="button" className="link" aria-label="Sort direction" onClick={() => void setSort({ by: sort.by, dir: sort.dir === 'desc' ? 'asc' : 'desc' })}>
        {sort.dir === 'desc' ? '▼' : '▲'}
      </button>
      <span className="count" data-testid="run-sample-count">
        {loading ? 'loading…' : `${total} sample${total === 1 ? '' : 's'}`}
      </span>
    </div>
  );
}

/**
 * A row's argument chips in words, for its tooltip: how many of the expected arguments the request
 * got right, then each other verdict ("3 of 4 expected args correct · 1 missing · 1 unnecessary").
 * Correct, incorrect value and missing are the expected arguments; unnecessary and illegal are extras.
 */
export function argsSummary(counts: Readonly<Record<string, number>>): string {
  const n = (v: string): number => counts[v] ?? 0;
  const expected = n('correct') + n('incorrect_value') + n('missing');
  const rest = ARGUMENT_VERDICTS.filter((v) => v !== 'correct' && n(v) > 0).map((v) => `${n(v)} ${v.replace(/_/g, ' ')}${v === 'unnecessary' || v === 'illegal' ? ' (not expected)' : ''}`);
  return [expected > 0 ? `${n('correct')} of ${expected} expected arg${expected === 1 ? '' : 's'} correct` : 'no args expected', ...rest].join(' · ');
}

const ARGS_HEADER = 'Arguments of the captured request, counted by verdict: correct (green), incorrect value (orange), missing (purple), unnecessary (blue), illegal (red); hover a row for the words';

const COLUMNS: readonly { label: string; sort?: RunSampleSort['by']; title?: string }[] = [
  { label: '#', sort: 'index' },
  { label: 'API', sort: 'api' },
  { label: 'Expected endpoint' },
  { label: 'Task' },
  { label: 'Verdict', sort: 'verdict' },
  { label: 'Endpoint', title: "The captured request's endpoint verdict; a multi-step sample's steps correct, of its steps" },
  { label: 'Args', title: ARGS_HEADER },
  { label: 'Failures' },
  { label: 'Tok.', sort: 'tokens' },
  { label: 'ms', sort: 'duration' },
];

function SampleRows(): React.JSX.Element {
  const rows = useRunPage((s) => s.rows);
  const open = useRunPage((s) => s.open);
  const openSample = useRunPage((s) => s.openSample);
  const sort = useRunPage((s) => s.sort);
  const setSort = useRunPage((s) => s.setSort);
  const loading = useRunPage((s) => s.loadingRows);
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW_HEIGHT, overscan: 12 });
  const openIndex = open ? rows.findIndex((r) => keyOf(r) === keyOf(open)) : -1;
  useEffect(() => {
    if (openIndex >= 0) virtual.scrollToIndex(openIndex, { align: 'auto' });
  }, [openIndex, virtual]);
  return (
    <div className="vtable" role="table" aria-label="Run samples" data-testid="run-samples">
      <div className="vrow vhead" role="row">
        {COLUMNS.map((c) => (
          <div
            key={c.label}
            role="columnheader"
            className={c.sort ? 'sortable' : c.title ? 'explained' : undefined}
            title={c.title}
            onClick={() => c.sort && void setSort({ by: c.sort, dir: sort.by === c.sort && sort.dir !== 'desc' ? 'desc' : 'asc' })}
          >
            {c.label}
            {c.sort === sort.by && (sort.dir === 'desc' ? ' ▼' : ' ▲')}
          </div>
        ))}
      </div>
      <div className="vbody" ref={scroller}>
        {rows.length === 0 && !loading ? (
          <Empty title="No sample matches these filters.">Clear a filter above, or wait for the run to store outputs.</Empty>
        ) : (
          <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
            {virtual.getVirtualItems().map((item) => {
              const r = rows[item.index]!;
              return <SampleRow key={keyOf(r)} row={r} top={item.start} selected={openIndex === item.index} onOpen={() => void openSample({ index: r.index, attempt: r.attempt })} />;
            })}
          </div>
        )}
      </div>
    </div>
  );
}

function SampleRow({ row, top, selected, onOpen }: { row: RunSampleRow; top: number; selected: boolean; onOpen: () => void }): React.JSX.Element {
  const counts = Object.entries(row.argumentCounts).filter(([, n]) => n > 0);
  return (
    <div role="row" className={`vrow${selected ? ' selected' : ''}${row.overridden ? ' overridden' : ''}`} style={{ transform: `translateY(${top}px)`, height: ROW_HEIGHT }} onClick={onOpen} data-index={row.index}>
      <div>
        {row.index}
        {row.attempt > 0 && <span className="muted">.{row.attempt}</span>}
      </div>
      <div>{row.api}</div>
      <div title={row.endpoint}>{row.endpoint}</div>
      <div title={row.task}>{row.task}</div>
      <div>
        {row.error ? <Verdict value="failed" title={pageWording(row.error)} /> : <Verdict value={row.sample_verdict === 'nonexecutable' && row.error_verdict ? `nonexecutable (${row.error_verdict})` : row.sample_verdict} />}
        {row.overridden && (
          <span className="override-mark" title="verdict overridden by a reviewer">
            ✎
          </span>
        )}
      </div>
      <div>
        {row.steps_total !== undefined ? (
          <span className={`steps-chip v-${row.steps_correct === row.steps_total ? 'correct' : 'wrong'}`} title={`a multi-step sample: ${row.steps_correct ?? 0} of its ${row.steps_total} steps correct`} data-testid="steps-chip">
            {row.steps_correct ?? 0}/{row.steps_total} steps
          </span>
        ) : (
          <Verdict value={row.endpoint_verdict} />
        )}
      </div>
      <div className="arg-counts" title={counts.length > 0 ? argsSummary(row.argumentCounts) : undefined}>
        {counts.map(([v, n]) => (
          <span key={v} className={`count-chip v-${v}`} data-verdict={v}>
            {n}
          </span>
        ))}
      </div>
      <div className="failures" title={row.failures.join(', ')}>
        {row.failures.map((f) => (
          <span key={f} className="failure-chip">
            {f.replace(/_/g, ' ')}
          </span>
        ))}
      </div>
      <div>{row.tokens ?? '–'}</div>
      <div>{row.durationMs === null ? '–' : Math.round(row.durationMs)}</div>
    </div>
  );
}
