import { formWrappers, urlForms, type CompiledSpec } from './invocation.js';
import type { ObjectRule, ValueRule } from './rules.js';
import type { ApiSpec, Endpoint } from '../openapi/index.js';
import { IDENTIFIER_NAME, MAX_WS_RUN } from './frames.js';
import { compileConstraints } from './matcher.js';

const HEADER = `# GBNF for llama.cpp (llama-server, node-llama-cpp createGrammar, vLLM), exported by WAPII Workbench.
# It accepts the completion after the starter code \`axios.\` (full completion): one invocation,
# then free text. It is a relaxation of the workbench's own constraint language, because GBNF has
# no set semantics: object keys may repeat and required keys are not enforced, arrays have no item
# limit, and text after the first statement is free (a later \`axios.\` call is not checked).
# Values may reference the names it was exported for (declared before the call), with one member
# access or index, or process.env.NAME; a name may stand for a whole body, and only a bare one goes
# inside a URL's \${...}. No calls: constrained code must run (a form body's \`new URLSearchParams(\`
# and, where \`qs\` is a name, \`qs.stringify(\` around its object aside). Whitespace between tokens is
# bounded as in the engine: at most one line break and runs of at most 16 spaces or tabs.
`;

/** A GBNF string literal. */
const lit = (text: string): string => `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`;
const QUOTES = ["'", '"', '`'] as const;

class GrammarWriter {
  private readonly rules = new Map<string, string>();
  private readonly ruleNames = new WeakMap<object, string>();
  private counter = 0;

  constructor(
    private readonly compiled: CompiledSpec,
    names: readonly string[],
  ) {
    // Whitespace between tokens, bounded as the engine bounds it (constraints.md): one line break, runs of at most 16 spaces or tabs.
    this.add('ws', `[ \\t]{0,${MAX_WS_RUN}} ( "\\r"? "\\n" [ \\t]{0,${MAX_WS_RUN}} )?`);
    this.add('rest', '[^\\x00]*');
    this.add('term', '";" | ".then(" | ".catch(" | ".finally("');
    this.add('name', '[A-Za-z_$] [A-Za-z0-9_$]*');
    // A reference: only declared roots (no ReferenceError), one accessor, no call (see ReferenceFrame); bare in a URL.
    const env = '"process.env." name';
    const declared = names.map(lit).join(' | ');
    this.add('ref', declared ? `( ${declared} ) ( "." name | "[" ws any ws "]" )? | ${env}` : env);
    this.add('bref', declared ? `${declared} | ${env}` : env);
    // Escapes: not \x, \u or a digit (those must be well-formed, and octal ones are errors in templates);
    // any other character, a line break or tab included (a line continuation), as the engine takes it.
    this.add('esc', '"\\\\" [^0-9xu]');
    this.add('qstr', `"'" ( [^'\\\\\\n\\r] | esc )* "'" | "\\"" ( [^"\\\\\\n\\r] | esc )* "\\""`);
    // A template's `${` holds a reference; `$` elsewhere is text.
    this.add('tstr', '"`" ( [^`\\\\$] | esc | "$"+ ( [^{`\\\\$] | esc ) | "$"* "${" ref "}" )* "$"* "`"');
    this.add('str', 'qstr | tstr');
    // A header's value: what Node sends there (tab, printable ASCII, U+0080-U+00FF), as the engine's
    // header strings; escapes of a control character (\n \r \b \f \v) left out.
    this.add('hesc', '"\\\\" [^0-9xunrbfv]');
    this.add(
      'hstr',
      `"'" ( [\\t\\x20-\\x26\\x28-\\x5b\\x5d-\\x7e\\x80-\\xff] | hesc )* "'" | "\\"" ( [\\t\\x20-\\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff] | hesc )* "\\"" | ` +
        '"`" ( [\\t\\x20-\\x23\\x25-\\x5b\\x5d-\\x5f\\x61-\\x7e\\x80-\\xff] | hesc | "$"+ ( [\\t\\x20-\\x23\\x25-\\x5b\\x5d-\\x5f\\x61-\\x7a\\x7c-\\x7e\\x80-\\xff] | hesc ) | "$"* "${" ref "}" )* "$"* "`"',
    );
    this.add('num', '"-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?');
    this.add('int', '"-"? ( "0" | [1-9] [0-9]* )');
    this.add('bool', '"true" | "false"');
    this.add('null', '"null"');
    this.add('anylit', 'str | num | bool | null | anyobj | anyarr');
    this.add('any', 'anylit | ref');
    // One `ws` between two tokens (two in a row would let a run be twice the bound).
    this.add('anyobj', '"{" ws ( anypair ( ws "," ws anypair )* ( ws "," )? ws )? "}"');
    this.add('anypair', '( name | qstr ) ws ":" ws any');
    this.add('anyarr', '"[" ws ( any ( ws "," ws any )* ( ws "," )? ws )? "]"');
  }

  private add(name: string, body: string): string {
    this.rules.set(name, body);
    return name;
  }

  private fresh(prefix: string): string {
    return `${prefix}${this.counter++}`;
  }

  /** A key in any of its spellings: bare where it is an identifier, or quoted. */
  private key(name: string): string {
    const quoted = [`"'" ${lit(name)} "'"`, `"\\"" ${lit(name)} "\\""`];
    return `( ${IDENTIFIER_NAME.test(name) ? `${lit(name)} | ` : ''}${quoted.join(' | ')} )`;
  }

  value(rule: ValueRule): string {
    const cached = this.ruleNames.get(rule);
    if (cached) return cached;
    const name = this.fresh('v');
    this.ruleNames.set(rule, name);
    this.add(name, `${this.literal(rule)} | ref`);
    return name;
  }

  /** A literal of the rule (a reference only inside it, as a nested value). */
  private literal(rule: ValueRule): string {
    switch (rule.kind) {
      case 'any':
        return 'anylit';
      case 'string':
        return rule.enum ? rule.enum.flatMap((e) => QUOTES.map((q) => lit(q + e + q))).join(' | ') : rule.header ? 'hstr' : 'str';
      case 'number':
        return 'num';
      case 'integer':
        return 'int';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'null';
      case 'array': {
        const item = this.value(rule.items);
        return `"[" ws ( ${item} ( ws "," ws ${item} )* ( ws "," )? ws )? "]"`;
      }
      case 'object':
        return this.object(rule);
      case 'union':
        return rule.options.map((o) => `( ${this.literal(o)} )`).join(' | ');
      case 'literal':
        return rule.texts.map(lit).join(' | ');
    }
  }

  object(rule: ObjectRule): string {
    const valueOf = (r: ValueRule): string => (rule.literalValues ? `( ${this.literal(r)} )` : this.value(r));
    const pairs = rule.keys.map((k) => `${this.key(k)} ws ":" ws ${valueOf(rule.rules.get(k)!)}`);
    if (rule.additional) pairs.push(`( name | qstr ) ws ":" ws ${this.value(rule.additional)}`);
    if (pairs.length === 0) return '"{" ws "}"';
    const pair = this.add(this.fresh('pair'), pairs.join(' | '));
    return `"{" ws ( ${pair} ( ws "," ws ${pair} )* ( ws "," )? ws )? "}"`;
  }

  /** The URL in one quote style: a server, then one of the path texts (see urlForms) with `{param}` segments as values. */
  private url(endpoint: Endpoint, paths: readonly string[], quote: string): string {
    const seg = quote === '`' ? 'pbt' : quote === "'" ? 'psq' : 'pdq';
    if (!this.rules.has(seg)) {
      const chars = `A-Za-z0-9\\-._~!$&()*+,;=:@%<>${quote === "'" ? '"' : "'"}`;
      // A `<placeholder>` may hold what the engine's does (words, digits, `_-. `), spaces included.
      this.add(seg, quote === '`' ? `( [${chars}] | "<" [A-Za-z0-9_\\-. ]+ ">" | "\${" bref "}" )+` : `( [${chars}] | "<" [A-Za-z0-9_\\-. ]+ ">" )+`);
    }
    // Templates: a server variable (`bot{token}`) or path parameter takes a segment value.
    const template = (text: string): string =>
      text
        .split(/(\{[^}]+\})/)
        .filter((p) => p !== '')
        .map((p) => (/^\{[^}]+\}$/.test(p) ? seg : lit(p)))
        .join(' ');
    const servers = endpoint.servers.map(template).map((t) => `( ${t} )`).join(' | ');
    // `/` alone may be left off, as the engine allows.
    const path = (text: string): string => (text === '/' ? '"/"?' : text === '' ? '""' : template(text));
    return `${lit(quote)} ( ${servers} ) ( ${paths.map(path).join(' | ')} ) ${lit(quote)}`;
  }

  endpoint(endpoint: Endpoint): string {
    // A key with a query part (Etherscan's `/?module=...`): the part in `params`, or spelled in the URL with its own rules.
    const forms = urlForms(endpoint).map(({ paths, endpoint: ruled }) => {
      const r = this.compiled.rulesOf(ruled);
      const urls = QUOTES.map((q) => `( ${this.url(endpoint, paths, q)} )`).join(' | ');
      const config = r.config ? this.object(r.config) : undefined;
      const configPart = config ? (r.configRequired ? ` ws "," ws ${config}` : ` ( ws "," ws ${config} )?`) : '';
      const data = this.value(r.data);
      // A form body's object may be wrapped (constraints.md); `qs` only where it is a name in scope.
      const wrapped = r.form ? formWrappers(this.compiled.scope).map((w) => ` | ${lit(w)} ws ${data} ws ")"`).join('') : '';
      const args = r.hasDataArgument ? ` ws "," ws ( ${data}${wrapped} )${configPart}` : configPart;
      return `( ${urls} )${args} ws ( "," ws )? ")"`;
    });
    return this.add(this.fresh('call'), forms.map((f) => `( ${f} )`).join(' | '));
  }

  write(spec: ApiSpec): string {
    const methods = this.compiled.methods.map((method) => {
      const calls = spec.endpoints.filter((e) => e.method === method).map((e) => this.endpoint(e));
      return this.add(`m-${method}`, `${lit(method)} ws "(" ws ( ${calls.join(' | ')} ) ws term`);
    });
    const root = `root ::= ( ${methods.join(' | ')} ) rest`;
    return HEADER + [root, ...[...this.rules].map(([name, body]) => `${name} ::= ${body}`)].join('\n') + '\n';
  }
}

/**
 * The spec's constraint language as a GBNF grammar (a relaxation; the header says how), for code
 * that has declared `names` before the call (see declaredNames; none: only process.env).
 */
export function exportGbnf(spec: ApiSpec, names: readonly string[] = []): string {
  const compiled = compileConstraints(spec, names);
  return new GrammarWriter(compiled, [...compiled.scope.declared]).write(spec);
}
