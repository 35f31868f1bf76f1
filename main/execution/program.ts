/**
 * Turns generated code into a script the sandbox can run: ES `import`s of modules become
 * `require` calls (a context runs scripts, not modules), and the whole program runs inside an
 * async function so top-level `await` works; the sandbox's runner evaluates it and records a
 * rejection of the promise it returns (see CAPTURE in prelude.ts).
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

/** The script the sandbox compiles for a program. */
export function wrapProgram(code: string): string {
  return `(async () => {\n${rewriteImports(code)}\n})()\n`;
}
