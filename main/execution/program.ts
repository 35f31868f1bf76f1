/**
 * Turns generated code into a script the sandbox can run: ES `import`s of modules become
 * `require` calls (a context runs scripts, not modules), and the whole program runs inside an
 * async function so top-level `await` works. That function sits in a module function, as Node
 * wraps a CommonJS file, so `require`, `module`, `exports`, `__filename` and `__dirname` are the
 * program's own parameters and not globals a program could replace for itself. The sandbox's
 * runner evaluates the script to that module function, calls it, and records a rejection of the
 * promise it returns (see CAPTURE in prelude.ts).
 */
const IMPORT_RE = /^[ \t]*import\s+(?:(\*\s+as\s+[\w$]+)|([\w$]+)?\s*,?\s*(\{[^}]*\})?)\s*from\s*(['"])([^'"]+)\4\s*;?|^[ \t]*import\s*(['"])([^'"]+)\6\s*;?/gm;

function rewriteNamed(named: string): string {
  return named.replace(/([\w$]+)\s+as\s+([\w$]+)/g, '$1: $2');
}

export function rewriteImports(code: string): string {
  return code.replace(IMPORT_RE, (whole, star: string | undefined, def: string | undefined, named: string | undefined, _q: string, from: string | undefined, _q2: string, bare: string | undefined) => {
    if (bare) return `require(${JSON.stringify(bare)});`;
    const source = `require(${JSON.stringify(from)})`;
    if (star) return `const ${star.replace(/^\*\s+as\s+/, '')} = ${source};`;
    const parts: string[] = [];
    if (def) parts.push(`const ${def} = ${source};`);
    if (named) parts.push(`const ${rewriteNamed(named)} = ${source};`);
    return parts.join(' ') || whole;
  });
}

/** The script the sandbox evaluates for a program: the module function (the program starts on its line 2). */
export function wrapProgram(code: string): string {
  return `(function (exports, require, module, __filename, __dirname) { return (async () => {\n${rewriteImports(code)}\n})(); })\n`;
}
