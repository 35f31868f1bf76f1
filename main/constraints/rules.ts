import { followLocalRef, mergeAllOf, specDocument, type ApiSpec, type Endpoint, type JsonSchema, type SecurityScheme } from '../openapi/index.js';

/**
 * The value language of constraints.md, compiled from JSON Schema: what literal may stand where.
 * Every position also accepts an identifier expression (variable, member access, call).
 */
export type ValueRule =
  | { readonly kind: 'any' }
  /** `header`: the value of an HTTP header, so only the characters Node sends there (see headerValueRule). */
  | { readonly kind: 'string'; readonly enum?: readonly string[]; readonly header?: true }
  | { readonly kind: 'number' | 'integer' | 'boolean' | 'null' }
  | { readonly kind: 'array'; readonly items: ValueRule; readonly maxItems: number }
  | ObjectRule
  | { readonly kind: 'union'; readonly options: readonly ValueRule[] }
  /** One of fixed literals, as JavaScript writes them: a boolean or number `enum`/`const` (OpenAPI 3.1), `true` but not `false`. */
  | { readonly kind: 'literal'; readonly texts: readonly string[] };

export interface ObjectRule {
  readonly kind: 'object';
  /** Declared keys in a fixed order; a key's index is its bit in the matcher's seen-set. */
  readonly keys: readonly string[];
  readonly rules: ReadonlyMap<string, ValueRule>;
  readonly required: bigint;
  /** The rule of keys beyond `keys`, when the object is open. */
  readonly additional: ValueRule | null;
  /** Its values are literals, never references: the config, whose `headers` and `params` objects are scored key by key. */
  readonly literalValues?: boolean;
}

export const ANY: ValueRule = { kind: 'any' };
/** A recursive schema is cut at its third recursion (constraints.md); every other schema is followed to any depth. */
const MAX_RECURSION = 3;
const DEFAULT_MAX_ITEMS = 5;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function objectRule(entries: readonly (readonly [string, ValueRule, boolean])[], additional: ValueRule | null): ObjectRule {
  const keys = entries.map(([k]) => k);
  let required = 0n;
  entries.forEach(([, , req], i) => {
    if (req) required |= 1n << BigInt(i);
  });
  return { kind: 'object', keys, rules: new Map(entries.map(([k, r]) => [k, r])), required, additional };
}

/** Compiles schemas of one spec; `$ref`s left by dereferencing (recursion) resolve through the document. */
export class RuleCompiler {
  private readonly cache = new Map<object, ValueRule>();
  private readonly doc: Readonly<Obj>;

  constructor(spec: ApiSpec) {
    this.doc = specDocument(spec);
  }

  private follow(schema: unknown): unknown {
    return followLocalRef(this.doc, schema) ?? {};
  }

  /**
   * `within`: the schemas being compiled around this one. A schema met a fourth time inside itself
   * is cut (any balanced literal); a rule built without meeting any of its ancestors again is the
   * same wherever it stands, so it is cached.
   */
  compile(schema: JsonSchema | undefined, within: readonly object[] = []): ValueRule {
    const s = this.follow(schema);
    if (!isObj(s)) return ANY;
    const hit = this.cache.get(s);
    if (hit) return hit;
    if (within.filter((a) => a === s).length >= MAX_RECURSION) {
      this.recursive = true;
      return ANY;
    }
    const outer = this.recursive;
    this.recursive = within.includes(s);
    const rule = this.build(s, [...within, s]);
    if (!this.recursive) this.cache.set(s, rule);
    this.recursive ||= outer;
    return rule;
  }

  /** Set while compiling a schema that meets one of its ancestors again (its rule depends on where it stands). */
  private recursive = false;

  private build(s: Obj, depth: readonly object[]): ValueRule {
    const nullable = s['nullable'] === true;
    const wrap = (r: ValueRule): ValueRule => (nullable ? { kind: 'union', options: [r, { kind: 'null' }] } : r);
    // `const` (OpenAPI 3.1 / JSON Schema 2020-12) is an enum of one value.
    const listed = Array.isArray(s['enum']) ? s['enum'] : 'const' in s ? [s['const']] : undefined;
    if (listed) {
      const values = listed;
      const options: ValueRule[] = [];
      const strings = values.filter((v): v is string => typeof v === 'string');
      if (strings.length > 0) options.push({ kind: 'string', enum: strings });
      // Numbers and booleans as the listed values alone (a `const: true` took `false` too); a
      // number as JSON writes it, which JavaScript reads as the same number.
      const texts = [...new Set(values.filter((v) => (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean').map((v) => JSON.stringify(v)))];
      if (texts.length > 0) options.push({ kind: 'literal', texts });
      if (values.includes(null)) options.push({ kind: 'null' });
      // Only objects or arrays listed: any literal (the value grammar has no object constants).
      if (options.length === 0) return ANY;
      return wrap(options.length === 1 ? options[0]! : { kind: 'union', options });
    }
    for (const key of ['oneOf', 'anyOf'] as const) {
      const alts = s[key];
      if (Array.isArray(alts) && alts.length > 0) return wrap({ kind: 'union', options: alts.map((a) => this.compile(a as JsonSchema, depth)) });
    }
    if (Array.isArray(s['allOf'])) return this.build(mergeAllOf(s, 0, (p) => this.follow(p)), depth);
    const type = s['type'];
    if (Array.isArray(type)) {
      return wrap({ kind: 'union', options: type.map((t) => this.build({ ...s, type: t }, depth)) });
    }
    switch (type) {
      case 'string':
        return wrap({ kind: 'string' });
      case 'integer':
        return wrap({ kind: 'integer' });
      case 'number':
        return wrap({ kind: 'number' });
      case 'boolean':
        return wrap({ kind: 'boolean' });
      case 'null':
        return { kind: 'null' };
      case 'array':
        return wrap({ kind: 'array', items: this.compile(s['items'] as JsonSchema, depth), maxItems: typeof s['maxItems'] === 'number' ? s['maxItems'] : DEFAULT_MAX_ITEMS });
      case 'object':
        return wrap(this.objectOf(s, depth));
      default:
        if (isObj(s['properties'])) return wrap(this.objectOf(s, depth));
        return ANY;
    }
  }

  private objectOf(s: Obj, depth: readonly object[]): ObjectRule {
    const props = isObj(s['properties']) ? s['properties'] : {};
    const required = new Set(Array.isArray(s['required']) ? s['required'] : []);
    const entries = Object.entries(props).map(([k, v]) => [k, this.compile(v as JsonSchema, depth), required.has(k)] as const);
    const add = s['additionalProperties'];
    const additional = add === false ? null : isObj(add) ? this.compile(add as JsonSchema, depth) : add === true || entries.length === 0 ? ANY : null;
    return objectRule(entries, additional);
  }
}

const HEADER_STRING: ValueRule = { kind: 'string', header: true };
const HEADER_ANY: ValueRule = { kind: 'union', options: [HEADER_STRING, { kind: 'number' }, { kind: 'boolean' }, { kind: 'null' }] };
const headerRules = new WeakMap<ValueRule, ValueRule>();
/**
 * A header's value rule: Node refuses to send a header value holding a control character (but
 * tab) or a character past U+00FF (`ERR_INVALID_CHAR`), so a string literal there written by a
 * constrained model must hold only what Node sends, or the request it wrote never leaves. Free
 * values become a string, number, boolean or null: what Axios turns into a header's text. Made
 * once per rule, so frames and token masks see one rule object per header schema.
 */
export function headerValueRule(rule: ValueRule): ValueRule {
  let out = headerRules.get(rule);
  if (out) return out;
  switch (rule.kind) {
    case 'any':
      out = HEADER_ANY;
      break;
    case 'string':
      out = rule.enum || rule.header ? rule : HEADER_STRING;
      break;
    case 'union':
      out = { kind: 'union', options: rule.options.map(headerValueRule) };
      break;
    case 'array':
      out = { ...rule, items: headerValueRule(rule.items) };
      break;
    default:
      out = rule;
  }
  headerRules.set(rule, out);
  return out;
}

/** What an invocation of one endpoint may pass after its URL. */
export interface EndpointRules {
  readonly endpoint: Endpoint;
  /** put/post/patch take `(url, data, config)`, the others `(url, config)`. */
  readonly hasDataArgument: boolean;
  readonly data: ValueRule;
  /** Null when no key at all could go into the config. */
  readonly config: ObjectRule | null;
  readonly configRequired: boolean;
  /**
   * The body may be form-encoded (`application/x-www-form-urlencoded`, Twilio's and Stripe's):
   * the data may then also be `new URLSearchParams({...})`, or `qs.stringify({...})` where `qs` is in scope.
   */
  readonly form: boolean;
}

const BODY_METHODS = new Set(['put', 'post', 'patch']);

/**
 * The schemes whose arguments a call of `endpoint` may send. Specs mark *which* scheme an operation
 * takes inconsistently, so an operation that applies any (its own `security`, else the document's)
 * may send every scheme's; but one that applies none, in a spec that applies security elsewhere,
 * is public by the spec's own word and may send none: a config there holds no key, so not even
 * `{}` may be written (upstream's suite, negative/2002). A spec that defines schemes and applies
 * none anywhere (common in Swagger 2.0 descriptions) has left its security unsaid: every scheme
 * is permitted everywhere, as the scorer permits them (scoring.md §4).
 */
function securedBy(spec: ApiSpec, endpoint: Endpoint): readonly SecurityScheme[] {
  if (endpoint.security.length > 0) return spec.securitySchemes;
  let applies = appliesSecurity.get(spec);
  if (applies === undefined) appliesSecurity.set(spec, (applies = spec.endpoints.some((e) => e.security.length > 0)));
  return applies ? [] : spec.securitySchemes;
}
/** Per spec, whether any operation applies security: asked once, not once per endpoint (thousands in a large spec). */
const appliesSecurity = new WeakMap<ApiSpec, boolean>();

export function endpointRules(spec: ApiSpec, endpoint: Endpoint, compiler: RuleCompiler): EndpointRules {
  const headerEntries: [string, ValueRule, boolean][] = [];
  const queryEntries: [string, ValueRule, boolean][] = [];
  for (const p of endpoint.parameters) {
    if (p.in === 'header') headerEntries.push([p.name, compiler.compile(p.schema), p.required]);
    if (p.in === 'query') queryEntries.push([p.name, compiler.compile(p.schema), p.required]);
  }
  // Security arguments are permitted, never required (constraints.md).
  const schemes = securedBy(spec, endpoint);
  for (const scheme of schemes) {
    const target = scheme.type === 'apiKey' ? (scheme.in === 'header' ? headerEntries : scheme.in === 'query' ? queryEntries : undefined) : headerEntries;
    const name = scheme.type === 'apiKey' ? scheme.keyName : 'Authorization';
    if (target && !target.some(([k]) => k === name)) target.push([name, { kind: 'string' }, false]);
  }
  const hasDataArgument = BODY_METHODS.has(endpoint.method);
  if (hasDataArgument && !headerEntries.some(([k]) => k.toLowerCase() === 'content-type')) {
    headerEntries.push(['Content-Type', { kind: 'string', enum: [...new Set([...(endpoint.requestBody?.contents.map((c) => c.mediaType) ?? []), 'application/json'])] }, false]);
  }
  const configEntries: [string, ValueRule, boolean][] = [];
  if (headerEntries.length > 0) {
    const headers = headerEntries.map(([k, rule, req]) => [k, headerValueRule(rule), req] as const);
    configEntries.push(['headers', objectRule(headers, null), headers.some(([, , r]) => r)]);
  }
  if (queryEntries.length > 0) configEntries.push(['params', objectRule(queryEntries, null), queryEntries.some(([, , r]) => r)]);
  // Axios's `auth` option (it sends `Authorization: Basic ...`) where the spec has an http basic scheme (Twilio, Stripe); permitted, never required.
  if (schemes.some((scheme) => scheme.type === 'http' && scheme.scheme.toLowerCase() === 'basic')) {
    configEntries.push(['auth', objectRule([['username', { kind: 'string' }, true], ['password', { kind: 'string' }, true]], null), false]);
  }
  // `headers`, `params` and `auth` are object literals or a name in scope standing for the whole object (constraints.md).
  const config = configEntries.length > 0 ? objectRule(configEntries, null) : null;
  // Every media type's body, as the scorer permits a key that any of them declares (apimatic's
  // operations take a form, text/plain and multipart body at once): a union of their schemas.
  const contents = endpoint.requestBody?.contents ?? [];
  const schemas = [...new Set(contents.map((c) => c.schema))];
  let data: ValueRule;
  if (contents.length === 0) data = { kind: 'union', options: [objectRule([], null), { kind: 'null' }] };
  else if (schemas.includes(undefined)) data = ANY;
  else {
    const options = schemas.map((schema) => compiler.compile(schema));
    data = options.length === 1 ? options[0]! : { kind: 'union', options };
  }
  const form = endpoint.requestBody?.contents.some((c) => /^application\/x-www-form-urlencoded\b/i.test(c.mediaType)) ?? false;
  return { endpoint, hasDataArgument, data, config, configRequired: configEntries.some(([, , r]) => r), form };
}
