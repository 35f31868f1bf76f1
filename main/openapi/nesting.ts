import type { CST } from 'yaml';

/** How deep a spec or dataset may nest its arrays and objects: real ones stay under 40 levels. */
export const MAX_NESTING = 128;

/** A JSON pointer segment (`/` and `~` escaped, RFC 6901). */
const segment = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** What in a parsed document cannot be stored as it is, and where (a JSON pointer). */
export interface UnsafeValue {
  readonly kind: 'too deep' | '__proto__';
  readonly path: string;
}

/**
 * The first value nested deeper than `limit`, or the first `__proto__` key, in a parsed JSON or
 * YAML document — walked without recursion, because what it guards are the stages that recurse
 * (zod, JSON.stringify, the $ref resolver) and would overflow the stack. A `__proto__` key is an
 * own property after JSON.parse, but zod's records, `obj[key] = value` and most copies drop it or
 * turn it into the prototype, so it is refused rather than silently lost.
 */
export function valueProblem(value: unknown, limit = MAX_NESTING): UnsafeValue | undefined {
  // Paths are only spelled out for the value that has a problem: building one per value made
  // this walk ten times slower than JSON.parse on WAPIIBench's dataset.
  interface Frame {
    readonly value: object;
    readonly depth: number;
    readonly parent: Frame | undefined;
    readonly key: string;
  }
  const pathOf = (frame: Frame | undefined): string => {
    const keys: string[] = [];
    for (let f = frame; f?.parent; f = f.parent) keys.push(segment(f.key));
    return keys.reverse().map((k) => `/${k}`).join('');
  };
  if (typeof value !== 'object' || value === null) return undefined;
  const stack: Frame[] = [{ value, depth: 0, parent: undefined, key: '' }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    if (frame.depth >= limit) return { kind: 'too deep', path: pathOf(frame) };
    if (Object.prototype.hasOwnProperty.call(frame.value, '__proto__')) return { kind: '__proto__', path: `${pathOf(frame)}/__proto__` };
    const keys = Object.keys(frame.value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      const child = (frame.value as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: frame.depth + 1, parent: frame, key });
    }
  }
  return undefined;
}

/** `/0/config/data/a/a/a/...` shortened to its first segments, for a one-line message. */
export function shortPath(path: string, segments = 6): string {
  const parts = path.split('/').slice(1);
  return parts.length <= segments ? path : `/${parts.slice(0, segments).join('/')}/…`;
}

/**
 * The offset of the first node nested deeper than `limit` in a YAML document's syntax tree (the
 * yaml package's CST, built without recursion). Checked before the tree is composed: the
 * composer recurses, and where it runs out of stack V8 can abort the whole process (seen at 5,000
 * levels of `[`), which no try/catch survives.
 */
export function deepCstNode(tokens: readonly CST.Token[], limit = MAX_NESTING): number | undefined {
  const stack: { token: CST.Token; depth: number }[] = tokens.map((token) => ({ token, depth: 0 }));
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { token, depth } = item;
    if (depth > limit) return token.offset;
    if (token.type === 'document' && token.value) stack.push({ token: token.value, depth });
    if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      for (const entry of token.items) {
        if ('key' in entry && entry.key) stack.push({ token: entry.key, depth: depth + 1 });
        if (entry.value) stack.push({ token: entry.value, depth: depth + 1 });
      }
    }
  }
  return undefined;
}
