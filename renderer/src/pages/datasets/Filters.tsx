import { useEffect, useState } from 'react';
import { REVIEW_STATES } from '../../../../main/api/constants.js';
import { useDatasets } from './datasetsStore.js';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

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
      <label>
        API
        <select aria-label="API" value={filter.api ?? ''} onChange={(e) => void setFilter({ api: e.target.value })}>
          <option value="">all</option>
          {dataset?.apis.map((a) => (
            <option key={a.api} value={a.api}>
              {a.api} ({a.samples})
            </option>
          ))}
        </select>
      </label>
      <label>
        Method
        <select aria-label="Method" value={filter.method ?? ''} onChange={(e) => void setFilter({ method: e.target.value })}>
          <option value="">all</option>
          {METHODS.map((m) => (
            <option key={m} value={m}>
              {m.toUpperCase()}
            </option>
          ))}
        </select>
      </label>
      <label>
        Review
        <select aria-label="Review state" value={filter.reviewState ?? ''} onChange={(e) => void setFilter({ reviewState: (e.target.value || undefined) as (typeof REVIEW_STATES)[number] | undefined })}>
          <option value="">all</option>
          {REVIEW_STATES.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </label>
      <label>
        Checks
        <select aria-label="Check status" value={filter.checkStatus ?? ''} onChange={(e) => void setFilter({ checkStatus: (e.target.value || undefined) as 'ok' | 'flagged' | undefined })}>
          <option value="">all</option>
          <option value="ok">ok</option>
          <option value="flagged">flagged</option>
        </select>
      </label>
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
