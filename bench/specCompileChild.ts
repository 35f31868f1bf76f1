// One spec's compile, in a process of its own so its peak memory is its own (see specCompile.ts).
import fs from 'node:fs';
import path from 'node:path';
import { compileConstraints, ConstraintMatcher, exportGbnf } from '../main/constraints/index.js';
import { checkRequest } from '../main/dataset/index.js';
import { importSpecFile, loadSpec, resolveEndpoint } from '../main/openapi/index.js';

const file = process.argv[2]!;
const text = fs.readFileSync(file, 'utf8');
// CPU time of this process per phase (user + system), beside wall time: on a shared machine the
// wall clock measures the neighbours as much as the work.
const times: Record<string, number> = {};
const wall: Record<string, number> = {};
const time = async <T>(name: string, run: () => T | Promise<T>): Promise<T> => {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const value = await run();
  const cpu = process.cpuUsage(c0);
  times[name] = (cpu.user + cpu.system) / 1000;
  wall[name] = performance.now() - t0;
  return value;
};
const imported = await time('import', () => importSpecFile({ filename: path.basename(file), content: text }));
if (!imported.ok) throw new Error(imported.error.message);
const loaded = await time('load', () => loadSpec(imported.value.file.content, path.basename(file)));
if (!loaded.ok) throw new Error(loaded.error.message);
const spec = loaded.value;
// One request per endpoint, on its first server with every path parameter filled: what checks and coverage do per sample.
const requests = spec.endpoints.map((e) => ({
  method: e.method,
  url: (e.servers[0] ?? '').replace(/\{[^}]+\}/g, 'x') + (e.path.split('?', 1)[0] ?? '').replace(/\{[^}]+\}/g, '1'),
  params: Object.fromEntries(e.parameters.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, '1'])),
}));
await time('checks', () => requests.forEach((r) => checkRequest(spec, r)));
await time('coverage', () => requests.filter((r) => resolveEndpoint(spec, r.url, r.method, r.params).endpoint !== undefined).length);
await time('constraints', () => {
  const compiled = compileConstraints(spec);
  for (const method of compiled.methods) compiled.urlTrie(method);
  for (const endpoint of spec.endpoints) compiled.rulesOf(endpoint);
  // And a matcher primed through one URL, as a constrained run starts.
  return ConstraintMatcher.create(spec).feed("axios.get('");
});
const gbnf = await time('gbnf', () => exportGbnf(spec));
process.stdout.write(JSON.stringify({ bytes: Buffer.byteLength(text), endpoints: spec.endpoints.length, gbnfBytes: gbnf.length, times, wall, peakRssMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
