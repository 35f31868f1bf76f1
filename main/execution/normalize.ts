import { clientField, clientProfile } from '../api/clients.js';
import qs from 'qs';
import type { CapturedRequest, JsonValue } from '../api/schemas.js';
import type { RawRequest } from './sandbox.js';

export type { CapturedRequest };

/** scoring.md §3: the default semantics, or the reference's (its mock.js) behind `--compat reference`. */
export type NormalizeMode = 'default' | 'reference';

export type Normalized = { readonly ok: true; readonly request: CapturedRequest } | { readonly ok: false; readonly message: string };

/** Bounds on what the host builds from a captured request, so no program can make a host step slow or deep. */
const LIMITS = { depth: 64, queryParameters: 10_000, urlChars: 65_536 };

class Refused extends Error {}

const isRecord = (v: unknown): v is Record<string, JsonValue> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Sets a key as an own property, so `__proto__` stays a key rather than replacing the prototype. */
function put(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Ordered pairs → object; a key given more than once becomes the array of its values, in order. */
function collect(pairs: Iterable<readonly [string, JsonValue]>): Record<string, JsonValue> {
  const seen = new Map<string, JsonValue[]>();
  for (const [key, value] of pairs) {
    const list = seen.get(key);
    if (list) list.push(value);
    else seen.set(key, [value]);
  }
  const out: Record<string, JsonValue> = {};
  for (const [key, list] of seen) put(out, key, list.length === 1 ? list[0]! : list);
  return out;
}

/** A copy with ordinary prototypes and own keys only, refused past the depth limit (iterative, so depth cannot overflow the stack). */
function plain(value: unknown): JsonValue {
  const root: { v: JsonValue } = { v: null };
  const stack: { from: unknown; put: (v: JsonValue) => void; depth: number }[] = [{ from: value, put: (v) => (root.v = v), depth: 0 }];
  while (stack.length > 0) {
    const { from, put: set, depth } = stack.pop()!;
    if (from === null || typeof from !== 'object') {
      set(typeof from === 'string' || typeof from === 'boolean' || (typeof from === 'number' && Number.isFinite(from)) ? from : null);
      continue;
    }
    if (depth >= LIMITS.depth) throw new Refused(`the request is nested deeper than ${LIMITS.depth} levels`);
    if (Array.isArray(from)) {
      const out: JsonValue[] = new Array<JsonValue>(from.length).fill(null);
      set(out);
      from.forEach((item: unknown, i) => stack.push({ from: item, put: (v) => (out[i] = v), depth: depth + 1 }));
    } else {
      const out: Record<string, JsonValue> = {};
      set(out);
      for (const key of Object.keys(from)) stack.push({ from: (from as Record<string, unknown>)[key], put: (v) => put(out, key, v), depth: depth + 1 });
    }
  }
  return root.v;
}

function decodeOnce(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `application/x-www-form-urlencoded` text → object, bracket notation rebuilt (`a[b]=1`, `a[]=x`, `a[0]=x`), `+` a space. */
function decodeForm(text: string, mode: NormalizeMode): JsonValue {
  if (mode === 'reference') return qs.parse(text, { depth: 10, arrayLimit: 1000, parameterLimit: 10_000, allowDots: false }) as JsonValue;
  return plain(qs.parse(text, { depth: 10, arrayLimit: 1000, parameterLimit: 10_000, allowDots: false, plainObjects: true, allowPrototypes: true }));
}

function parseText(value: string, mode: NormalizeMode): JsonValue {
  const text = value.trim();
  if (text === '' || text === 'null') return {};
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      // Depth-checked in both modes: a 100k-deep body would overflow the comparison's stack.
      return plain(JSON.parse(text));
    } catch (e) {
      if (e instanceof Refused) throw e;
      if (mode === 'reference') return value;
    }
  }
  // Text that is not JSON is read as a form, whatever its first character: "[object Object]" (a
  // plain object given as a fetch body, or that Axios data string) is the key "object Object",
  // an argument the endpoint does not define, as any other non-JSON text is (scoring.md §2).
  return decodeForm(value, mode);
}

function normalizeBody(body: RawRequest['body'], mode: NormalizeMode): JsonValue | undefined {
  switch (body.kind) {
    case 'none':
      return undefined;
    case 'json':
    case 'object':
      if (body.value === null || body.value === undefined) return {};
      // What a custom transformRequest left unserialised never reaches the wire; the reference scored it as JSON.
      if (mode === 'default' && body.kind === 'object') throw new Refused('the body is not text, form data or a Blob (a custom transformRequest left it unserialised); the transport would refuse it');
      return mode === 'reference' ? (body.value as JsonValue) : plain(body.value);
    case 'form':
      return mode === 'reference' ? Object.fromEntries(body.entries.map(([k, v]) => [k, v])) : collect(body.entries.map(([k, v]) => [k, v] as const));
    case 'text':
      return parseText(body.value, mode);
  }
}

function headersOf(raw: RawRequest, mode: NormalizeMode): Record<string, JsonValue> {
  const headers: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(raw.headers ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (mode === 'reference') headers[k] = v as JsonValue;
    else put(headers, k, plain(v));
  }
  return headers;
}

/** An HTTP token (RFC 9110), what Node's http accepts as a header name. */
const TOKEN = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
/** What Node's http refuses in a header value: control characters but TAB (CR, LF and NUL among them) and anything past U+00FF. */
const INVALID_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/** A JSON value as JavaScript's String() writes it, which is what Node does to a header value. */
function asText(value: JsonValue): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((v) => (v === null ? '' : asText(v))).join(',');
  if (value !== null && typeof value === 'object') return '[object Object]';
  return String(value);
}

/**
 * The headers as Node's http sends them (default mode): a name that is not a token, or a value
 * with CR, LF, NUL or another character Node refuses, makes the whole request one the transport
 * refuses, whether or not that header is counted; an array is sent as one line per value, which
 * the server reads as their `, `-joined list (`Cookie` values joined by `; `), a one-element array
 * as its value and an empty one not at all.
 */
function sentHeaders(headers: Record<string, JsonValue>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw new Refused(`the header name ${JSON.stringify(name.slice(0, 100))} is not an HTTP token; Node's http refuses the request`);
    const values = Array.isArray(value) ? value.map((v) => (v === null ? 'null' : asText(v))) : [asText(value)];
    for (const v of values) {
      if (INVALID_VALUE_CHAR.test(v)) throw new Refused(`the header ${JSON.stringify(name.slice(0, 100))} has a character HTTP does not allow in a value (CR, LF, NUL or another control character); Node's http refuses the request`);
    }
    if (values.length === 0) continue;
    put(out, name, values.join(name.toLowerCase() === 'cookie' ? '; ' : ', '));
  }
  return out;
}

/** Basic credentials as Node's http sends them: `Authorization: Basic <base64 of the UTF-8 bytes>`, replacing any Authorization header (Axios deletes it first). */
function withBasicAuth(headers: Record<string, JsonValue>, credentials: string): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() !== 'authorization') put(out, name, value);
  put(out, 'Authorization', `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`);
  return out;
}

/** The reference's mock.js: decode the whole URL once, split at the first `?`, the last of a repeated key wins. */
function normalizeReference(raw: RawRequest): CapturedRequest {
  const decoded = decodeOnce(raw.url);
  const q = decoded.indexOf('?');
  const url = q < 0 ? decoded : decoded.slice(0, q);
  const given = raw.paramPairs ? Object.fromEntries(raw.paramPairs) : raw.params;
  const params: Record<string, JsonValue> = isRecord(given) ? { ...given } : {};
  if (q >= 0) {
    for (const pair of decoded.slice(q + 1).split('&')) {
      if (!pair) continue;
      const eq = pair.indexOf('=');
      if (eq < 0) params[pair] = true;
      else params[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
  }
  const data = normalizeBody(raw.body, 'reference');
  return { method: raw.method.toLowerCase(), url, headers: headersOf(raw, 'reference'), params, ...(data !== undefined ? { data } : {}) };
}

/** `application/x-www-form-urlencoded` pairs, in order (`+` a space), as a server reads a query a URLSearchParams wrote. */
function formPairs(text: string): [string, JsonValue][] {
  const pairs: [string, JsonValue][] = [];
  for (const [k, v] of new URLSearchParams(text)) {
    if (pairs.length >= LIMITS.queryParameters) throw new Refused(`the request has more than ${LIMITS.queryParameters} query parameters`);
    pairs.push([k, v]);
  }
  return pairs;
}

/** Within a decoded segment, the characters that would change the URL's structure stay escaped (so a path parameter is decoded exactly once). */
const escapeStructure = (segment: string): string => segment.replace(/[%/?#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** scoring.md §3 (default): where Axios really sends the request, parsed as a WHATWG URL. */
function normalizeDefault(raw: RawRequest): CapturedRequest {
  const profile = clientProfile(raw.client);
  const target = raw.sentUrl ?? raw.fullPath ?? raw.url;
  if (target.length > LIMITS.urlChars) throw new Refused(`the URL is longer than ${LIMITS.urlChars} characters`);
  let parsed: URL;
  try {
    parsed = new URL(target);
  } catch {
    throw new Refused(`${profile.label} would send the request to "${target.slice(0, 200)}", which is not an absolute URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Refused(`${profile.label} sends only http and https requests, not ${parsed.protocol}`);
  if (profile.refusesUrlCredentials && (parsed.username !== '' || parsed.password !== '')) throw new Refused(`${profile.label} refuses a URL that includes credentials`);
  const path = parsed.pathname
    .split('/')
    .map((segment) => escapeStructure(decodeOnce(segment)))
    .join('/');
  const query: [string, JsonValue][] = [];
  const search = parsed.search.slice(1);
  if (search !== '') {
    const parts = search.split('&');
    if (parts.length > LIMITS.queryParameters) throw new Refused(`the URL has more than ${LIMITS.queryParameters} query parameters`);
    for (const part of parts) {
      if (!part) continue;
      const eq = part.indexOf('=');
      query.push(eq < 0 ? [decodeOnce(part), true] : [decodeOnce(part.slice(0, eq)), decodeOnce(part.slice(eq + 1))]);
    }
  }
  // With a custom paramsSerializer, the query it produced is what is sent; a URLSearchParams is
  // sent as its toString() answered (read as a form query, `+` a space); else the typed params as written.
  const given: [string, JsonValue][] = [];
  if (raw.sentUrl === undefined) {
    if (raw.paramsText !== undefined) given.push(...formPairs(raw.paramsText.split('#')[0]!));
    else if (raw.paramPairs) given.push(...raw.paramPairs.map(([k, v]) => [k, v] as [string, JsonValue]));
    else if (isRecord(raw.params)) for (const key of Object.keys(raw.params)) given.push([key, plain(raw.params[key])]);
  }
  if (query.length + given.length > LIMITS.queryParameters) throw new Refused(`the request has more than ${LIMITS.queryParameters} query parameters`);
  const params = collect([...query, ...given]);
  const data = normalizeBody(raw.body, 'default');
  // Node's http adapter: the auth option's credentials, else the URL's own (as written there, percent-encoded).
  const credentials = raw.auth ?? (parsed.username ? `${parsed.username}:${parsed.password}` : undefined);
  const sent = sentHeaders(headersOf(raw, 'default'));
  const headers = credentials !== undefined ? withBasicAuth(sent, credentials) : sent;
  return {
    ...clientField(raw.client),
    method: raw.method.toLowerCase(),
    url: `${parsed.protocol}//${parsed.host}${path}`,
    headers,
    params,
    ...(data !== undefined ? { data } : {}),
  };
}

/**
 * scoring.md §3: the captured request as it would be sent, in the default mode or the reference's.
 * Never throws: a request the transport would refuse, or one past the host's limits, is a message.
 */
export function normalizeCaptured(raw: RawRequest, mode: NormalizeMode = 'default'): Normalized {
  if (raw.refused !== undefined) return { ok: false, message: raw.refused };
  try {
    return { ok: true, request: mode === 'reference' ? normalizeReference(raw) : normalizeDefault(raw) };
  } catch (e) {
    return { ok: false, message: e instanceof Refused ? e.message : `the request could not be normalised: ${e instanceof Error ? e.message.slice(0, 200) : 'unknown error'}` };
  }
}

/** normalizeCaptured for callers that expect a request; a refused one throws its message. */
export function normalizeRequest(raw: RawRequest, mode: unknown = 'default'): CapturedRequest {
  const result = normalizeCaptured(raw, mode === 'reference' ? 'reference' : 'default');
  if (!result.ok) throw new Error(result.message);
  return result.request;
}
