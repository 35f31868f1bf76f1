import { diff, type Delta } from 'jsondiffpatch';

/** One difference between two JSON values, at the deepest key where they differ. */
export interface LeafDiff {
  /** `channel.members[2]`; empty for the values themselves. */
  readonly path: string;
  readonly kind: 'changed' | 'added' | 'removed';
  readonly expected?: unknown;
  readonly actual?: unknown;
}

const join = (path: string, key: string, inArray: boolean): string => (inArray ? `${path}[${key}]` : path ? `${path}.${key}` : key);

/**
 * The leaves where `actual` differs from `expected`, walked from jsondiffpatch's delta
 * (its format: `[new]` added, `[old, new]` changed, `[old, 0, 0]` removed, `_t: 'a'` arrays
 * with `_i` for removed items, `['', j, 3]` moves).
 */
export function leafDiffs(expected: unknown, actual: unknown): LeafDiff[] {
  const out: LeafDiff[] = [];
  const walk = (delta: Delta, path: string): void => {
    if (delta === undefined) return;
    if (Array.isArray(delta)) {
      if (delta.length === 1) out.push({ path, kind: 'added', actual: delta[0] });
      else if (delta.length === 2) out.push({ path, kind: 'changed', expected: delta[0], actual: delta[1] });
      else if (delta[2] === 0) out.push({ path, kind: 'removed', expected: delta[0] });
      else if (delta[2] === 3) out.push({ path, kind: 'changed', expected: `(moved to ${String(delta[1])})` });
      return;
    }
    if (typeof delta !== 'object' || delta === null) return;
    const record = delta as Record<string, unknown>;
    const inArray = record['_t'] === 'a';
    for (const [key, child] of Object.entries(record)) {
      if (key === '_t') continue;
      const index = inArray && key.startsWith('_') ? key.slice(1) : key;
      walk(child as Delta, join(path, index, inArray));
    }
  };
  walk(diff(expected, actual), '');
  return out;
}

/** `number` vs `string` when two values differ in type only — `50` against `"50"`. */
export function typeNote(expected: unknown, actual: unknown): string | undefined {
  const type = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (expected === undefined || actual === undefined || expected === null || actual === null) return undefined;
  const [a, b] = [type(expected), type(actual)];
  return a !== b ? `${a} expected, ${b} given` : undefined;
}
