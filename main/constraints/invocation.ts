import type { ApiSpec, Endpoint, Parameter } from '../openapi/index.js';
import { asciiNext, asciiSet, charClass, CloseFrame, isWs, skipWs, minimalValue, ObjectFrame, push, ReferenceFrame, StackNames, ValueFrame, WordFrame, type AsciiSet, type CharClass, type Frame, type Scope, type Stack } from './frames.js';
import { endpointRules, RuleCompiler, type EndpointRules } from './rules.js';

/** A character trie over `server + path template`; `{param}` segments are edges of their own. */
/**
 * A node of a method's URL trie. What the matcher asks of it is kept on it, made on first use
 * (fields, not WeakMaps beside it: see CompiledSpec.automaton).
 */
interface UrlNode {
  readonly literal: Map<string, UrlNode>;
  param: { readonly parameter: Parameter | undefined; readonly next: UrlNode } | undefined;
  readonly endpoints: Endpoint[];
  /** Its number for frame ids (see nodeId). */
  id: number | undefined;
  /** Whether its literal characters are all ASCII (see literalAscii). */
  literalAscii: boolean | undefined;
  /** Its next characters by the URL's quote (see nodeNext). */
  next: Map<string, AsciiSet> | undefined;
}
const node = (): UrlNode => ({ literal: new Map(), param: undefined, endpoints: [], id: undefined, literalAscii: undefined, next: undefined });

/**
 * The compiled language of one spec for one scope (the names declared before the call): methods,
 * URL tries and per-endpoint argument rules, built lazily and shared by every scope of the spec.
 */
export class CompiledSpec {
  readonly methods: readonly string[];
  /** Names for the stacks of this language's matchers (state keys). */
  readonly stacks = new StackNames();
  private readonly tries: Map<string, UrlNode>;
  private readonly rules: Map<Endpoint, EndpointRules>;
  private readonly compiler: RuleCompiler;
  /**
   * The token masks' automaton of this language, made by its first TokenConstraint (see
   * tokens.ts). A field, as the caches of a spec's languages and of its URL nodes are kept on
   * them: in WeakMaps beside them, the garbage collector reached these graphs through ephemerons,
   * and V8 marked them inside full collections' pauses (ephemeron marking 30 to 48 ms in all over
   * the token bench's masks, and its longest pause 23 ms; see the README's Benchmarks). Typed
   * `unknown` here: tokens.ts owns the automaton's type and reads it through automatonOf, so the
   * compiled language does not import the token masks built on it (no import circle).
   */
  automaton: unknown;

  constructor(
    readonly spec: ApiSpec,
    readonly scope: Scope,
    shared?: CompiledSpec,
  ) {
    this.compiler = shared?.compiler ?? new RuleCompiler(spec);
    this.tries = shared?.tries ?? new Map();
    this.rules = shared?.rules ?? new Map();
    this.methods = shared?.methods ?? [...new Set(spec.endpoints.map((e) => e.method))];
  }

  urlTrie(method: string): UrlNode {
    let root = this.tries.get(method);
    if (root) return root;
    root = node();
    const walk = (from: UrlNode, text: string, endpoint: Endpoint, parameters: boolean): UrlNode => {
      let at = from;
      for (const part of text.split(/(\{[^}]+\})/)) {
        const param = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (param !== undefined) {
          // A server variable (Telegram's `bot{token}`) takes a value like a path parameter without a schema.
          at.param ??= { parameter: parameters ? endpoint.parameters.find((p) => p.in === 'path' && p.name === param) : undefined, next: node() };
          at = at.param.next;
          continue;
        }
        for (const ch of part) {
          let child = at.literal.get(ch);
          if (!child) at.literal.set(ch, (child = node()));
          at = child;
        }
      }
      return at;
    };
    for (const endpoint of this.spec.endpoints.filter((e) => e.method === method)) {
      // The key up to its `?`: a query part (Etherscan's `/?module=account`) is written as `params`, where the key's arguments are required,
      // or spelled in the URL as the key has it (a real-world starter's `template_url` does), and then not sent again.
      const at = endpoint.path.indexOf('?');
      const path = at === -1 ? endpoint.path : endpoint.path.slice(0, at);
      const query = at === -1 ? '' : endpoint.path.slice(at);
      const inUrl = query ? queryInUrl(endpoint) : undefined;
      for (const server of endpoint.servers) {
        const atServer = walk(root, server, endpoint, false);
        if (path === '/' || path === '') atServer.endpoints.push(endpoint);
        if (path !== '') walk(atServer, path, endpoint, true).endpoints.push(endpoint);
        if (inUrl) {
          if (path === '/' || path === '') walk(atServer, query, inUrl, false).endpoints.push(inUrl);
          walk(atServer, path + query, inUrl, true).endpoints.push(inUrl);
        }
      }
    }
    this.tries.set(method, root);
    return root;
  }

  rulesOf(endpoint: Endpoint): EndpointRules {
    let r = this.rules.get(endpoint);
    if (!r) this.rules.set(endpoint, (r = endpointRules(this.spec, endpoint, this.compiler)));
    return r;
  }
}

const inUrlVariants = new WeakMap<Endpoint, Endpoint>();
/** An endpoint whose key's query part is written in the URL: the same operation without those query arguments in `params`. */
function queryInUrl(endpoint: Endpoint): Endpoint {
  let variant = inUrlVariants.get(endpoint);
  if (!variant) {
    const fixed = new Set(new URLSearchParams(endpoint.path.slice(endpoint.path.indexOf('?') + 1)).keys());
    variant = { ...endpoint, parameters: endpoint.parameters.filter((p) => !(p.in === 'query' && fixed.has(p.name))) };
    inUrlVariants.set(endpoint, variant);
    queryVariants.add(variant);
  }
  return variant;
}

/**
 * The path texts a URL of an endpoint may spell after its server, with the endpoint whose rules
 * the call then follows (see urlTrie): the key up to its `?`; and for a key with a query part,
 * that part spelled in the URL too (also alone, where the path is `/`), with its query-in-URL rules.
 * The GBNF export writes the same forms.
 */
export function urlForms(endpoint: Endpoint): readonly { readonly paths: readonly string[]; readonly endpoint: Endpoint }[] {
  const at = endpoint.path.indexOf('?');
  if (at === -1) return [{ paths: [endpoint.path], endpoint }];
  const path = endpoint.path.slice(0, at);
  const query = endpoint.path.slice(at);
  return [
    { paths: [path], endpoint },
    { paths: path === '/' || path === '' ? [path + query, query] : [path + query], endpoint: queryInUrl(endpoint) },
  ];
}

const isQueryInUrl = (endpoint: Endpoint): boolean => queryVariants.has(endpoint);
const queryVariants = new WeakSet<Endpoint>();

const URL_SAFE = /[A-Za-z0-9\-._~!$&'()*+,;=:@%<>]/;
/** What a path parameter's value may start with (see paramCharOk), `$` for `${` in backticks. */
const URL_PARAM_STARTS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$'()*+,;=:@%<>";

/**
 * What a `<placeholder>` in a path segment may hold: words, digits and `_-. ` (`<user id>`), never
 * quotes, backticks, braces, backslashes or `$` (constraints.md: URL-safe characters and placeholders;
 * anything else in a single-quoted URL is a template or escape the URL was not meant to hold).
 */
const PLACEHOLDER_CHAR = /[A-Za-z0-9_\-. ]/;

function paramCharOk(parameter: Parameter | undefined, c: string, quote: string, text: string): boolean {
  if (c === quote) return false;
  if (text.startsWith('<')) return text.endsWith('>') ? false : c === '>' ? text.length > 1 : PLACEHOLDER_CHAR.test(c);
  if (c === '<') return text === '';
  const type = parameter?.schema?.['type'];
  if (type === 'integer') return c >= '0' && c <= '9';
  if (type === 'number') return (c >= '0' && c <= '9') || c === '.' || (c === '-' && text === '');
  return URL_SAFE.test(c) && c !== '&';
}

// Free text takes anything; only a `.` can complete `axios.` and open an invocation.
const FREE_CLASS = charClass('f', (c) => c === '.', false);
/** The characters a path parameter's value takes, per quote. */
const URL_CLASSES = new Map(
  ["'", '"', '`'].map((q) => [
    q,
    {
      // Stable once it holds a character (`<id`: each placeholder character leaves it as it was; `<` alone is not), which the probe tells.
      placeholder: charClass(`u${q}<`, (c) => !PLACEHOLDER_CHAR.test(c), false, 'a'),
      integer: charClass(`u${q}integer`, (c) => !(c >= '0' && c <= '9'), false),
      number: charClass(`u${q}number`, (c) => !(c >= '0' && c <= '9') && c !== '.', false),
      text: charClass(`u${q}`, (c) => c === q || c === '<' || c === '>' || c === '&' || !URL_SAFE.test(c), false),
    },
  ]),
);

/** Outside any invocation: free text, watching for `axios.` at an identifier boundary. */
export class FreeFrame implements Frame {
  constructor(
    readonly compiled: CompiledSpec,
    readonly progress: number,
    readonly afterIdent: boolean,
  ) {}
  private cachedId: string | undefined;
  get id(): string {
    return (this.cachedId ??= `f${this.progress}${this.afterIdent ? 'i' : ''}`);
  }
  openClass(): CharClass {
    return FREE_CLASS;
  }
  step(c: string, parent: Stack): Stack[] {
    const WORD = 'axios.';
    if (!(this.progress === 0 && this.afterIdent) && WORD[this.progress] === c) {
      if (this.progress + 1 === WORD.length) return [push(new InvocationFrame(this.compiled, 'method', '', undefined, ''), push(new FreeFrame(this.compiled, 0, false), parent))];
      return [push(new FreeFrame(this.compiled, this.progress + 1, false), parent)];
    }
    return [push(new FreeFrame(this.compiled, 0, /[\w$.]/.test(c)), parent)];
  }
  canEnd(): boolean {
    return false;
  }
  completion(): string {
    // Half of `axios.` typed: finish it as the shortest whole invocation, or leave it as free text.
    return '';
  }
}

/**
 * What may wrap a form-encoded body's object (constraints.md): URLSearchParams is global in Node
 * and the sandbox; `qs` only when the code has the name (constrained code never names something undefined).
 */
export function formWrappers(scope: Scope): readonly string[] {
  return scope.declared.has('qs') ? FORM_WRAPPERS : FORM_WRAPPERS.slice(0, 1);
}
const FORM_WRAPPERS = ['new URLSearchParams(', 'qs.stringify('];

/** What may end an invocation's statement besides `;`: the call goes on as a promise chain. */
const TERMINATORS = ['.then(', '.catch(', '.finally('];

type Stage = 'method' | 'open' | 'preUrl' | 'afterUrl' | 'preData' | 'afterData' | 'preConfig' | 'afterConfig' | 'close' | 'term' | 'done';

/** `axios.<method>(<url>[, <data>][, <config>])` then `;`, `.then(`, `.catch(` or `.finally(`. */
export class InvocationFrame implements Frame {
  constructor(
    readonly compiled: CompiledSpec,
    readonly stage: Stage,
    readonly method: string,
    readonly rules: EndpointRules | undefined,
    /** Stage-local text: the method prefix, or the terminator typed so far. */
    readonly text: string,
  ) {}
  private cachedId: string | undefined;
  get id(): string {
    // A query-in-URL variant (see queryInUrl) has its key's path but other rules: `?` marks it.
    return (this.cachedId ??= `I${this.stage}.${this.method}.${this.rules ? this.rules.endpoint.path + (isQueryInUrl(this.rules.endpoint) ? '?' : '') : ''}.${this.text}`);
  }
  asciiOnly(): boolean {
    return this.stage !== 'method' || asciiNext(this.compiled.methods, this.text);
  }
  literals(): readonly string[] | undefined {
    // Part of a method's name, or of `.then(`, `.catch(`, `.finally(` after the call.
    const words = this.stage === 'method' ? this.compiled.methods : this.stage === 'term' && this.text !== '' ? TERMINATORS : undefined;
    if (!words || words.includes(this.text)) return undefined;
    return words.filter((w) => w.startsWith(this.text)).map((w) => w.slice(this.text.length));
  }
  nextAscii(): AsciiSet {
    const ws = ' \n\t\r';
    switch (this.stage) {
      case 'method':
        return asciiSet(this.compiled.methods.map((m) => (m.length > this.text.length && m.startsWith(this.text) ? m[this.text.length] : '')).join(''), ws, '(');
      case 'open':
        return asciiSet(ws, '(');
      case 'preUrl':
        return asciiSet(ws, '\'"`');
      case 'afterUrl':
      case 'afterData':
      case 'afterConfig':
        return asciiSet(ws, ',)');
      case 'preData': {
        // What the data's own rule may start with (see step: the value frame takes the character), and a form wrapper's first.
        const starts = new ValueFrame(this.rules!.data, this.compiled.scope).nextAscii();
        if (!this.rules!.form) return starts;
        const firsts = asciiSet(formWrappers(this.compiled.scope).map((w) => w[0]).join(''));
        return firsts.map((bits, w) => bits | starts[w]!);
      }
      case 'preConfig':
        return asciiSet(ws, '){');
      case 'close':
        return asciiSet(ws, ')');
      case 'term':
        return this.text === '' ? asciiSet(ws, ';.') : asciiSet(TERMINATORS.map((e) => (e.length > this.text.length && e.startsWith(this.text) ? e[this.text.length] : '')).join(''));
      case 'done':
        return asciiSet();
    }
  }
  private to(stage: Stage, text = ''): InvocationFrame {
    return new InvocationFrame(this.compiled, stage, this.method, this.rules, text);
  }
  step(c: string, parent: Stack): Stack[] {
    const r = this.rules;
    const dataPossible = r !== undefined && r.hasDataArgument;
    const configPossible = r !== undefined && r.config !== null;
    switch (this.stage) {
      case 'method': {
        if (c === '(' && this.compiled.methods.includes(this.text)) return [push(new InvocationFrame(this.compiled, 'preUrl', this.text, undefined, ''), parent)];
        if (isWs(c) && this.compiled.methods.includes(this.text)) return skipWs(c, new InvocationFrame(this.compiled, 'open', this.text, undefined, ''), parent);
        const text = this.text + c;
        return this.compiled.methods.some((m) => m.startsWith(text)) ? [push(new InvocationFrame(this.compiled, 'method', '', undefined, text), parent)] : [];
      }
      case 'open':
        return isWs(c) ? skipWs(c, this, parent) : c === '(' ? [push(this.to('preUrl'), parent)] : [];
      case 'preUrl':
        if (isWs(c)) return skipWs(c, this, parent);
        return c === "'" || c === '"' || c === '`' ? [push(new UrlFrame(this.compiled, this.method, c, this.compiled.urlTrie(this.method), undefined, ''), parent)] : [];
      case 'afterUrl':
        if (isWs(c)) return skipWs(c, this, parent);
        if (c === ',') return [push(this.to(dataPossible ? 'preData' : 'preConfig'), parent)];
        return c === ')' && !dataPossible && !r?.configRequired ? [push(this.to('term'), parent)] : [];
      case 'preData': {
        // Whitespace here, not in the value frame: a form wrapper may come after it too.
        if (isWs(c)) return skipWs(c, this, parent);
        // A literal, or a name in scope standing for the whole body (constraints.md: the upstream suite's `axios.post(url, requestBody)`).
        const after = push(this.to('afterData'), parent);
        const out = new ValueFrame(r!.data, this.compiled.scope).step(c, after);
        // A form body may be wrapped: `new URLSearchParams({...})`, `qs.stringify({...})` (constraints.md).
        if (r!.form) for (const word of formWrappers(this.compiled.scope)) if (word[0] === c) out.push(push(new WordFrame(word, 1), push(new ValueFrame(r!.data, this.compiled.scope), push(new CloseFrame(')'), after))));
        return out;
      }
      case 'afterData':
        if (isWs(c)) return skipWs(c, this, parent);
        if (c === ',') return [push(this.to('preConfig'), parent)];
        return c === ')' && !r?.configRequired ? [push(this.to('term'), parent)] : [];
      case 'preConfig':
        if (isWs(c)) return skipWs(c, this, parent);
        if (c === ')' && !r?.configRequired) return [push(this.to('term'), parent)]; // a trailing comma
        if (!configPossible) return [];
        return c === '{' ? [push(ObjectFrame.open(r!.config!, this.compiled.scope), push(this.to('afterConfig'), parent))] : [];
      case 'afterConfig':
        if (isWs(c)) return skipWs(c, this, parent);
        if (c === ',') return [push(this.to('close'), parent)];
        return c === ')' ? [push(this.to('term'), parent)] : [];
      case 'close':
        if (isWs(c)) return skipWs(c, this, parent);
        return c === ')' ? [push(this.to('term'), parent)] : [];
      case 'term': {
        if (this.text === '' && isWs(c)) return skipWs(c, this, parent);
        if (this.text === '' && c === ';') return [parent]; // released: back to free text
        const text = this.text + c;
        if (TERMINATORS.includes(text)) return [parent];
        return TERMINATORS.some((e) => e.startsWith(text)) ? [push(this.to('term', text), parent)] : [];
      }
      case 'done':
        return [];
    }
  }
  canEnd(): boolean {
    return false;
  }
  completion(): string {
    const r = this.rules;
    const config = r?.config && r.configRequired ? minimalValue(r.config) : '';
    const afterData = (config ? `, ${config}` : '') + ');';
    switch (this.stage) {
      case 'method': {
        const method = [...this.compiled.methods].filter((m) => m.startsWith(this.text)).sort((a, b) => a.length - b.length)[0] ?? 'get';
        return method.slice(this.text.length) + "('" + shortestUrl(this.compiled, method, "'", this.compiled.urlTrie(method));
      }
      case 'open':
      case 'preUrl':
        return (this.stage === 'open' ? "('" : "'") + shortestUrl(this.compiled, this.method, "'", this.compiled.urlTrie(this.method));
      case 'afterUrl':
        return r?.hasDataArgument ? `, ${minimalValue(r.data)}${afterData}` : afterData;
      case 'preData':
        return `${minimalValue(r!.data)}${afterData}`;
      case 'afterData':
        return afterData;
      case 'preConfig':
        return (config || '') + ');';
      case 'afterConfig':
      case 'close':
        return ');';
      case 'term':
        return this.text === '' ? ';' : (TERMINATORS.find((e) => e.startsWith(this.text)) ?? '.then(').slice(this.text.length);
      case 'done':
        return '';
    }
  }
}

/** The shortest rest of a URL from a trie node: literal characters, a one-character value per parameter, the closing quote, then the invocation's rest. */
function shortestUrl(compiled: CompiledSpec, method: string, quote: string, from: UrlNode): string {
  // Breadth-first over the trie: each edge costs one character.
  const queue: [UrlNode, string][] = [[from, '']];
  const seen = new Set<UrlNode>([from]);
  while (queue.length > 0) {
    const [at, text] = queue.shift()!;
    const endpoint = at.endpoints[0];
    if (endpoint) return text + quote + new InvocationFrame(compiled, 'afterUrl', method, compiled.rulesOf(endpoint), '').completion();
    for (const [ch, child] of at.literal) {
      if (seen.has(child)) continue;
      seen.add(child);
      queue.push([child, text + ch]);
    }
    if (at.param && !seen.has(at.param.next)) {
      seen.add(at.param.next);
      const type = at.param.parameter?.schema?.['type'];
      queue.push([at.param.next, text + (type === 'integer' || type === 'number' ? '1' : 'x')]);
    }
  }
  return quote + ');';
}

/** The URL string: one of the spec's servers, then a path template of the method, path parameters filled in. */
export class UrlFrame implements Frame {
  constructor(
    readonly compiled: CompiledSpec,
    readonly method: string,
    readonly quote: string,
    readonly at: UrlNode,
    /** Inside a `{param}` segment: the node after it and the value typed so far. */
    readonly param: { readonly parameter: Parameter | undefined; readonly next: UrlNode } | undefined,
    readonly value: string,
  ) {}
  /** A `$` typed in a backtick URL opens `${reference}`; in other quotes it is a character of the value. */
  private get opensTemplate(): boolean {
    return this.value === '$' && this.quote === '`';
  }
  private cachedId: string | undefined;
  get id(): string {
    return (this.cachedId ??= `u${this.quote}${nodeId(this.at)}.${this.param ? nodeId(this.param.next) : ''}.${valueKind(this.value)}`);
  }
  asciiOnly(): boolean {
    if (!this.param) return literalAscii(this.at);
    if (this.opensTemplate) return true;
    // An open `<placeholder>` takes placeholder characters and its `>`, all ASCII (paramCharOk);
    // saying so keeps a mask from trying each of a vocabulary's 17,000 first characters beyond
    // ASCII on every new placeholder state (10 ms and more each, most of the bench's p99).
    if (this.value.startsWith('<') && !this.value.endsWith('>')) return true;
    return literalAscii(this.param.next);
  }
  nextAscii(): AsciiSet | undefined {
    // A server or path's next literal character, the quote, or a path parameter's first one.
    if (!this.param) return nodeNext(this.at, this.quote);
    return this.opensTemplate ? asciiSet('{') : undefined;
  }
  openClass(): CharClass | undefined {
    if (!this.param || this.opensTemplate || this.value === '${}') return undefined;
    const classes = URL_CLASSES.get(this.quote)!;
    // A `<placeholder>` takes anything up to its `>`, but never leaves the path segment.
    if (this.value.startsWith('<')) return this.value.length > 1 && this.value.endsWith('>') ? undefined : classes.placeholder;
    const type = this.param.parameter?.schema?.['type'];
    return type === 'integer' ? classes.integer : type === 'number' ? classes.number : classes.text;
  }
  private fromNode(at: UrlNode, c: string, parent: Stack): Stack[] {
    const out: Stack[] = [];
    if (c === this.quote) {
      for (const endpoint of at.endpoints) out.push(push(new InvocationFrame(this.compiled, 'afterUrl', this.method, this.compiled.rulesOf(endpoint), ''), parent));
      return out;
    }
    const child = at.literal.get(c);
    if (child) out.push(push(new UrlFrame(this.compiled, this.method, this.quote, child, undefined, ''), parent));
    if (at.param) {
      if (this.quote === '`' && c === '$') out.push(push(new UrlFrame(this.compiled, this.method, this.quote, at, at.param, '$'), parent));
      else if (paramCharOk(at.param.parameter, c, this.quote, '')) out.push(push(new UrlFrame(this.compiled, this.method, this.quote, at, at.param, c), parent));
    }
    return out;
  }
  step(c: string, parent: Stack): Stack[] {
    if (!this.param) return this.fromNode(this.at, c, parent);
    if (this.opensTemplate) {
      // `${reference}` inside backticks, then `}`.
      const after = push(new UrlFrame(this.compiled, this.method, this.quote, this.at, this.param, '${}'), parent);
      return c === '{' ? [push(new ReferenceFrame(this.compiled.scope, 'start', '', true), push(new WordFrame('}', 0), after))] : [];
    }
    const out: Stack[] = [];
    const complete = this.value !== '' && (!this.value.startsWith('<') || this.value.endsWith('>'));
    if (this.value !== '${}' && paramCharOk(this.param.parameter, c, this.quote, this.value)) {
      out.push(push(new UrlFrame(this.compiled, this.method, this.quote, this.at, this.param, this.value + c), parent));
    }
    if (complete) out.push(...this.fromNode(this.param.next, c, parent));
    return out;
  }
  canEnd(): boolean {
    return false;
  }
  completion(): string {
    if (!this.param) return shortestUrl(this.compiled, this.method, this.quote, this.at);
    let close = '';
    if (this.opensTemplate) close = `{${new ReferenceFrame(this.compiled.scope, 'start', '').completion()}}`;
    else if (this.value === '') close = 'x';
    // An empty `<>` is no placeholder: the shortest one holds a character.
    else if (this.value.startsWith('<') && !this.value.endsWith('>')) close = this.value === '<' ? 'x>' : '>';
    return close + shortestUrl(this.compiled, this.method, this.quote, this.param.next);
  }
}

// Both asked once per new state of the token mask's walk, so made once per trie node (and quote).
function literalAscii(at: UrlNode): boolean {
  return (at.literalAscii ??= asciiNext([...at.literal.keys()], ''));
}
/** A trie node's next literal characters, the quote, or a path parameter's first one. */
function nodeNext(at: UrlNode, quote: string): AsciiSet {
  const byQuote = (at.next ??= new Map());
  let next = byQuote.get(quote);
  if (!next) byQuote.set(quote, (next = asciiSet([...at.literal.keys()].join(''), quote, at.param ? URL_PARAM_STARTS : '')));
  return next;
}

/** What the value typed into a path parameter decides about what may follow (see paramCharOk). */
function valueKind(value: string): string {
  if (value === '' || value === '$' || value === '${}') return value;
  // `<` alone may not take `>` yet (an empty `<>` is no placeholder), `<id` may: two states.
  if (value.startsWith('<')) return value.length === 1 ? '<' : value.endsWith('>') ? '<>' : '<x';
  return 'x';
}

let nextNodeId = 0;
function nodeId(n: UrlNode): number {
  return (n.id ??= nextNodeId++);
}

