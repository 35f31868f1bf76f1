import { parse } from 'acorn-loose';
import { RealWorldFieldsSchema, type JsonValue, type RequestConfig, type SampleFields } from '../api/schemas.js';
import type { CompletionMode, HttpClient, PromptStyle, Setup } from '../api/setup.js';
import { CLIENT_PROFILES, DEFAULT_CLIENT } from '../api/clients.js';
import { stringLiteral, taskComment, type Quote } from './starter.js';

/** A sample as a setup needs it: the task and expected request, and a real-world sample's own starter. */
export interface SetupSample {
  readonly task: string;
  readonly config: Pick<RequestConfig, 'method' | 'url'>;
  /** Code from a real repository with a `// {task}` comment where the task goes (real-world dataset). */
  readonly starter_code?: string;
  /** Variables in scope at the call and their JSON values (real-world dataset). */
  readonly definitions?: Readonly<Record<string, JsonValue>>;
  /** The URL with `${name}` references to the definitions, used by argument completion's starter. */
  readonly template_url?: string;
  /** A multi-step sample's number of steps (scoring.md §7); absent: one request. */
  readonly steps?: number;
}

/**
 * A stored sample as a setup reads it: the real-world fields out of its `fields` (a field of the
 * wrong type, which the import refuses, is left out rather than trusted).
 */
export function setupSampleOf(sample: { readonly task: string; readonly config: Pick<RequestConfig, 'method' | 'url'>; readonly fields?: SampleFields | undefined }): SetupSample {
  const known = RealWorldFieldsSchema.safeParse(sample.fields ?? {});
  const rw = known.success ? known.data : {};
  return {
    task: sample.task,
    config: sample.config,
    ...(rw.starter_code !== undefined ? { starter_code: rw.starter_code } : {}),
    ...(rw.definitions !== undefined ? { definitions: rw.definitions } : {}),
    ...(rw.template_url !== undefined ? { template_url: rw.template_url } : {}),
    ...(rw.steps !== undefined ? { steps: rw.steps.length } : {}),
  };
}

export interface SetupOptions {
  readonly style?: PromptStyle;
  readonly client?: HttpClient;
  /** Quotes of the URL in the fixed starter of argument completion (the oracle writes all three). */
  readonly quote?: Quote;
  /** The fixed starter's `const response = await axios.` form (the oracle's await style). */
  readonly awaitStyle?: boolean;
}

/** Modules the sandbox's `require` offers (execution/prelude.ts); other imports of a starter cannot run there. */
const SANDBOX_MODULES: ReadonlySet<string> = new Set(['axios', 'form-data', 'url', 'querystring', 'node:url', 'node:querystring']);
/**
 * How each client's call is opened where the model takes over in argument completion: Axios after
 * `axios.<method>(<url>,`; fetch after `fetch('<url>` with the string left open (helper E, issue 25
 * item 5: fetch has no `params`, so a query is written into the URL, and the method and the rest of
 * the init are the model's). A sample's own starter opens fetch with its method given.
 */
const ARGUMENT_CALL: Record<HttpClient, { fixed: (config: Pick<RequestConfig, 'method' | 'url'>, quote: Quote) => string; own: (method: string, url: string) => string }> = {
  axios: { fixed: (config, quote) => `axios.${config.method.toLowerCase()}(${stringLiteral(config.url, quote)},`, own: (method, url) => `axios.${method.toLowerCase()}(${url}` },
  fetch: { fixed: (config, quote) => `fetch(${stringLiteral(config.url, quote).slice(0, -1)}`, own: (method, url) => `fetch(${url}, {\n  method: '${method.toUpperCase()}',` },
};

/** The setup of one sample: its own starter where it has one (real-world dataset), else the benchmark's fixed starter. */
export function setupFor(sample: SetupSample, mode: CompletionMode, options: SetupOptions = {}): Setup {
  const style = options.style ?? 'completion';
  const client = options.client ?? DEFAULT_CLIENT;
  if (sample.steps !== undefined) return stepsSetup(sample, sample.steps, mode, style, client);
  if (sample.starter_code !== undefined) return sampleSetup(sample, sample.starter_code, mode, style, client);
  const starter = fixedStarter(mode, sample.task, sample.config, options.quote ?? 'single', options.awaitStyle ?? false, client);
  const callStart = starter.lastIndexOf(CLIENT_PROFILES[client].opener);
  return { mode, style, client, origin: 'fixed', starter, callStart, definitions: {}, callPrelude: CLIENT_PROFILES[client].importLine };
}

/**
 * The benchmark's starter, as WAPIIBench writes it: the task as a comment, the Axios import, then
 * `axios.` (full completion) or `axios.<method>('<url>',` (argument completion). With `fetch`, the
 * global `fetch(` (full) or `fetch('<url>` with the string left open for a query (argument).
 */
export function fixedStarter(mode: CompletionMode, task: string, config: Pick<RequestConfig, 'method' | 'url'>, quote: Quote = 'single', awaitStyle = false, client: HttpClient = DEFAULT_CLIENT): string {
  const response = awaitStyle ? 'const response = await ' : '';
  const profile = CLIENT_PROFILES[client];
  return `${taskComment(task)}\n${profile.importLine}\n${response}${mode === 'full' ? profile.opener : ARGUMENT_CALL[client].fixed(config, quote)}`;
}

/**
 * A multi-step sample's setup (scoring.md §7): the model writes the whole program, every request
 * and the code between them, so no call is opened for it and the mode changes nothing (the run
 * rules refuse argument completion for such samples). The fixed starter opens an async function,
 * where the calls can be awaited in order, and for a base model the first call in it, as the
 * benchmark's full setup does; the model's text ends at the line that closes the function, and
 * the runner closes it where the program needs it (runner/run.ts programOf). A sample's own starter is continued as it is and run whole.
 */
function stepsSetup(sample: SetupSample, count: number, mode: CompletionMode, style: PromptStyle, client: HttpClient): Setup {
  const profile = CLIENT_PROFILES[client];
  if (sample.starter_code !== undefined) {
    const starter = sample.starter_code.split('{task}').join(sample.task);
    const definitions = sample.definitions ?? {};
    return { mode, style, client, origin: 'sample', starter, callStart: starter.length, definitions, callPrelude: preludeOf(starter, definitions, client), steps: { count, stop: '\n\n\n', closing: '\n' } };
  }
  // The stop is the function's own closing call (`})()`), not any `})` at a line's start: a model's unindented call may close an object there.
  const steps = { count, stop: '\n})()', closing: '\n})();\n' };
  const head = `${taskComment(sample.task)}\n${profile.importLine}\n\n(async () => {\n`;
  // A chat model writes its program whole (often rewriting the starter): opening a call for it would bind a name its code does not use.
  if (style === 'chat') return { mode, style, client, origin: 'fixed', starter: head, callStart: head.length, definitions: {}, callPrelude: profile.importLine, steps };
  // As the benchmark's full setup, a base model's starter ends where it writes the first call; later calls and the code between them are its own.
  const starter = `${head}  const response = await ${profile.opener}`;
  return { mode, style, client, origin: 'fixed', starter, callStart: starter.length - profile.opener.length, definitions: {}, callPrelude: profile.importLine, steps };
}

/**
 * A sample's own starter, as upstream's `instantiate_prompt` writes it: `{task}` replaced by the
 * task; argument completion appends `<method>(` and the URL, its `template_url` in backticks (so
 * `${name}` reads the definitions) when it has one, else the URL in single quotes, and no comma
 * (not every call has arguments after the URL).
 */
function sampleSetup(sample: SetupSample, code: string, mode: CompletionMode, style: PromptStyle, client: HttpClient): Setup {
  const withTask = code.split('{task}').join(sample.task);
  const opener = CLIENT_PROFILES[client].opener;
  const own = withTask.endsWith(opener) ? withTask.slice(0, -opener.length) : withTask;
  const url = sample.template_url !== undefined ? `\`${sample.template_url.replace(/[`\\]/g, '\\$&')}\`` : stringLiteral(sample.config.url, 'single');
  const call = mode === 'full' ? opener : ARGUMENT_CALL[client].own(sample.config.method, url);
  const definitions = sample.definitions ?? {};
  return { mode, style, client, origin: 'sample', starter: own + call, callStart: own.length, definitions, callPrelude: preludeOf(own, definitions, client) };
}

/**
 * What a call cut out of a sample's own starter runs after: the starter's declarations that import
 * a module the sandbox offers (a name the definitions give a value is left to them), the Axios
 * import if none bound `axios`, then `const <name> = <json>;` per definition (upstream's
 * `_create_variable_definitions`). A starter stops mid-function, so it is read error-tolerantly.
 */
function preludeOf(code: string, definitions: Readonly<Record<string, JsonValue>>, client: HttpClient): string {
  const imports: string[] = [];
  const bound = new Set<string>();
  for (const node of walk(parse(code, { ecmaVersion: 'latest', sourceType: 'module', allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true }) as unknown as AnyNode)) {
    if (node.type === 'ImportDeclaration') {
      const source = (node['source'] as AnyNode | undefined)?.['value'];
      const names = ((node['specifiers'] as AnyNode[] | undefined) ?? []).map((s) => (s['local'] as AnyNode)['name'] as string);
      if (typeof source === 'string' && SANDBOX_MODULES.has(source) && !names.some((n) => n in definitions)) {
        imports.push(code.slice(node.start, node.end));
        names.forEach((n) => bound.add(n));
      }
    } else if (node.type === 'VariableDeclaration') {
      const declarators = (node['declarations'] as AnyNode[] | undefined) ?? [];
      const ids = declarators.map((d) => d['id'] as AnyNode);
      if (declarators.length === 0 || !declarators.every((d) => requiresSandboxModule(d['init'] as AnyNode | null))) continue;
      if (ids.some((id) => id.type !== 'Identifier' || (id['name'] as string) in definitions)) continue;
      const text = code.slice(node.start, node.end);
      imports.push(text.endsWith(';') ? text : `${text};`);
      ids.forEach((id) => bound.add(id['name'] as string));
    }
  }
  const { binds, importLine } = CLIENT_PROFILES[client];
  const head = binds !== undefined && !bound.has(binds) && !(binds in definitions) ? [importLine.trimEnd()] : [];
  const defs = Object.entries(definitions).map(([name, value]) => `const ${name} = ${JSON.stringify(value, null, 2)};`);
  return [...head, ...imports, ...defs].map((line) => `${line}\n`).join('');
}

type AnyNode = { readonly type: string; readonly start: number; readonly end: number; readonly [key: string]: unknown };

/** `require('<offered module>')`, or a property of it (`require('url').URL`). */
function requiresSandboxModule(init: AnyNode | null): boolean {
  let node = init;
  while (node?.type === 'MemberExpression') node = node['object'] as AnyNode;
  if (node?.type !== 'CallExpression') return false;
  const callee = node['callee'] as AnyNode;
  const args = node['arguments'] as AnyNode[];
  return callee.type === 'Identifier' && callee['name'] === 'require' && args.length === 1 && args[0]!.type === 'Literal' && SANDBOX_MODULES.has(String(args[0]!['value']));
}

/** Every node of an ESTree, depth first, in source order. */
function* walk(node: AnyNode): Generator<AnyNode> {
  yield node;
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const child of value) if (isNode(child)) yield* walk(child);
    } else if (isNode(value)) yield* walk(value);
  }
}

const isNode = (value: unknown): value is AnyNode => typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
