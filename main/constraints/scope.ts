/**
 * The names a program has declared at the end of a piece of code (the starter code before an
 * invocation): the references a constrained value may use without a ReferenceError.
 *
 * Hand-written rather than acorn/espree because the code is a prefix that stops inside an
 * expression (`const response = await axios.`), which a parser rejects, and because the answer must
 * err on the safe side: a name is listed only where it is certainly bound and initialised at the
 * end of the text (block scopes closed before the end drop their names; a declaration whose
 * initialiser is still open there is in its temporal dead zone and is left out).
 */
export function declaredNames(code: string): string[] {
  const tokens = lex(code);
  const scopes: Scope[] = [{ names: new Set(), close: null, depth: 0 }];
  const brackets: { readonly char: string; readonly at: number; readonly afterFor: boolean }[] = [];
  /** Names of a declaration waiting for the end of their initialiser, at a bracket depth. */
  let pending: { names: string[]; depth: number } | null = null;
  /** Names bound by the next block: function parameters, a catch clause's, a for head's. */
  let nextBlock: string[] = [];
  const top = (): Scope => scopes[scopes.length - 1]!;
  const commit = (): void => {
    if (pending) for (const n of pending.names) top().names.add(n);
    pending = null;
  };

  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const depth = brackets.length;
    if (pending && depth === pending.depth && (t.text === ';' || (t.newlineBefore && endsStatement(tokens[i - 1]) && startsStatement(t)))) commit();
    if (pending && depth === pending.depth && t.text === ',') {
      // The next declarator of the same declaration: the previous one is initialised.
      commit();
      const names: string[] = [];
      i = bindingPattern(tokens, i + 1, names) - 1;
      pending = { names, depth };
      continue;
    }
    // An arrow function with an expression body binds its parameters up to the end of that expression.
    while (top().close === 'expression' && top().depth === depth && (t.text === ',' || t.text === ';')) scopes.pop();
    switch (t.text) {
      case 'const':
      case 'let':
      case 'var': {
        if (t.kind !== 'word' || tokens[i - 1]?.text === '.') break;
        const names: string[] = [];
        i = bindingPattern(tokens, i + 1, names) - 1;
        const forHead = brackets[brackets.length - 1];
        if (forHead?.afterFor) nextBlock.push(...names);
        else pending = { names, depth };
        break;
      }
      case 'function':
      case 'class': {
        if (tokens[i - 1]?.text === '.') break;
        const name = tokens[i + 1];
        // A declaration (not an expression after `=`, `(`, ...) binds its name, hoisted.
        const declaration = i === 0 || t.newlineBefore || [';', '{', '}', 'export', 'async', 'default'].includes(tokens[i - 1]!.text);
        if (name?.kind === 'word' && declaration) top().names.add(name.text);
        if (t.text === 'function') {
          let j = i + 1;
          while (j < tokens.length && tokens[j]!.text !== '(') j++;
          const params: string[] = [];
          j = parameterList(tokens, j + 1, params);
          nextBlock = params;
          i = j - 1;
        }
        break;
      }
      case 'catch':
        if (tokens[i + 1]?.text === '(') {
          const params: string[] = [];
          i = parameterList(tokens, i + 2, params) - 1;
          nextBlock = params;
        }
        break;
      case 'import': {
        // import x from; import {a, b as c} from; import * as ns from
        const names: string[] = [];
        let j = i + 1;
        for (; j < tokens.length && tokens[j]!.text !== 'from' && tokens[j]!.text !== ';'; j++) {
          const w = tokens[j]!;
          const next = tokens[j + 1]?.text;
          if (w.kind === 'word' && next !== 'as' && w.text !== 'as' && w.text !== 'type') names.push(w.text);
        }
        if (tokens[j]?.text === 'from') for (const n of names) top().names.add(n);
        i = j;
        break;
      }
      case '=>': {
        const params: string[] = [];
        const before = tokens[i - 1];
        if (before?.kind === 'word') params.push(before.text);
        else if (before?.text === ')' && before.group !== undefined) parameterList(tokens, before.group + 1, params);
        if (tokens[i + 1]?.text === '{') nextBlock = params;
        else scopes.push({ names: new Set(params), close: 'expression', depth });
        break;
      }
      case '(':
      case '[':
      case '{':
        brackets.push({ char: t.text, at: i, afterFor: t.text === '(' && tokens[i - 1]?.text === 'for' });
        if (t.text === '{') {
          scopes.push({ names: new Set(nextBlock), close: '}', depth: brackets.length });
          nextBlock = [];
        }
        break;
      case ')':
      case ']':
      case '}': {
        const open = brackets.pop();
        if (t.text === ')' && open) t.group = open.at;
        while (scopes.length > 1 && top().depth > brackets.length) scopes.pop();
        if (pending && pending.depth > brackets.length) pending = null;
        break;
      }
    }
  }
  const names = new Set<string>();
  for (const s of scopes) for (const n of s.names) names.add(n);
  return [...names].filter((n) => !RESERVED.has(n)).sort();
}

interface Scope {
  readonly names: Set<string>;
  /** `}` for a block; `expression` for an arrow function's expression body; null for the program. */
  readonly close: '}' | 'expression' | null;
  /** The bracket depth inside it. */
  readonly depth: number;
}

interface Token {
  readonly text: string;
  readonly kind: 'word' | 'punct' | 'literal';
  readonly newlineBefore: boolean;
  /** For `)`: the index of its `(`. */
  group?: number;
}

const RESERVED = new Set(
  'break case catch class const continue debugger default delete do else export extends false finally for function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static enum await implements package protected interface private public undefined arguments eval as from of async get set type'.split(' '),
);
const CONTINUES = new Set(['in', 'instanceof', 'of', 'as']);

const endsStatement = (t: Token | undefined): boolean => t !== undefined && (t.kind !== 'punct' || t.text === ')' || t.text === ']' || t.text === '}');
const startsStatement = (t: Token): boolean => t.kind === 'word' && !CONTINUES.has(t.text);

/** Reads a binding (name, `{...}` or `[...]` pattern, with defaults) from `i`; returns the index after it and its initialiser. */
function bindingPattern(tokens: readonly Token[], i: number, names: string[]): number {
  i = binding(tokens, i, names);
  // The initialiser: up to a `,` or `;` at this depth (the caller sees those), or the end.
  let depth = 0;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!.text;
    if (depth === 0 && (t === ',' || t === ';' || t === ')' || t === ']' || t === '}' || t === 'of' || t === 'in')) return i;
    if (depth === 0 && tokens[i]!.newlineBefore && endsStatement(tokens[i - 1]) && startsStatement(tokens[i]!)) return i;
    if (t === '(' || t === '[' || t === '{') depth++;
    if (t === ')' || t === ']' || t === '}') depth--;
  }
  return i;
}

/** One binding target: a name, or an object/array pattern whose targets are collected. */
function binding(tokens: readonly Token[], i: number, names: string[]): number {
  const t = tokens[i];
  if (!t) return i;
  if (t.kind === 'word') {
    names.push(t.text);
    return i + 1;
  }
  if (t.text !== '{' && t.text !== '[') return i;
  const close = t.text === '{' ? '}' : ']';
  const object = t.text === '{';
  i++;
  while (i < tokens.length && tokens[i]!.text !== close) {
    const u = tokens[i]!;
    if (u.text === ',') {
      i++;
      continue;
    }
    if (u.text === '...') {
      i = binding(tokens, i + 1, names);
      continue;
    }
    if (object && tokens[i + 1]?.text === ':') {
      // `key: target`: the key names no binding.
      i = binding(tokens, i + 2, names);
    } else if (object && u.text === '[') {
      i = skipGroup(tokens, i);
      if (tokens[i]?.text === ':') i = binding(tokens, i + 1, names);
    } else {
      const at = i;
      i = binding(tokens, i, names);
      if (i === at) i++;
    }
    if (tokens[i]?.text === '=') i = skipExpression(tokens, i + 1);
  }
  return i + 1;
}

/** Parameters up to the `)` that closes a list opened just before `i`; returns the index after it. */
function parameterList(tokens: readonly Token[], i: number, names: string[]): number {
  while (i < tokens.length && tokens[i]!.text !== ')') {
    const u = tokens[i]!;
    if (u.text === ',') {
      i++;
      continue;
    }
    const at = i;
    i = binding(tokens, u.text === '...' ? i + 1 : i, names);
    if (i === at) i++;
    if (tokens[i]?.text === '=') i = skipExpression(tokens, i + 1);
  }
  return i + 1;
}

/** A default value: up to a `,` or a closing bracket at its own depth. */
function skipExpression(tokens: readonly Token[], i: number): number {
  let depth = 0;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!.text;
    if (depth === 0 && (t === ',' || t === ')' || t === ']' || t === '}')) return i;
    if (t === '(' || t === '[' || t === '{') depth++;
    if (t === ')' || t === ']' || t === '}') depth--;
  }
  return i;
}

function skipGroup(tokens: readonly Token[], i: number): number {
  let depth = 0;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!.text;
    if (t === '(' || t === '[' || t === '{') depth++;
    if (t === ')' || t === ']' || t === '}') if (--depth === 0) return i + 1;
  }
  return i;
}

const WORD_START = /[\p{ID_Start}$_]/u;
const WORD = /[\p{ID_Continue}$\u200c\u200d]/u;
const PUNCT = ['...', '=>', '?.', '==', '!=', '<=', '>=', '&&', '||', '??', '++', '--'];
/** After these a `/` starts a regular expression rather than a division. */
const REGEX_AFTER = new Set(['(', ',', '=', ':', '[', '!', '&', '|', '?', '{', '}', ';', '&&', '||', '??', '=>', 'return', 'typeof', '+', '-', '*', '%', '<', '>', '==', '!=']);

/** JavaScript's tokens, as far as declarations need them: comments, strings, templates and regular expressions are skipped. */
function lex(code: string): Token[] {
  const tokens: Token[] = [];
  let newline = false;
  let i = 0;
  const add = (text: string, kind: Token['kind']): void => {
    tokens.push({ text, kind, newlineBefore: newline });
    newline = false;
  };
  while (i < code.length) {
    const c = code[i]!;
    if (c === '\n') {
      newline = true;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (code.startsWith('//', i)) i = code.indexOf('\n', i) < 0 ? code.length : code.indexOf('\n', i);
    else if (code.startsWith('/*', i)) {
      const end = code.indexOf('*/', i + 2);
      if (code.slice(i, end < 0 ? code.length : end).includes('\n')) newline = true;
      i = end < 0 ? code.length : end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      i = skipString(code, i);
      add('""', 'literal');
    } else if (c === '/' && (tokens.length === 0 || REGEX_AFTER.has(tokens[tokens.length - 1]!.text))) {
      i = skipRegex(code, i);
      add('/re/', 'literal');
    } else if (WORD.test(c) || c === '\\') {
      let j = i;
      while (j < code.length && (WORD.test(code[j]!) || code[j] === '\\')) j++;
      const text = code.slice(i, j);
      add(text, /^[0-9]/.test(text) || text.includes('\\') || !WORD_START.test(text[0]!) ? 'literal' : 'word');
      i = j;
    } else {
      const p = PUNCT.find((q) => code.startsWith(q, i)) ?? c;
      add(p, 'punct');
      i += p.length;
    }
  }
  return tokens;
}

function skipString(code: string, i: number): number {
  const q = code[i]!;
  let depth = 0;
  for (let j = i + 1; j < code.length; j++) {
    const c = code[j]!;
    if (c === '\\') j++;
    else if (q === '`' && depth === 0 && c === '$' && code[j + 1] === '{') {
      depth = 1;
      j++;
    } else if (depth > 0 && c === '{') depth++;
    else if (depth > 0 && c === '}') depth--;
    else if (depth === 0 && c === q) return j + 1;
    else if (q !== '`' && c === '\n') return j;
  }
  return code.length;
}

function skipRegex(code: string, i: number): number {
  let inClass = false;
  for (let j = i + 1; j < code.length; j++) {
    const c = code[j]!;
    if (c === '\\') j++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) {
      j++;
      while (j < code.length && /\w/.test(code[j]!)) j++;
      return j;
    } else if (c === '\n') return j;
  }
  return code.length;
}
