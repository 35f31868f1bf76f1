import { useEffect, useState } from 'react';
import { REVIEW_STATES } from '../../../../main/api/constants.js';
import { OneOf, verbatim } from '../../components/OneOf.js';
import { useDatasets } from './datasetsStore.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const CHECK_STATUSES = ['ok', 'flagged'] as const;
const REQUESTS = ['one', 'several'] as const;

export function Filters(): React.JSX.Element {
  const filter = useDatasets((s) => s.filter);
  const setFilter = useDatasets((s) => s.setFilter);
  const dataset = useDatasets((s) => s.datasets.find((d) => d.id === s.datasetId));
  const count = useDatasets((s) => s.samples.length);
  const [text, setText] = useState(filter.text ?? '');
  useEffect(() => setText(filter.text ?? ''), [filter.text]);
  // Searching as the user types, but not on every keystroke.
  useEffect(() => {
    const t = setTimeout(() => {
      if ((filter.text ?? '') !== text) void setFilter({ text });
    }, 250);
    return () => clearTimeout(t);
  }, [text, filter.text, setFilter]);
  return (
    <div className="filters">
      <OneOf label="API" aria="API" any="all" options={dataset?.apis.map((a) => a.api) ?? []} text={(api) => `${api} (${dataset?.apis.find((a) => a.api === api)?.samples ?? 0})`} value={filter.api || undefined} onChange={(api) => void setFilter({ api: api ?? '' })} />
      <OneOf label="Method" aria="Method" any="all" options={METHODS} text={(m) => m.toUpperCase()} value={filter.method || undefined} onChange={(method) => void setFilter({ method: method ?? '' })} />
      <OneOf label="Review" aria="Review state" any="all" options={REVIEW_STATES} text={verbatim} value={filter.reviewState} onChange={(reviewState) => void setFilter({ reviewState })} />
      <OneOf label="Checks" aria="Check status" any="all" options={CHECK_STATUSES} text={verbatim} value={filter.checkStatus} onChange={(checkStatus) => void setFilter({ checkStatus })} />
      <OneOf label="Requests" aria="Requests per sample" any="all" options={REQUESTS} text={(r) => (r === 'one' ? 'one' : 'several (steps)')} value={filter.requests} onChange={(requests) => void setFilter({ requests })} />
      {filter.endpoint && (
        <span className="chip" data-testid="endpoint-filter">
          endpoint <code>{filter.endpoint}</code>
          <button className="link" aria-label="Clear the endpoint filter" onClick={() => void setFilter({ endpoint: undefined })}>
            ✕
          </button>
        </span>
      )}
      <input className="search" type="search" placeholder="Search task and request…" aria-label="Search" value={text} onChange={(e) => setText(e.target.value)} />
      <span className="count" data-testid="sample-count">
        {count} sample{count === 1 ? '' : 's'}
      </span>
    </div>
  );
}
