import type { RunSampleDetail } from '../../api.js';
import { CodeView } from '../../components/CodeView.js';
import { Verdict } from '../../components/Verdict.js';
import './repair.css';

type Round = NonNullable<NonNullable<RunSampleDetail['generation']>['repair']>[number];

/**
 * The repair setting's rounds of one output (main/runner/repair.ts): each program the model wrote,
 * what the spec checker sent back about it, and its verdict. The last round is the scored program,
 * so it is marked as such; the earlier ones are kept only to show how the model got there.
 */
export function RepairRounds({ rounds }: { rounds: readonly Round[] }): React.JSX.Element {
  return (
    <ol className="repair-rounds" data-testid="repair-rounds">
      {rounds.map((r, i) => {
        const scored = i === rounds.length - 1;
        return (
          <li key={r.round} data-testid="repair-round">
            <h4>
              Round {r.round + 1} <Verdict value={r.verdict === 'nonexecutable' && r.error ? `nonexecutable (${r.error})` : r.verdict} />
              <span className="muted">
                {' '}
                · {r.tokens} tokens{scored ? ' · the scored program' : ''}
              </span>
            </h4>
            <CodeView code={r.code} label={`repair round ${r.round + 1} program`} />
            {r.feedback.length > 0 ? (
              <>
                <p className="muted">Sent back to the model{scored ? ' (no rounds left)' : ''}:</p>
                <ul className="repair-feedback" data-testid="repair-feedback">
                  {r.feedback.map((f, j) => (
                    <li key={j}>{f}</li>
                  ))}
                </ul>
              </>
            ) : (
              <p className="muted">The checker found nothing to repair.</p>
            )}
          </li>
        );
      })}
    </ol>
  );
}
