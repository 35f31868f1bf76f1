import fs from 'node:fs';
import type { NativeGrammar } from './tokens.js';

/**
 * The token bench without llama.cpp (a machine without node-llama-cpp's binaries): the ground
 * truths' tokens as llama.cpp's tokenizer made them on another machine (written by
 * `WAPII_BENCH_TOKENIZED_WRITE=file`, see tokens.ts), and no grammar of its own (`absent`: its rows
 * are left out). Our masks and XGrammar's are measured as in the full bench: no llama.cpp check
 * ever ended a walk before ours did.
 */
export function pretokenized(file: string): NativeGrammar {
  const tokens = new Map(Object.entries(JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, number[]>));
  return {
    absent: true,
    grammar: () => Promise.resolve(null),
    state: () => null,
    tokenize: (text) => {
      const found = tokens.get(text);
      if (!found) throw new Error(`bench: ${file} has no tokens for a ground truth; write it again on a machine with node-llama-cpp`);
      return found;
    },
    canBeNext: () => true,
    accept: () => undefined,
  };
}
