import type { FileInput } from '../api/contract.js';
import { fail, ok, type Result } from '../api/result.js';
import { convertedText } from './convert.js';
import { parseSpecText } from './parse.js';
import { HTTP_METHODS } from './model.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Where a spec records the base URL an import gave it (`--server`), beside the servers it wrote from it. */
export const GIVEN_SERVER = 'x-wapii-server';

/**
 * A base URL a user gives for a spec without one, checked: http or https, no query or fragment;
 * a trailing slash is dropped. One line on anything else.
 */
export function checkServerUrl(url: string): Result<string> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail('bad_input', `server "${url}" is not a URL; give the API's base URL, e.g. https://api.example.com/v1`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return fail('bad_input', `server "${url}" must be an http or https URL, not ${parsed.protocol.replace(/:$/, '')}`);
  if (parsed.search !== '' || parsed.hash !== '' || parsed.username !== '' || parsed.password !== '') return fail('bad_input', `server "${url}" must be a base URL without a query, fragment or credentials`);
  return ok(`${parsed.origin}${parsed.pathname}`.replace(/\/+$/, ''));
}

const isAbsolute = (url: unknown): boolean => typeof url === 'string' && /^[a-z][a-z0-9+.-]*:\/\//i.test(url);

/** Every `servers` list of the document (its own, each path's, each operation's). */
function serverLists(doc: Obj): unknown[][] {
  const lists: unknown[][] = [];
  if (Array.isArray(doc['servers'])) lists.push(doc['servers']);
  for (const item of Object.values(isObj(doc['paths']) ? doc['paths'] : {})) {
    if (!isObj(item)) continue;
    if (Array.isArray(item['servers'])) lists.push(item['servers']);
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (isObj(op) && Array.isArray(op['servers'])) lists.push(op['servers']);
    }
  }
  return lists;
}

/**
 * A spec file with the base URL given at import (`--server`) where it declares no server a request
 * could go to (Kubernetes' description has no `host`; a converted Swagger 2.0 file without one has
 * only a relative `/basePath`): a relative server URL is read against it, as OpenAPI reads it
 * against where the document is served, and a document without servers gets it as its only one.
 * The stored document then carries it (and names it under `x-wapii-server`), so the scorer, the
 * constraints and the prompt read it as any server. A spec with an absolute server is unchanged:
 * `applied` says which happened.
 */
export function withServer(file: FileInput, base: string): { readonly file: FileInput; readonly applied: boolean } {
  const parsed = parseSpecText(file.content, file.filename);
  if (!parsed.ok) return { file, applied: false };
  const doc = parsed.value;
  const lists = serverLists(doc);
  const urls = lists.flat().map((s) => (isObj(s) ? s['url'] : undefined));
  if (urls.some(isAbsolute)) return { file, applied: false };
  for (const list of lists) {
    for (const server of list) {
      if (!isObj(server) || typeof server['url'] !== 'string') continue;
      const relative = server['url'].replace(/^\/+/, '');
      server['url'] = relative === '' ? base : `${base}/${relative}`;
    }
  }
  if (!Array.isArray(doc['servers']) || doc['servers'].length === 0) doc['servers'] = [{ url: base }];
  doc[GIVEN_SERVER] = base;
  return { file: { filename: file.filename, content: convertedText(doc, file.filename) }, applied: true };
}
