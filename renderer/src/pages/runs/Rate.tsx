import type { RunDetail } from '../../api.js';
import './results.css';
import { interval, percent } from '../../format.js';

type Proportion = { k: number; n: number };
type Interval = [number, number];
export type Uncertainty = NonNullable<RunDetail['uncertainty']>;

/**
 * A rate as tables show it: the percent with its 95% interval as it is (`0.0% [0.0, 18.4]`; k/n on
 * hover), or "–" when it is undefined: its denominator is 0 (the reference writes 0.0%, which reads
 * as a measurement), or a mean metric has no sample to average over (value null).
 */
export function Rate({ value, of, interval: bounds, plain = false }: { value: number | null | undefined; of?: Proportion | null | undefined; interval?: Interval | null | undefined; plain?: boolean }): React.JSX.Element {
  if (value === null || value === undefined || (of && of.n === 0))
    return (
      <span className="rate undefined" title={of ? `undefined: ${of.k}/${of.n}, no sample in the denominator` : 'undefined: no sample in the denominator'} data-undefined="">
        –
      </span>
    );
  const title = [of ? `${of.k}/${of.n}` : null, bounds ? `95% interval ${interval(bounds)}` : null].filter((x) => x !== null).join(' · ');
  return (
    <span className="rate" title={title || undefined}>
      {percent(value)}
      {bounds && !plain && <span className="pm"> {interval(bounds)}</span>}
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
