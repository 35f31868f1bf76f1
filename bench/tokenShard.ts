import { nativeGrammar } from './native.js';
import { apartContext, measureApi } from './tokens.js';
import { loadXGrammar } from './xgrammar.js';

// One API's walk of the token bench in a process of its own (see measureApiApart in tokens.ts):
// argv wapiibench, vocabulary file, API, native full masks; the result goes back over IPC.
const [wapiibench, vocabPath, api, nativeMasks] = process.argv.slice(2) as [string, string, string, string];
const context = await apartContext(wapiibench, vocabPath, nativeGrammar, loadXGrammar());
const result = await measureApi(context, api, Number(nativeMasks));
process.send!(result, () => process.exit(0));
