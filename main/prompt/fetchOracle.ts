import type { JsonValue, RequestConfig } from '../api/schemas.js';
import type { CompletionMode } from '../api/setup.js';
import { jsLiteral, type CallStyle } from './oracle.js';
import { setupFor, type SetupSample } from './setup.js';
import { stringLiteral, type Quote } from './starter.js';

const BODY_METHODS = new Set(['put', 'post', 'patch']);

/**
 * The expected params as the query of a URL (fetch has no `params`): each value as text, an array
 * as its key repeated, percent-encoded. Empty when there are none.
 */
export function queryOf(params: Readonly<Record<string, JsonValue>> | undefined): string {
  const parts: string[] = [];
  const text = (v: JsonValue): string => (typeof v === 'string' ? v : v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v));
  for (const [key, value] of Object.entries(params ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(text(v))}`);
  }
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

/**
 * The members of the init object after `method`: the expected headers (Accept is implicit, and a
 * multipart Content-Type is left to fetch, which adds the boundary), and the body as its
 * Content-Type says: JSON text, a URLSearchParams for a form, a FormData for multipart.
 */
export function initMembers(config: RequestConfig, quote: Quote): string[] {
  const contentType = Object.entries(config.headers ?? {}).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  const multipart = typeof contentType === 'string' && contentType.startsWith('multipart/form-data');
  const form = typeof contentType === 'string' && contentType.startsWith('application/x-www-form-urlencoded');
  const headers = Object.fromEntries(Object.entries(config.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'accept' && !(multipart && k.toLowerCase() === 'content-type')));
  const members: string[] = [];
  if (Object.keys(headers).length > 0) members.push(`headers: ${jsLiteral(headers, quote, '  ')}`);
  if (BODY_METHODS.has(config.method.toLowerCase()) && config.data !== undefined) {
    const data = jsLiteral(config.data, quote, '  ');
    members.push(
      `body: ${
        multipart ? `Object.entries(${data}).reduce((form, [key, value]) => (form.append(key, value), form), new FormData())` : form ? `new URLSearchParams(${data})` : `JSON.stringify(${data})`
      }`,
    );
  }
  return members;
}

/**
 * The ground-truth program of a sample in fetch form (issue 25 item 5): the fetch setup's starter
 * followed by the completion a perfect model would write, `fetch(url, {method, headers, body})`,
 * the query written into the URL. The starter decides what is left to write: everything after
 * `fetch(` (full completion), or the query and the rest of the call after the URL's open string
 * (argument completion).
 */
export function fetchOracleProgram(sample: SetupSample & { config: RequestConfig }, mode: CompletionMode, quote: Quote = 'single', style: CallStyle = 'then'): { starter: string; completion: string; program: string } {
  const { config } = sample;
  const setup = setupFor(sample, mode, { client: 'fetch', quote, awaitStyle: style === 'await' });
  const starter = setup.starter;
  const query = queryOf(config.params);
  const method = `method: ${stringLiteral(config.method.toUpperCase(), quote === 'backtick' ? 'single' : quote)}`;
  const init = (members: string[]): string => `{\n${members.map((m) => `  ${m}`).join(',\n')}\n}`;
  let call: string;
  if (starter.endsWith('fetch(')) call = `${stringLiteral(config.url + query, quote)}, ${init([method, ...initMembers(config, quote)])})`;
  else if (/method: [^\n]*,$/.test(starter)) {
    // A starter that already wrote the URL and the method: the remaining members only (its URL has no room for a query).
    const rest = initMembers(config, quote);
    call = `${rest.map((m) => `\n  ${m},`).join('')}\n})`;
  } else call = `${stringLiteral(query, quote).slice(1)}, ${init([method, ...initMembers(config, quote)])})`;
  const tail = style === 'then' ? '\n  .then((response) => response.json())\n  .then((data) => console.log(data))\n  .catch((error) => console.error(error));\n' : ';\nconsole.log(await response.json());\n';
  const completion = call + tail;
  return { starter, completion, program: starter + completion };
}
