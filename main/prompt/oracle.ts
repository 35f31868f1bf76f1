import type { JsonValue, RequestConfig, SampleFields } from '../api/schemas.js';
import type { CompletionMode } from '../api/setup.js';
import { setupFor, setupSampleOf, type SetupSample } from './setup.js';
import { stringLiteral, type Quote } from './starter.js';

export type CallStyle = 'then' | 'await';
const BODY_METHODS = new Set(['put', 'post', 'patch']);
/** A key JavaScript writes bare (`a.b`, `{ b: 1 }`). */
export const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A JSON value as a JavaScript literal, strings in the given quote style, keys bare where they can be. */
export function jsLiteral(value: JsonValue, quote: Quote, indent = ''): string {
  if (typeof value === 'string') return stringLiteral(value, quote);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const inner = indent + '  ';
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => inner + jsLiteral(v, quote, inner)).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  // A template literal cannot be a property name, so keys fall back to single quotes there.
  const key = (k: string): string => (IDENTIFIER.test(k) ? k : stringLiteral(k, quote === 'backtick' ? 'single' : quote));
  return `{\n${entries.map(([k, v]) => `${inner}${key(k)}: ${jsLiteral(v, quote, inner)}`).join(',\n')}\n${indent}}`;
}

/** The ground-truth invocation's arguments after the URL: `[data, ]config`. */
export function argumentsAfterUrl(config: RequestConfig, quote: Quote, inUrl: ReadonlySet<string> = new Set()): string {
  const method = config.method.toLowerCase();
  const options: Record<string, JsonValue> = {};
  // A query the starter's URL already carries (Etherscan's `/api?module=...&action=...`) is sent once, from there.
  const params = Object.fromEntries(Object.entries(config.params ?? {}).filter(([k]) => !inUrl.has(k)));
  // Axios sends `Accept` on its own; a model has no reason to write it (and the constraints do not permit it).
  const headers = Object.fromEntries(Object.entries(config.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'accept'));
  if (Object.keys(headers).length > 0) options['headers'] = headers;
  if (Object.keys(params).length > 0) options['params'] = params;
  const parts: string[] = [];
  if (BODY_METHODS.has(method)) parts.push(jsLiteral(config.data ?? {}, quote));
  else if (config.data !== undefined) options['data'] = config.data;
  if (Object.keys(options).length > 0) parts.push(jsLiteral(options, quote));
  return parts.join(', ');
}

/** The query keys a URL carries (`https://x/api?module=a&action=b` -> module, action). */
function queryKeys(url: string): Set<string> {
  const at = url.indexOf('?');
  return new Set(at < 0 ? [] : [...new URLSearchParams(url.slice(at + 1)).keys()]);
}

/**
 * The ground-truth program of a sample: its setup's starter code (the sample's own starter with
 * the task filled in, or the benchmark's fixed one) followed by the completion a perfect model
 * would write, in the given quote and call style.
 */
export function oracleProgram(stored: SetupSample & { config: RequestConfig; fields?: SampleFields | undefined }, mode: CompletionMode, quote: Quote = 'single', style: CallStyle = 'then'): { starter: string; completion: string; program: string } {
  // A stored sample carries its real-world fields in `fields`.
  const sample: SetupSample = stored.fields ? { ...stored, ...setupSampleOf(stored) } : stored;
  const { config } = stored;
  const setup = setupFor(sample, mode, { quote, awaitStyle: style === 'await' });
  const starter = setup.starter;
  const own = setup.origin === 'sample';
  // The URL the call sends: a sample's own starter in argument completion carries its `template_url` (or the expected URL).
  const url = own && mode === 'argument' ? (sample.template_url ?? config.url) : config.url;
  const args = argumentsAfterUrl(config, quote, queryKeys(url));
  // The fixed starter's argument completion ends after `<url>,`; a sample's own ends after `<url>` (upstream adds no comma).
  const afterUrl = own ? (args ? `, ${args})` : ')') : `${args ? ` ${args}` : ''})`;
  const call = mode === 'full' ? `${config.method.toLowerCase()}(${stringLiteral(config.url, quote)}${args ? `, ${args}` : ''})` : afterUrl;
  const tail = style === 'then' ? '\n  .then((response) => console.log(response.data))\n  .catch((error) => console.error(error));\n' : ';\nconsole.log(response.data);\n';
  const completion = call + tail;
  return { starter, completion, program: starter + completion };
}
