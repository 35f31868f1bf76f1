import { CLIENT_PROFILES, type HttpClient } from '../api/clients.js';
import type { JsonValue, RequestConfig, SampleStep } from '../api/schemas.js';
import { initMembers, queryOf } from './fetchOracle.js';
import { argumentsAfterUrl, IDENTIFIER, type CallStyle } from './oracle.js';
import { carriedSource, segmentHolding, valueAtPointer } from '../api/steps.js';
import { escapeRegExp } from '../openapi/index.js';
import { stringLiteral, taskComment, type Quote } from './starter.js';

/** A step as the oracle needs it: its request and the values it carries from earlier responses (scoring.md §7). */
export interface OracleStep {
  readonly config: RequestConfig;
  /** What the API answers it: a carried path parameter is found in the URL by the value held here. */
  readonly response?: SampleStep['response'] | undefined;
  /** `<location>.<key path>` → `<earlier step>:<JSON pointer into that step's response>`. */
  readonly carried?: Readonly<Record<string, string>> | undefined;
}

const marker = (i: number): string => `__wapii_carried_${i}__`;

/** How each client's ground truth writes a step: its call, reading an earlier response, and chaining. */
interface StepWriter {
  /** The expression for a part of step i's response (`status`, `headers`, `data`) at a path (`.channels[1].id`). */
  read(step: number, top: string, name: string, path: string): string;
  call(config: RequestConfig, quote: Quote): string;
  /** Step i awaited: the statements that leave its response readable. */
  awaited(call: string, step: number): string;
  /** Step i chained with then, `body` running once its response is readable. */
  chained(call: string, step: number, body: string): string;
  /** What the program logs at the end: the last response's body. */
  result(step: number): string;
}

const WRITERS: Record<HttpClient, StepWriter> = {
  axios: {
    read: (i, top, name, path) => (top === 'status' ? `r${i}.status` : top === 'headers' ? `r${i}.headers[${JSON.stringify(name)}]` : `r${i}.data${path}`),
    call: (config, quote) => {
      const args = argumentsAfterUrl(config, quote);
      return `axios.${config.method.toLowerCase()}(${stringLiteral(config.url, quote)}${args ? `, ${args}` : ''})`;
    },
    awaited: (call, i) => `  const r${i} = await ${call.replace(/\n/g, '\n  ')};`,
    chained: (call, i, body) => `${call}.then((r${i}) => ${body})`,
    result: (i) => `r${i}.data`,
  },
  fetch: {
    // fetch's body is read once, as JSON, into b<i>; its status and headers stay on the response.
    read: (i, top, name, path) => (top === 'status' ? `r${i}.status` : top === 'headers' ? `r${i}.headers.get(${JSON.stringify(name)})` : `b${i}${path}`),
    call: (config, quote) => {
      const members = [`method: ${stringLiteral(config.method.toUpperCase(), quote)}`, ...initMembers(config, quote)];
      return `fetch(${stringLiteral(config.url + queryOf(config.params), quote)}, {\n  ${members.join(',\n  ')},\n})`;
    },
    awaited: (call, i) => `  const r${i} = await ${call.replace(/\n/g, '\n  ')};\n  const b${i} = await r${i}.json();`,
    chained: (call, i, body) => `${call}\n  .then((r${i}) => r${i}.json().then((b${i}) => ${body}))`,
    result: (i) => `b${i}`,
  },
};

/** JavaScript that reads a carried value off the earlier response its pointer names. */
function readExpression(source: string, client: HttpClient): string {
  const { step, pointer } = carriedSource(source);
  const [top = '', ...rest] = pointer
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const path = rest.map((k) => (/^\d+$/.test(k) ? `[${k}]` : IDENTIFIER.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`)).join('');
  return WRITERS[client].read(step, top, rest.join('/'), path);
}

/**
 * The step's config with each carried value replaced by a marker string, and the markers'
 * expressions. A carried path parameter is the URL segment holding the value the earlier
 * response held there (`check` verifies the two agree).
 */
function marked(step: OracleStep, steps: readonly OracleStep[], client: HttpClient, first: number): { config: RequestConfig; expressions: Map<string, string>; raw: Set<string> } {
  const config = structuredClone(step.config) as RequestConfig;
  const expressions = new Map<string, string>();
  /** Markers of values the URL holds as they are (not percent-encoded): read into it as they are. */
  const raw = new Set<string>();
  let n = first;
  for (const [where, pointer] of Object.entries(step.carried ?? {})) {
    const mark = marker(n++);
    expressions.set(mark, readExpression(pointer, client));
    const [location, ...path] = where.split('.');
    if (location === 'path_params') {
      const source = carriedSource(pointer);
      const held = valueAtPointer(steps[source.step]?.response as JsonValue | undefined, source.pointer);
      if (held === undefined || held === null || typeof held === 'object') continue;
      const at = segmentHolding(config.url, String(held));
      if (!at) continue;
      config.url = config.url.slice(0, at.start) + mark + config.url.slice(at.end);
      if (!at.encoded) raw.add(mark);
      continue;
    }
    let holder = (location === 'data' ? config.data : location === 'params' ? config.params : location === 'headers' ? config.headers : undefined) as Record<string, JsonValue> | undefined;
    for (const key of path.slice(0, -1)) holder = holder && Object.hasOwn(holder, key) ? (holder[key] as Record<string, JsonValue> | undefined) : undefined;
    const last = path.at(-1);
    if (holder && last !== undefined && Object.hasOwn(holder, last)) holder[last] = mark;
  }
  return { config, expressions, raw };
}

/**
 * `text` with each marker literal (in any quote) replaced by its expression. A string that holds
 * markers among other text (a URL, a query) becomes one template literal with each value read into
 * it, percent-encoded unless the URL held it as it is; all its markers at once, so a second value
 * in the same string never escapes the first.
 */
function substitute(text: string, expressions: ReadonlyMap<string, string>, quote: Quote, raw: ReadonlySet<string> = new Set()): string {
  let out = text;
  for (const [mark, expression] of expressions) out = out.split(stringLiteral(mark, quote)).join(expression);
  const left = [...expressions.keys()].filter((mark) => out.includes(mark));
  if (left.length === 0) return out;
  const split = new RegExp(`(${left.map(escapeRegExp).join('|')})`);
  // String literals on one line (a comment's apostrophe cannot pair with a string on the next line).
  return out.replace(/(['"`])((?:(?!\1)[^\\\n]|\\.)*)\1/g, (all, q: string, body: string) => {
    if (!left.some((mark) => body.includes(mark))) return all;
    const parts = body.split(split).map((part) => {
      const expression = expressions.get(part);
      if (expression !== undefined) return raw.has(part) ? `\${${expression}}` : `\${encodeURIComponent(${expression})}`;
      return q === '`' ? part : part.replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
    });
    return `\`${parts.join('')}\``;
  });
}

/**
 * The ground-truth program of a multi-step sample (scoring.md §7): each step's request in order,
 * each awaited before the next, every carried value read from the earlier response it points
 * into (never copied from the stub), in the given client, quote and call style.
 */
export function stepsOracleProgram(sample: { readonly task: string; readonly steps: readonly OracleStep[] }, client: HttpClient, quote: Quote = 'single', style: CallStyle = 'then'): string {
  const writer = WRITERS[client];
  let count = 0;
  const calls = sample.steps.map((step) => {
    const { config, expressions, raw } = marked(step, sample.steps, client, count);
    count += expressions.size;
    return substitute(writer.call(config, quote), expressions, quote, raw);
  });
  const head = `${taskComment(sample.task)}\n${CLIENT_PROFILES[client].importLine}\n`;
  const last = sample.steps.length - 1;
  if (style === 'await') return `${head}(async () => {\n${calls.map((call, i) => writer.awaited(call, i)).join('\n')}\n  console.log(${writer.result(last)});\n})();\n`;
  // then: nested, so every earlier response stays in scope for the calls after it.
  let body = `console.log(${writer.result(last)})`;
  for (let i = last; i >= 0; i--) body = writer.chained(calls[i]!, i, body);
  return `${head}${body}\n  .catch((error) => console.error(error));\n`;
}
