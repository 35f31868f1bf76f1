/** Percentiles over a list of timings (milliseconds or microseconds, as given). */
export function percentiles(values: readonly number[]): { p50: number; p99: number; max: number; mean: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN, mean: sorted.reduce((a, b) => a + b, 0) / (sorted.length || 1) };
}

export const fmt = (n: number, digits = 2): string => n.toFixed(digits);
