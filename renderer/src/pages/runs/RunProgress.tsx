import type { RunSummary } from '../../api.js';
import { duration } from '../../format.js';
import { useRuns } from './runsStore.js';

/** done/total with a bar; while running, correct so far, tokens/s and the ETA from the live events. */
export function RunProgress({ run, compact = false }: { run: RunSummary; compact?: boolean }): React.JSX.Element {
  const live = useRuns((s) => s.progress[run.id]);
  const running = run.status === 'running' && live;
  const done = running ? live.done : run.done;
  const total = running ? live.total : run.total;
  const ratio = total > 0 ? done / total : 0;
  return (
    <div className={`run-progress status-${run.status}`} data-testid={`progress-${run.id}`}>
      <div className="bar" role="progressbar" aria-valuenow={done} aria-valuemin={0} aria-valuemax={total}>
        <div style={{ width: `${(ratio * 100).toFixed(1)}%` }} />
      </div>
      <span className="numbers">
        {done}/{total}
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
