import type * as acorn from 'acorn';
import { isDummy, parse } from 'acorn-loose';
import type { Setup } from '../api/setup.js';

/**
 * The names a program has declared at the end of a piece of code (the starter code before an
 * invocation): the references a constrained value may use without a ReferenceError.
 *
 * Read from acorn-loose's syntax tree: a real JavaScript parser (function parameters, `const x = 1`
 * without a semicolon, destructuring, imports, regular expressions and templates as the language
 * has them) that is error tolerant, so a starter that stops inside a function or an expression
 * (`const response = await axios.`) still parses, its open nodes ending at the end of the text.
 * The answer errs on the safe side: a name is listed only where it is certainly bound and
 * initialised at the end of the text (scopes closed before the end drop their names; a declarator
 * still open there is in its temporal dead zone and is left out).
 */
export function declaredNames(code: string): string[] {
  let program: acorn.Program;
  try {
    program = parse(code, { ecmaVersion: 'latest', sourceType: 'module', allowAwaitOutsideFunction: true, allowReturnOutsideFunction: true, allowHashBang: true });
  } catch {
    return [];
  }
  // Nodes end at their last token: whitespace after the code's last token is not inside them.
  const end = code.trimEnd().length;
  const names = new Set<string>();
  /** Whether `node` (a function body, block, ...) is still open where the code ends. */
  const openAtEnd = (node: acorn.Node): boolean => node.start < end && (node.end > end || (node.end === end && !(/Block|SwitchCase/.test(node.type) && code[end - 1] === '}')));
  /**
   * A declarator or class finished at the end (and not one acorn-loose patched up with a dummy):
   * one that reaches the last token is finished only when something (a line break) follows it
   * (`const id = 42\n`); `let x = x` at the very end is still open.
   */
  const finished = (node: acorn.Node): boolean => (node.end < end || (node.end === end && end < code.length)) && !containsDummy(node);

  const declare = (statements: readonly acorn.Node[]): void => {
    for (const s of statements) {
      const node = unwrapExport(s);
      if (node.type === 'VariableDeclaration') {
        for (const d of (node as acorn.VariableDeclaration).declarations) if (finished(d)) patternNames(d.id, names);
      } else if (node.type === 'FunctionDeclaration') {
        // Hoisted: callable wherever the scope is.
        const id = (node as acorn.FunctionDeclaration).id;
        if (id && !isDummy(id)) names.add(id.name);
      } else if (node.type === 'ClassDeclaration') {
        const id = (node as acorn.ClassDeclaration).id;
        if (id && finished(node)) names.add(id.name);
      } else if (node.type === 'ImportDeclaration') {
        for (const spec of (node as acorn.ImportDeclaration).specifiers) names.add(spec.local.name);
      }
    }
  };

  // Down the chain of nodes still open at the end, each scope adding what it binds there.
  let at: acorn.Node | undefined = program;
  declare(program.body);
  while (at) {
    const next = openChild(at, end);
    if (!next) break;
    switch (next.type) {
      case 'FunctionDeclaration':
      case 'FunctionExpression':
      case 'ArrowFunctionExpression': {
        const fn = next as acorn.Function;
        if (!openAtEnd(fn.body)) break;
        for (const p of fn.params) patternNames(p, names);
        if (fn.type === 'FunctionExpression' && fn.id) names.add(fn.id.name);
        if (fn.body.type === 'BlockStatement') declare(fn.body.body);
        break;
      }
      case 'BlockStatement':
      case 'StaticBlock':
        if (openAtEnd(next)) declare((next as acorn.BlockStatement).body);
        break;
      case 'SwitchCase':
        if (openAtEnd(next)) declare((next as acorn.SwitchCase).consequent);
        break;
      case 'CatchClause': {
        const clause = next as acorn.CatchClause;
        if (clause.param && openAtEnd(clause.body)) patternNames(clause.param, names);
        break;
      }
      case 'ForStatement':
      case 'ForInStatement':
      case 'ForOfStatement': {
        const loop = next as acorn.ForStatement | acorn.ForInStatement | acorn.ForOfStatement;
        const head = loop.type === 'ForStatement' ? loop.init : loop.left;
        if (head?.type === 'VariableDeclaration' && openAtEnd(loop.body)) for (const d of head.declarations) patternNames(d.id, names);
        break;
      }
    }
    at = next;
  }
  names.delete('✖');
  return [...names].sort();
}

/**
 * The names in scope where a setup's call begins: what the starter declares before `callStart`
 * (see declaredNames) and the sample's `definitions` (the real-world dataset's variables, run as
 * `const <name> = <json>;` before the call).
 */
export function namesInScope(setup: Pick<Setup, 'starter' | 'callStart' | 'definitions'>): string[] {
  return [...new Set([...declaredNames(setup.starter.slice(0, setup.callStart)), ...Object.keys(setup.definitions)])].sort();
}

const unwrapExport = (node: acorn.Node): acorn.Node =>
  (node.type === 'ExportNamedDeclaration' || node.type === 'ExportDefaultDeclaration') && (node as acorn.ExportNamedDeclaration).declaration
    ? ((node as acorn.ExportNamedDeclaration).declaration as acorn.Node)
    : node;

function patternNames(node: acorn.Node | null | undefined, out: Set<string>): void {
  if (!node) return;
  switch (node.type) {
    case 'Identifier':
      if (!isDummy(node)) out.add((node as acorn.Identifier).name);
      return;
    case 'ObjectPattern':
      for (const p of (node as acorn.ObjectPattern).properties) patternNames(p.type === 'RestElement' ? p : p.value, out);
      return;
    case 'ArrayPattern':
      for (const e of (node as acorn.ArrayPattern).elements) patternNames(e, out);
      return;
    case 'AssignmentPattern':
      patternNames((node as acorn.AssignmentPattern).left, out);
      return;
    case 'RestElement':
      patternNames((node as acorn.RestElement).argument, out);
      return;
  }
}

const isNode = (v: unknown): v is acorn.Node => typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string';

function children(node: acorn.Node): acorn.Node[] {
  const out: acorn.Node[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'loc' || key === 'range') continue;
    if (Array.isArray(value)) for (const v of value) if (isNode(v)) out.push(v);
    if (isNode(value)) out.push(value);
  }
  return out;
}

/** The child whose text reaches the end of the code (the construct the code stops inside), if any. */
function openChild(node: acorn.Node, end: number): acorn.Node | undefined {
  let found: acorn.Node | undefined;
  for (const child of children(node)) if (child.start < end && child.end >= end) found = child;
  return found;
}

function containsDummy(node: acorn.Node): boolean {
  if (node.type === 'Identifier' && isDummy(node)) return true;
  return children(node).some(containsDummy);
}
