import type { RunDetail } from '../../api.js';
import './results.css';
import { percent } from '../../format.js';

type Proportion = { k: number; n: number };
type Interval = [number, number];
export type Uncertainty = NonNullable<RunDetail['uncertainty']>;

const pt = (x: number): string => (x * 100).toFixed(1);

/**
 * A rate as tables show it: the percent with ± half its 95% interval (the bounds and k/n on
 * hover), or "–" when its denominator is 0 (the reference writes 0.0%, which reads as a measurement).
 */
export function Rate({ value, of, interval, plain = false }: { value: number | null | undefined; of?: Proportion | null | undefined; interval?: Interval | null | undefined; plain?: boolean }): React.JSX.Element {
  if (value === null || value === undefined) return <span className="muted">–</span>;
  if (of && of.n === 0)
    return (
      <span className="rate undefined" title={`undefined: ${of.k}/${of.n}, no sample in the denominator`} data-undefined="">
        –
      </span>
    );
  const title = [of ? `${of.k}/${of.n}` : null, interval ? `95% interval ${pt(interval[0])}–${pt(interval[1])}%` : null].filter((x) => x !== null).join(' · ');
  return (
    <span className="rate" title={title || undefined}>
      {percent(value)}
      {interval && !plain && <span className="pm"> ±{pt((interval[1] - interval[0]) / 2)}</span>}
    </span>
  );
}

/** The override mark wherever a number includes verdicts a reviewer changed. */
export function OverrideMark({ count }: { count: number }): React.JSX.Element | null {
  if (count <= 0) return null;
  return (
    <span className="override-mark" title={`includes ${count} verdict${count === 1 ? '' : 's'} overridden by a reviewer`} data-testid="override-mark">
      ✎
    </span>
  );
}
