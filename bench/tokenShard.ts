import { pretokenized } from './pretokenized.js';
import { apartContext, measureRange, type NativeGrammar } from './tokens.js';
import { loadXGrammar } from './xgrammar.js';

// One range of the token bench's samples in a process of its own (see measureRangeApart in tokens.ts):
// argv wapiibench, vocabulary file, first sample, end, native full masks; the result goes back over IPC.
const [wapiibench, vocabPath, from, to, nativeMasks] = process.argv.slice(2) as [string, string, string, string, string];
// WAPII_BENCH_TOKENIZED=file: llama.cpp's tokens from a file, no llama.cpp here (see pretokenized.ts).
const tokenized = process.env['WAPII_BENCH_TOKENIZED'];
const loadModel = async (file: string): Promise<NativeGrammar> => (tokenized ? pretokenized(tokenized) : (await import('./native.js')).nativeGrammar(file));
const context = await apartContext(wapiibench, vocabPath, loadModel, loadXGrammar());
const result = await measureRange(context, Number(from), Number(to), Number(nativeMasks));
process.send!(result, () => process.exit(0));
