import path from 'node:path';
import { cacheDir } from '../main/generation/vocabularies.js';
import { benchConstraints } from './constraints.js';
import { pretokenized } from './pretokenized.js';
import { benchTokenConstraints } from './tokens.js';
import { loadXGrammar } from './xgrammar.js';

// The token bench alone, without llama.cpp (see pretokenized.ts), for a machine with node and
// nothing else: bundled with esbuild beside tokenShard.mjs, the XGrammar package and the qwen2
// vocabulary in node_modules/.cache/wapii/vocab. argv: the WAPIIBench folder, the tokens file.
const [wapiibench, tokenized] = process.argv.slice(2) as [string, string];
process.env['WAPII_BENCH_TOKENIZED'] = path.resolve(tokenized);
console.log(`# WAPII Workbench token bench (node ${process.version}, ${process.platform}/${process.arch})`);
const compiled = await benchConstraints(wapiibench);
await benchTokenConstraints(wapiibench, compiled, path.join(cacheDir('vocab'), 'ggml-vocab-qwen2.gguf'), () => Promise.resolve(pretokenized(process.env['WAPII_BENCH_TOKENIZED']!)), loadXGrammar());
