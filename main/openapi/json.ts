import { parse as parseJsonc, printParseErrorCode, visit, type ParseError } from 'jsonc-parser';
import { fail, ok, type Result } from '../api/result.js';
import { MAX_NESTING, shortPath, valueProblem } from './nesting.js';

/** Where and why JSON text is broken; jsonc-parser reports offsets, which JSON.parse in Node 20 often omits. */
function describeJsonError(text: string): string {
  const errors: ParseError[] = [];
  parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (!first) return 'invalid JSON';
  const before = text.slice(0, first.offset);
  const line = before.split('\n').length;
  const column = first.offset - before.lastIndexOf('\n');
  const reason = printParseErrorCode(first.error).replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return `invalid JSON at line ${line}, column ${column}: ${reason}`;
}

/**
 * The first key that JSON.parse would lose without a word: a duplicate in its object (the last
 * one wins) or `__proto__` (an own property after JSON.parse, but dropped or turned into the
 * prototype by zod's records, spreads into `{}` literals and `obj[key] = value`).
 */
function lostKey(text: string): string | undefined {
  const objects: Map<string, number>[] = [];
  let problem: string | undefined;
  visit(text, {
    onObjectBegin: () => {
      objects.push(new Map());
    },
    onObjectEnd: () => {
      objects.pop();
    },
    onObjectProperty: (key, _offset, _length, line, character) => {
      if (problem) return;
      const at = `line ${line + 1}, column ${character + 1}`;
      const keys = objects.at(-1);
      const first = keys?.get(key);
      if (key === '__proto__') problem = `the key "__proto__" at ${at} is not supported (JavaScript objects cannot keep it as data); rename or remove it`;
      else if (first !== undefined) problem = `duplicate key "${key}" at ${at} (first at line ${first}); keys must be unique (JSON.parse would silently keep only the last)`;
      else keys?.set(key, line + 1);
    },
  });
  return problem;
}

/** How many object members the text spells out: in JSON, every `:` outside a string is one. */
function membersInText(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3a) count++;
    else if (c === 0x22) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
    }
  }
  return count;
}

/** How many object members a parsed value holds (a duplicate key is kept once). */
function membersInValue(value: unknown): number {
  let count = 0;
  const stack = [value];
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    if (typeof v !== 'object' || v === null) continue;
    if (!Array.isArray(v)) count += Object.keys(v).length;
    for (const child of Object.values(v)) if (typeof child === 'object' && child !== null) stack.push(child);
  }
  return count;
}

/**
 * Parses JSON, refusing (with one line naming the place) what would otherwise be altered or crash
 * a later stage: duplicate keys, `__proto__` keys and nesting deeper than MAX_NESTING levels.
 */
export function parseJsonStrictly(text: string, filename: string): Result<unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail('bad_input', `${filename}: ${describeJsonError(text)}`);
  }
  // Depth first: JSON.parse takes any depth, but the key check below (jsonc-parser) and the
  // stages after it (zod, JSON.stringify) recurse.
  const problem = valueProblem(value);
  if (problem?.kind === 'too deep') return fail('bad_input', `${filename}: nesting deeper than ${MAX_NESTING} levels at ${shortPath(problem.path)}`);
  // A duplicate leaves fewer members than the text spells out; a `__proto__` key was found above.
  // Only then is the text walked again to say where (jsonc-parser's visitor is ten times slower than JSON.parse).
  if (problem || membersInValue(value) !== membersInText(text)) {
    const lost = lostKey(text);
    if (lost) return fail('bad_input', `${filename}: ${lost}`);
    if (problem) return fail('bad_input', `${filename}: the key "__proto__" at ${shortPath(problem.path)} is not supported (JavaScript objects cannot keep it as data); rename or remove it`);
  }
  return ok(value);
}
