/** How numbers, sizes and times read across the pages. */
export const percent = (x: number | null | undefined, digits = 1): string => (x === null || x === undefined || Number.isNaN(x) ? '–' : `${(x * 100).toFixed(digits)}%`);

/**
 * A statistic's value, or null where it is undefined: a mean argument metric whose denominator is
 * empty has no entry for the location (the JSON writes `{}`), where the reference would read 0.
 */
export function definedStatistic(stats: Record<string, number | Record<string, number>> | null | undefined, key: string, location = 'all'): number | null {
  const v = stats?.[key];
  if (typeof v === 'number') return v;
  const at = v?.[location];
  return typeof at === 'number' ? at : null;
}

/** A 95% interval as it is, in percent: `[0.0, 18.4]` (a ± half-width suggested bounds below 0 or above 100). */
export const interval = (i: readonly [number, number]): string => `[${(i[0] * 100).toFixed(1)}, ${(i[1] * 100).toFixed(1)}]`;

export const signedPoints = (delta: number): string => `${delta > 0 ? '+' : delta < 0 ? '−' : '±'}${Math.abs(delta * 100).toFixed(1)} pt`;

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '–';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** `2026-11-23 09:23` from an ISO time, in the viewer's time zone. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '–';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A JSON value as it is written, so `50` and `"50"` look different. */
export const json = (v: unknown): string => (v === undefined ? 'undefined' : JSON.stringify(v));

/** "1 API", "4 APIs", "0 samples": a count with its noun in agreement. */
export const counted = (n: number, noun: string, plural = `${noun}s`): string => `${n.toLocaleString()} ${n === 1 ? noun : plural}`;
