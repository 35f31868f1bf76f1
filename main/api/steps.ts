import { RealWorldFieldsSchema, type JsonValue, type SampleFields, type SampleStep } from './schemas.js';

/**
 * Reading a multi-step sample's carried values (scoring.md §7), for every stage that does: the
 * checks, the scorer and the oracle. A carried value is named `<location>.<key path>` in a step's
 * request and points `<earlier step>:<JSON pointer into that step's response>`.
 */

/** The value an RFC 6901 JSON pointer names in `root` (`''` is the root), or undefined. */
export function valueAtPointer(root: JsonValue | undefined, pointer: string): JsonValue | undefined {
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = /^\d+$/.test(key) ? node[Number(key)] : undefined;
    else if (node !== null && typeof node === 'object' && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

/** `1:/data/channels/0/id` → the earlier step and the pointer into its response. */
export function carriedSource(source: string): { readonly step: number; readonly pointer: string } {
  const colon = source.indexOf(':');
  return { step: Number(source.slice(0, colon)), pointer: source.slice(colon + 1) };
}

/**
 * What a request sends at `data.<path>`, `params.<path>` or `headers.<path>`, a number in the path
 * indexing an array (`data.requests.0.deleteSheet.sheetId`); a path parameter is in its URL: not
 * read here.
 */
export function requestValueAt(request: { readonly data?: JsonValue | undefined; readonly params?: Readonly<Record<string, JsonValue>> | undefined; readonly headers?: Readonly<Record<string, JsonValue>> | undefined }, where: string): JsonValue | undefined {
  const [location, ...path] = where.split('.');
  let node: JsonValue | undefined = location === 'data' ? request.data : location === 'params' ? request.params : location === 'headers' ? request.headers : undefined;
  for (const key of path) {
    if (Array.isArray(node)) node = /^\d+$/.test(key) ? node[Number(key)] : undefined;
    else node = node !== null && typeof node === 'object' && Object.hasOwn(node, key) ? node[key] : undefined;
  }
  return node;
}

/**
 * Where a carried path value sits in a URL's path: a segment that is the value, or holds it before
 * a `:verb` suffix (Google's custom methods, `{sheetId}:copyTo`), written percent-encoded or as it
 * is (`A1:B2`). Offsets into `url`, and whether it was written encoded; undefined where no segment
 * holds it.
 */
export function segmentHolding(url: string, value: string): { readonly start: number; readonly end: number; readonly encoded: boolean } | undefined {
  const path = url.split('?')[0]!;
  const origin = /^[a-z][\w+.-]*:\/\/[^/]*/i.exec(path)?.[0].length ?? 0;
  let position = origin;
  for (const segment of path.slice(origin).split('/')) {
    for (const [written, encoded] of [[encodeURIComponent(value), true], [value, false]] as const) {
      if (written !== '' && (segment === written || segment.startsWith(`${written}:`))) return { start: position, end: position + written.length, encoded };
    }
    position += segment.length + 1;
  }
  return undefined;
}

/** A multi-step sample's steps, where its fields hold a valid list of two or more; undefined for a single request (or steps that do not parse). */
export function stepsOf(fields: SampleFields | undefined): SampleStep[] | undefined {
  const parsed = RealWorldFieldsSchema.safeParse(fields ?? {});
  return parsed.success ? parsed.data.steps : undefined;
}
