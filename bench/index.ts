import fs from 'node:fs';
import type { ApiSpec } from '../main/openapi/index.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchChecks } from './checks.js';
import { benchSpecCompile } from './specCompile.js';
import { benchConstraints } from './constraints.js';
import { benchTokenConstraints } from './tokens.js';
import { nativeGrammar } from './native.js';
import { loadXGrammar } from './xgrammar.js';
import { vocabFile } from '../test/support/vocab.js';
import { benchExecution } from './execution.js';
import { benchExecutability } from './executability.js';
import { benchGeneration } from './generation.js';
import { benchServe } from './serve.js';
import { benchFirstLoad } from './firstLoad.js';
import { benchResults } from './results.js';
import { benchRetrieval } from './retrieval.js';
import { benchPool } from './pool.js';
import { benchUpstreamSuite } from './upstreamSuite.js';
import { benchCliStart } from './cliStart.js';
import { loadWapiiBench } from '../test/support/wapiibench.js';

// `npm run bench`: every benchmark of the workbench, each measured side by side in one run.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const wapiibench = process.env['WAPIIBENCH'] ?? path.resolve(root, '..', 'shared', 'wapiibench');
if (!fs.existsSync(path.join(wapiibench, 'dataset', 'all.json'))) {
  console.error(`bench: the WAPIIBench data is not at ${wapiibench}; set WAPIIBENCH to its folder`);
  process.exit(1);
}
// `npm run bench -- tokens execution` runs only the named sections.
const only = process.argv.slice(2);
const wanted = (section: string): boolean => only.length === 0 || only.includes(section);
console.log(`# WAPII Workbench benchmarks (node ${process.version}, ${process.platform}/${process.arch})`);
if (wanted('checks')) await benchChecks(wapiibench);
if (wanted('spec-compile')) await benchSpecCompile(wapiibench);
let specs: Map<string, ApiSpec> | undefined;
if (wanted('constraints') || wanted('tokens')) {
  const compiled = await benchConstraints(wapiibench);
  specs = compiled.specs;
  if (wanted('tokens')) await benchTokenConstraints(wapiibench, compiled, vocabFile('qwen2'), nativeGrammar, loadXGrammar());
}
if (wanted('execution')) await benchExecution(wapiibench);
// Named only (`npm run bench -- executability`): a correctness sweep of tens of minutes, not a timing.
if (only.includes('executability')) await benchExecutability();
if (wanted('serve')) await benchServe(wapiibench);
if (wanted('first-load')) await benchFirstLoad();
if (wanted('results')) await benchResults(root);
if (wanted('retrieval')) await benchRetrieval();
if (wanted('pool')) await benchPool();
if (wanted('cli-start')) await benchCliStart(root);
// Named only (`npm run bench -- upstream-suite --dir <folder>`): upstream's third-party cases, fetched by hand, never committed.
if (only.includes('upstream-suite')) await benchUpstreamSuite(only.includes('--dir') ? (only[only.indexOf('--dir') + 1] ?? '') : path.resolve(root, '..', 'upstream-suite'));
// GPU when node-llama-cpp finds one; WAPII_BENCH_GPU=cpu keeps it on the CPU.
if (wanted('generation')) await benchGeneration(wapiibench, specs ?? (await loadWapiiBench()).specs, { gpu: process.env['WAPII_BENCH_GPU'] === 'cpu' ? 'cpu' : 'auto' });
