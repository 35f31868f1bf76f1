import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * XGrammar (`@mlc-ai/web-xgrammar`, its WebAssembly build), the state of the art the token bench
 * compares the constraint engine with. The package ships a UMD bundle (the wasm inlined) under a
 * package.json that says `"type": "module"`, so Node would load it as ESM, where its
 * `exports`/`require` test fails; it is read as text and run as the CommonJS module it is.
 */
export interface XGrammar {
  readonly version: string;
  /** The vocabulary as XGrammar prepares it (its TokenizerInfo and GrammarCompiler). */
  prepare(encodedVocab: readonly string[], vocabType: 'byte_level' | 'byte_fallback' | 'raw', stopTokens: readonly number[]): Promise<XGrammarCompiler>;
}
export interface XGrammarCompiler {
  /** A grammar compiled for the vocabulary (XGrammar's adaptive token mask cache built here). */
  compile(ebnf: string): Promise<XGrammarCompiled>;
  /** A matcher at the grammar's start; the vocabulary's stop tokens end it. */
  matcher(grammar: XGrammarCompiled): Promise<XGrammarMatcher>;
}
export type XGrammarCompiled = { readonly compiled: object };
export interface XGrammarMatcher {
  acceptToken(token: number): boolean;
  /** Allowed tokens as bits (1 = allowed), word w bit b for token 32w + b: the engine's layout. */
  getNextTokenBitmask(): Promise<Int32Array>;
  reset(): void;
  dispose(): void;
}

/** The parts of the package's API the bench uses (lib/xgrammar.d.ts). */
interface Package {
  TokenizerInfo: { createTokenizerInfo(vocab: string[], type: string, prependSpace: boolean, size?: number, stop?: number[]): Promise<object> };
  GrammarCompiler: { createGrammarCompiler(info: object, cache?: boolean): Promise<{ compileGrammar(ebnf: string, root?: string): Promise<object> }> };
  GrammarMatcher: { createGrammarMatcher(compiled: object, stop?: number[], terminateWithoutStop?: boolean): Promise<XGrammarMatcher> };
}

export function loadXGrammar(): XGrammar {
  const require = createRequire(import.meta.url);
  const file = require.resolve('@mlc-ai/web-xgrammar');
  const version = (JSON.parse(fs.readFileSync(path.join(path.dirname(file), '..', 'package.json'), 'utf8')) as { version: string }).version;
  const module = { exports: {} as Package };
  // A Function, not vm.runInThisContext: the bundle's `await import('module')` needs the main context's loader.
  const wrapped = new Function('exports', 'require', 'module', '__filename', '__dirname', `${fs.readFileSync(file, 'utf8')}\n//# sourceURL=${file}`) as (...args: unknown[]) => void;
  wrapped(module.exports, createRequire(file), module, file, path.dirname(file));
  const xg = module.exports;
  return {
    version,
    async prepare(encodedVocab, vocabType, stopTokens) {
      const info = await xg.TokenizerInfo.createTokenizerInfo([...encodedVocab], vocabType, false, encodedVocab.length, [...stopTokens]);
      const compiler = await xg.GrammarCompiler.createGrammarCompiler(info, false);
      return {
        compile: async (ebnf) => ({ compiled: await compiler.compileGrammar(ebnf, 'root') }),
        matcher: (grammar) => xg.GrammarMatcher.createGrammarMatcher(grammar.compiled, [...stopTokens], false),
      };
    },
  };
}

/**
 * The engine's GBNF as XGrammar reads it: llama.cpp reads `\xHH` as two hex digits, XGrammar as
 * all the hex digits that follow (`[^\x00-\x1f0-9]` would hold U+01F0), so each becomes `\u00HH`.
 * A backslash that is itself escaped (`\\x41` is a backslash and `x41`) is left alone.
 */
export const gbnfForXGrammar = (gbnf: string): string => gbnf.replace(/(?<!\\)((?:\\\\)*)\\x([0-9A-Fa-f]{2})/g, '$1\\u00$2');
