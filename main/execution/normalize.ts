import qs from 'qs';
import type { CapturedRequest, JsonValue } from '../api/schemas.js';
import type { RawRequest } from './sandbox.js';

export type { CapturedRequest };

const isRecord = (v: unknown): v is Record<string, JsonValue> => typeof v === 'object' && v !== null && !Array.isArray(v);

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `application/x-www-form-urlencoded` text → object, bracket notation rebuilt (`a[b]=1`, `a[]=x`, `a[0]=x`), `+` a space. */
function decodeForm(text: string): JsonValue {
  return qs.parse(text, { depth: 10, arrayLimit: 1000, parameterLimit: 10_000, allowDots: false }) as JsonValue;
}

function normalizeBody(body: RawRequest['body']): JsonValue | undefined {
  switch (body.kind) {
    case 'none':
      return undefined;
    case 'json':
      return body.value === null || body.value === undefined ? {} : (body.value as JsonValue);
    case 'form':
      return Object.fromEntries(body.entries.map(([k, v]) => [k, v]));
    case 'text': {
      const text = body.value.trim();
      if (text === '' || text === 'null') return {};
      if (text.startsWith('{') || text.startsWith('[')) {
        try {
          return JSON.parse(text) as JsonValue;
        } catch {
          return body.value;
        }
      }
      return decodeForm(body.value);
    }
  }
}

/**
 * scoring.md §3: the URL is decoded and its query string moved into `params` (values stay
 * strings; a key without `=` becomes `true`); a JSON body is parsed, an empty one is `{}`, a
 * form body decoded; headers are kept as Axios would send them.
 */
export function normalizeRequest(raw: RawRequest): CapturedRequest {
  const decoded = decode(raw.url);
  const q = decoded.indexOf('?');
  const url = q < 0 ? decoded : decoded.slice(0, q);
  const params: Record<string, JsonValue> = isRecord(raw.params) ? { ...raw.params } : {};
  if (q >= 0) {
    for (const pair of decoded.slice(q + 1).split('&')) {
      if (!pair) continue;
      const eq = pair.indexOf('=');
      if (eq < 0) params[pair] = true;
      else params[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  const headers: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(raw.headers ?? {})) if (v !== undefined && v !== null && v !== false) headers[k] = v as JsonValue;
  const data = normalizeBody(raw.body);
  return { method: raw.method.toLowerCase(), url, headers, params, ...(data !== undefined ? { data } : {}) };
}
