import type { RunSummary } from '../../api.js';
import { duration } from '../../format.js';
import { useRuns } from './runsStore.js';
// The stopped statuses' bar colours.
import './results.css';

/** A run that stopped before its end: the bar takes the status's colour and says why it is not moving. */
const STOPPED: Partial<Record<RunSummary['status'], string>> = { failed: 'failed', cancelled: 'cancelled', interrupted: 'interrupted' };

/**
 * done/total with a bar; while running, correct so far, tokens/s and the ETA from the live events.
 * A failed, cancelled or interrupted run's bar is red or amber (not the running blue, even when
 * full) and its label names the status; the compact form (the Runs list, beside the status badge)
 * says it on hover.
 */
export function RunProgress({ run, compact = false }: { run: RunSummary; compact?: boolean }): React.JSX.Element {
  const live = useRuns((s) => s.progress[run.id]);
  const running = run.status === 'running' && live;
  const done = running ? live.done : run.done;
  const total = running ? live.total : run.total;
  const ratio = total > 0 ? done / total : 0;
  const stopped = STOPPED[run.status];
  const label = stopped ? `${stopped} at ${done} of ${total} outputs` : `${done} of ${total} outputs`;
  return (
    <div className={`run-progress status-${run.status}`} data-testid={`progress-${run.id}`} title={stopped ? label : undefined}>
      <div className="bar" role="progressbar" aria-label={label} aria-valuenow={done} aria-valuemin={0} aria-valuemax={total}>
        <div style={{ width: `${(ratio * 100).toFixed(1)}%` }} />
      </div>
      <span className="numbers">
        {done}/{total}
        {stopped && !compact && <span className="stopped"> · {stopped}</span>}
        {running && !compact && (
          <>
            {' '}
            · {live.correct} correct · {live.tokensPerSecond.toFixed(1)} tok/s · ETA {duration(live.etaSeconds)}
          </>
        )}
        {running && compact && <> · ETA {duration(live.etaSeconds)}</>}
      </span>
    </div>
  );
}
