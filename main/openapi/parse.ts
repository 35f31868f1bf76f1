import { Composer, LineCounter, Parser } from 'yaml';
import { fail, ok, type Result } from '../api/result.js';
import { parseJsonStrictly } from './json.js';
import { deepCstNode, MAX_NESTING, shortPath, valueProblem } from './nesting.js';

/**
 * How many alias references a spec may expand (the yaml package's own guard against "billion
 * laughs"); WAPIIBench's Asana spec needs under 100.
 */
const MAX_ALIAS_COUNT = 1000;

/** The key written at `offset` (where the yaml package reports a duplicate), unquoted. */
function keyAt(text: string, offset: number): string {
  const end = text.indexOf('\n', offset);
  const rest = text.slice(offset, end === -1 ? undefined : end);
  const quoted = /^"((?:[^"\\]|\\.)*)"|^'((?:[^']|'')*)'/.exec(rest);
  return quoted ? (quoted[1] ?? quoted[2] ?? '') : (/^[^:,}\]]*/.exec(rest)?.[0].trim() ?? '');
}

/**
 * Parses YAML (a superset of JSON) so both formats report errors with line and column. Bad input
 * is refused with one line, never altered: duplicate keys (where a parser would keep the last),
 * alias bombs, nesting deeper than MAX_NESTING and `__proto__` keys.
 */
export function parseSpecText(text: string, filename: string): Result<Record<string, unknown>> {
  const format = filename.toLowerCase().endsWith('.json') ? 'JSON' : 'YAML';
  // JSON.parse with the same refusals (parseJsonStrictly) takes 70 ms and little memory where the
  // YAML parser's syntax tree took 4.4 s and 660 MB on GitHub's 13 MB description. Only a text it
  // refuses goes on to the YAML parser below, which says where, as for a YAML file.
  if (format === 'JSON') {
    const fast = parseJsonStrictly(text, filename);
    if (fast.ok && typeof fast.value === 'object' && fast.value !== null && !Array.isArray(fast.value)) return ok(fast.value as Record<string, unknown>);
  }
  const lines = new LineCounter();
  const where = (offset: number): string => {
    const pos = lines.linePos(offset);
    return `line ${pos.line}, column ${pos.col}`;
  };
  // parseDocument in two steps, so the syntax tree's depth is checked before the composer recurses into it.
  const tokens = [...new Parser(lines.addNewLine).parse(text)];
  const deep = deepCstNode(tokens);
  if (deep !== undefined) return fail('bad_input', `${filename}: nesting deeper than ${MAX_NESTING} levels at ${where(deep)}`);
  const docs = [...new Composer({ uniqueKeys: true }).compose(tokens, true, text.length)];
  const doc = docs[0];
  if (!doc) return fail('bad_input', `${filename}: the document is empty`);
  const error = doc.errors[0] ?? (docs.length > 1 ? { code: 'MULTIPLE_DOCS', pos: docs[1]?.range ?? [0, 0], message: 'more than one YAML document' } : undefined);
  if (error) {
    const at = where(error.pos[0]);
    if (error.code === 'DUPLICATE_KEY') {
      const key = keyAt(text, error.pos[0]);
      return fail('bad_input', `${filename}: duplicate key "${key}" at ${at}; keys must be unique (a parser would silently keep only the last)`);
    }
    if (error.code === 'RESOURCE_EXHAUSTION') return fail('bad_input', `${filename}: nesting too deep to parse at ${at}`);
    const reason = error.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? 'syntax error';
    return fail('bad_input', `${filename}: malformed ${format} at ${at}: ${reason}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    if (error instanceof ReferenceError && /alias/i.test(error.message)) {
      return fail('bad_input', `${filename}: YAML aliases expand to more than ${MAX_ALIAS_COUNT} references (an alias bomb?); refusing to expand them`);
    }
    return fail('bad_input', `${filename}: cannot read the ${format} document: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('bad_input', `${filename}: an OpenAPI document must be an object at the top level`);
  }
  const problem = valueProblem(value);
  if (problem?.kind === 'too deep') return fail('bad_input', `${filename}: nesting deeper than ${MAX_NESTING} levels at ${shortPath(problem.path)}`);
  if (problem) return fail('bad_input', `${filename}: the key "__proto__" at ${shortPath(problem.path)} is not supported (JavaScript objects cannot keep it as data); rename or remove it`);
  return ok(value as Record<string, unknown>);
}
