import { pretokenized } from './pretokenized.js';
import { apartContext, measureApi, type NativeGrammar } from './tokens.js';
import { loadXGrammar } from './xgrammar.js';

// One API's walk of the token bench in a process of its own (see measureApiApart in tokens.ts):
// argv wapiibench, vocabulary file, API, native full masks; the result goes back over IPC.
const [wapiibench, vocabPath, api, nativeMasks] = process.argv.slice(2) as [string, string, string, string];
// WAPII_BENCH_TOKENIZED=file: llama.cpp's tokens from a file, no llama.cpp here (see pretokenized.ts).
const tokenized = process.env['WAPII_BENCH_TOKENIZED'];
const loadModel = async (file: string): Promise<NativeGrammar> => (tokenized ? pretokenized(tokenized) : (await import('./native.js')).nativeGrammar(file));
const context = await apartContext(wapiibench, vocabPath, loadModel, loadXGrammar());
const result = await measureApi(context, api, Number(nativeMasks));
process.send!(result, () => process.exit(0));
