import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../main/store/index.js';
import { DEMO_SPECS, REPO_ROOT, tempDir } from '../support/paths.js';
import { watchMemory } from '../support/processWatch.js';

/**
 * Programs written to break the host, one per class of issue #12, each scored with three correct
 * programs after it in one real `wapii score` process: the process must finish (no hang, abort or
 * crash), stay under 600 MB with each of its sandbox processes, keep scoring the correct programs
 * `correct`, and never score a forged or disguised request `correct`.
 */
const W = 'https://api.harbor.example/v2/warehouses';
const AUTH = `headers: { Authorization: 'Bearer <token>' }`;
const GET_OK = `axios.get('${W}', { ${AUTH}, params: { region: 'eu', limit: 10 } });`;
const BODY = `{ name: 'Rotterdam North', address: { name: 'Harbor NL', street: 'Havenweg 12', city: 'Rotterdam', postal_code: '3011', country: 'NL' }, capacity_pallets: 1200 }`;
const POST_HEADERS = `headers: { Authorization: 'Bearer <token>', 'Content-Type': 'application/json' }`;
const POST_OK = `axios.post('${W}', ${BODY}, { ${POST_HEADERS} });`;

const LIST = { url: W, method: 'get', headers: { Accept: 'application/json, text/plain, */*', Authorization: 'Bearer <token>' }, params: { region: 'eu', limit: 10 } };
const CREATE = {
  url: W,
  method: 'post',
  headers: { Accept: 'application/json, text/plain, */*', Authorization: 'Bearer <token>', 'Content-Type': 'application/json' },
  data: { name: 'Rotterdam North', address: { name: 'Harbor NL', street: 'Havenweg 12', city: 'Rotterdam', postal_code: '3011', country: 'NL' }, capacity_pallets: 1200 },
};

/** [class, name, code before the call, the call, what it is scored against, whether `correct` would be a forgery, or is what Node's run of it earns]. */
type Case = readonly [string, string, string, string, 'list' | 'create', 'forged' | 'any' | 'correct'];
const loop = '{ for (;;) {} }';
const CASES: readonly Case[] = [
  ['hang', 'getter loop on a thrown error', `throw Object.defineProperty(new Error('x'), 'message', { get() ${loop} });`, GET_OK, 'list', 'forged'],
  ['hang', 'getter loop thrown outside the async wrapper', `})(); throw { get message() ${loop}, get stack() ${loop} }; (async () => {`, GET_OK, 'list', 'forged'],
  ['hang', 'getter loop thrown from a timer', `setTimeout(() => { throw { get message() ${loop}, get stack() ${loop} }; }, 5);`, GET_OK, 'list', 'forged'],
  ['hang', 'getter loop thrown from a microtask', `queueMicrotask(() => { throw Object.defineProperty(new Error('m'), 'stack', { get() ${loop} }); });`, GET_OK, 'list', 'forged'],
  ['hang', 'unhandled rejection with a looping getter', `Promise.reject(Object.defineProperty(new Error('r'), 'message', { get() ${loop} }));`, GET_OK, 'list', 'forged'],
  ['hang', 'unhandled rejection of a looping proxy', `Promise.reject(new Proxy({}, { get() ${loop}, ownKeys() ${loop}, getOwnPropertyDescriptor() ${loop}, getPrototypeOf() ${loop} }));`, GET_OK, 'list', 'forged'],
  ['hang', 'thrown value whose toString loops', `throw { toString() ${loop}, valueOf() ${loop} };`, GET_OK, 'list', 'forged'],
  ['abort', 'Atomics.waitAsync with a timeout', `Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(16)), 0, 0, 1000);`, GET_OK, 'list', 'forged'],
  ['abort', 'a Map with 5M entries', `const m = new Map(); for (let i = 0; i < 5e6; i++) m.set(i, { i });`, GET_OK, 'list', 'forged'],
  ['abort', 'a 500k-key object body', `const big = {}; for (let i = 0; i < 5e5; i++) big['k' + i] = i;`, `axios.post('${W}', big, { ${POST_HEADERS} });`, 'create', 'forged'],
  ['lost', 'a forged record handed to the adapter (method 42)', `require('axios').defaults.adapter({ method: 42, url: '${W}', headers: {} });`, GET_OK, 'list', 'forged'],
  ['lost', 'Object.prototype.toJSON returning null', `Object.prototype.toJSON = () => null;`, GET_OK, 'list', 'any'],
  ['lost', 'Object.prototype.toJSON returning undefined', `Object.prototype.toJSON = function () { return undefined; };`, POST_OK, 'create', 'any'],
  ['lost', 'a Blob without its internal text', `const fake = Object.create(Blob.prototype);`, `axios.post('${W}', fake, { ${POST_HEADERS} });`, 'create', 'forged'],
  ['lost', 'a 100k-deep JSON text body', `const deep = '['.repeat(1e5) + ']'.repeat(1e5);`, `axios.post('${W}', deep, { ${POST_HEADERS} });`, 'create', 'forged'],
  ['lost', 'a 100k-deep object body', `let deep = {}; for (let i = 0; i < 1e5; i++) deep = { deep };`, `axios.post('${W}', deep, { ${POST_HEADERS} });`, 'create', 'forged'],
  ['memory', 'WebAssembly memory', `const mem = new WebAssembly.Memory({ initial: 30000 }); new Uint8Array(mem.buffer).fill(1);`, GET_OK, 'list', 'forged'],
  ['memory', '1M query parameters', `const many = '${W}?' + 'a=1&'.repeat(1e6);`, `axios.get(many, { ${AUTH}, params: { region: 'eu', limit: 10 } });`, 'list', 'forged'],
  ['memory', 'a 2 GB ArrayBuffer', `const b = new Uint8Array(2 ** 31); b.fill(1);`, GET_OK, 'list', 'forged'],
  ['memory', '10M retained strings', `const keep = []; for (let i = 0; i < 1e7; i++) keep.push('x' + i);`, GET_OK, 'list', 'forged'],
  ['forged', 'a fake record pushed into the old capture store', `try { globalThis.__wapii.requests.push({ method: 'get', url: '${W}', headers: { Authorization: 'Bearer <token>' }, params: { region: 'eu', limit: 10 }, body: { kind: 'none' } }); } catch (e) {}`, `axios.get('https://api.harbor.example/v2/me');`, 'list', 'forged'],
  ['forged', 'a guessed host channel', `try { __wapiiHost('request', JSON.stringify({ method: 'get', url: '${W}', fullPath: '${W}', headers: {}, params: { region: 'eu', limit: 10 }, body: { kind: 'none' } })); } catch (e) {}`, `axios.get('https://api.harbor.example/v2/me');`, 'list', 'forged'],
  ['forged', 'the request rewritten from a timer', `require('axios').interceptors.request.use((c) => { setTimeout(() => { c.url = '${W}'; c.params = { region: 'eu', limit: 10 }; c.headers.Authorization = 'Bearer <token>'; }, 0); return c; });`, `axios.get('https://api.harbor.example/v2/me');`, 'list', 'forged'],
  ['forged', 'String replaced', `globalThis.String = function () { return '${W}'; };`, `axios.get('https://api.harbor.example/v2/me', { ${AUTH}, params: { region: 'eu', limit: 10 } });`, 'list', 'forged'],
  ['forged', 'JSON.stringify and Object.prototype.toJSON replaced', `const realStringify = JSON.stringify; JSON.stringify = () => realStringify({ requests: [{ method: 'get', url: '${W}' }] }); Object.prototype.toJSON = function () { return { url: '${W}' }; };`, `axios.get('https://api.harbor.example/v2/me');`, 'list', 'forged'],
  ['disguised', 'a paramsSerializer that sends other params', '', `axios.get('${W}', { ${AUTH}, params: { region: 'eu', limit: 10 }, paramsSerializer: () => 'region=us&limit=10' });`, 'list', 'forged'],
  ['disguised', 'baseURL with allowAbsoluteUrls: false', '', `axios.get('${W}', { baseURL: 'https://evil.example/', allowAbsoluteUrls: false, ${AUTH}, params: { region: 'eu', limit: 10 } });`, 'list', 'forged'],
  ['disguised', 'a protocol-relative URL', '', `axios.get('//api.harbor.example/v2/warehouses', { baseURL: 'https://api.harbor.example/v2', ${AUTH}, params: { region: 'eu', limit: 10 } });`, 'list', 'forged'],
  ['disguised', 'a body transformRequest leaves an object', '', `axios.post('${W}', ${BODY}, { ${POST_HEADERS}, transformRequest: [(d) => d] });`, 'create', 'forged'],
  ['disguised', '%3F inside a path segment', '', `axios.get('${W}%3Fregion=eu', { ${AUTH}, params: { limit: 10 } });`, 'list', 'forged'],
  ['disguised', 'a repeated query key', '', `axios.get('${W}?region=us&region=eu', { ${AUTH}, params: { limit: 10 } });`, 'list', 'forged'],
  ['disguised', 'a __proto__ query key', '', `axios.get('${W}?__proto__=x', { ${AUTH}, params: { region: 'eu', limit: 10 } });`, 'list', 'forged'],
  // Issue 23 (20-24) and the global fetch (issue 25 item 5).
  ['hang', 'fetch headers whose iterator never ends', `fetch('${W}?region=eu&limit=10', { headers: { [Symbol.iterator]: function* () { for (;;) yield ['Authorization', 'Bearer <token>']; } } });`, GET_OK, 'list', 'forged'],
  ['memory', 'a fetch body past 1 MB', `fetch('${W}', { method: 'POST', headers: { Authorization: 'Bearer <token>' }, body: 'x'.repeat(1.1e6) });`, POST_OK, 'create', 'forged'],
  ['disguised', 'a url getter answering differently on each read', `require('axios').interceptors.request.use((c) => { let n = 0; return Object.defineProperty(c, 'url', { get() { return n++ === 0 ? 'https://api.harbor.example/v2/me' : '${W}'; } }); });`, GET_OK, 'list', 'forged'],
  ['disguised', 'a header value with CR/LF smuggling a second header', '', `axios.get('${W}', { headers: { Authorization: 'Bearer <token>', 'X-Trace': 'a\\r\\nX-Forwarded-Host: evil.example' }, params: { region: 'eu', limit: 10 } });`, 'list', 'forged'],
  ['hang', 'a nextTick loop', `const spin = () => process.nextTick(spin); spin();`, GET_OK, 'list', 'forged'],
  // Issue 36 items 17-19: programs Node ends cleanly, which must not read as broken.
  ['node', 'process.exit(0) at the end of an async main', '', `async function main() { await ${POST_OK.replace(/;$/, '')}; process.exit(0); }\nmain().catch((e) => { console.error(e); process.exit(1); });`, 'create', 'correct'],
  ['node', 'process.exit swallowed by a catch, a request after it', `try { process.exit(0); } catch (e) {}`, GET_OK, 'list', 'forged'],
  ['node', 'the global require replaced', `Function('return this')().require = () => { throw new Error('a fake require'); }; require('axios');`, GET_OK, 'list', 'correct'],
  ['node', "Node 20's globals before the call", `const signal = AbortSignal.any([new AbortController().signal, AbortSignal.timeout(5000)]); structuredClone({ a: [1] }); crypto.randomUUID(); performance.now(); new TextDecoder().decode(new TextEncoder().encode('x')); new Blob(['x']); new ReadableStream(); new URL('${W}');`, GET_OK, 'list', 'correct'],
];

const program = (prefix: string, call: string): string => `// task\nconst axios = require('axios');\n${prefix}\n${call}\n`;

describe('hostile programs through the real `wapii score` process', () => {
  it('contains every class: no hang, abort or crash, under 600 MB, correct programs stay correct, forgeries are not correct', async () => {
    const dir = tempDir();
    const codes = path.join(dir, 'codes');
    fs.mkdirSync(codes);
    const samples: { api: string; task: string; config: unknown }[] = [];
    const kinds: ('hostile' | 'canary')[] = [];
    const add = (config: unknown, code: string, kind: 'hostile' | 'canary'): void => {
      fs.writeFileSync(path.join(codes, `${String(samples.length).padStart(4, '0')}.js`), code);
      samples.push({ api: 'harbor', task: 'hostile', config });
      kinds.push(kind);
    };
    for (const [, , prefix, call, target] of CASES) {
      add(target === 'list' ? LIST : CREATE, program(prefix, call), 'hostile');
      add(LIST, program('', GET_OK), 'canary');
      add(CREATE, program('', POST_OK), 'canary');
      add(LIST, program('const later = 1;', GET_OK), 'canary');
    }
    const dataset = path.join(dir, 'dataset.json');
    fs.writeFileSync(dataset, JSON.stringify(samples));
    const db = path.join(dir, 'wapii.db');

    const child = execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), '--db', db, 'score', '--dataset', dataset, '--specs', DEMO_SPECS, '--codes', codes, '--timeout', '500', '--json', '--save'],
      { maxBuffer: 64 * 1024 * 1024, timeout: 240_000 },
    );
    const stop = watchMemory(child.pid!);
    let stdout = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    const memory = stop();
    console.log(`hostile programs: ${CASES.length} classes, ${samples.length} programs scored; peak RSS ${memory.hostMb.toFixed(0)} MB (wapii score), ${memory.childMb.toFixed(0)} MB (a sandbox process)`);
    expect(exit).toEqual({ code: 0, signal: null });
    const result = JSON.parse(stdout) as { samples: Record<string, { sample_verdict: string; error_verdict: string | null }>; run: number };

    expect(memory.hostMb).toBeGreaterThan(0);
    expect(memory.hostMb).toBeLessThan(600);
    expect(memory.childMb).toBeLessThan(600);

    const verdicts = samples.map((_, i) => result.samples[String(i)]);
    const canaryFailures = verdicts.flatMap((v, i) => (kinds[i] === 'canary' && v?.sample_verdict !== 'correct' ? [`${i} after ${CASES[Math.floor(i / 4)]?.[1]}: ${JSON.stringify(v)}`] : []));
    expect(canaryFailures).toEqual([]);
    const forgeries = CASES.flatMap(([cls, name, , , , expect], c) => (expect === 'forged' && verdicts[c * 4]?.sample_verdict === 'correct' ? [`${cls}: ${name}`] : []));
    expect(forgeries).toEqual([]);
    const misread = CASES.flatMap(([cls, name, , , , expect], c) => (expect === 'correct' && verdicts[c * 4]?.sample_verdict !== 'correct' ? [`${cls}: ${name}: ${JSON.stringify(verdicts[c * 4])}`] : []));
    expect(misread).toEqual([]);

    // Each hostile program has a reason on record, and those that wedged isolated-vm were stopped by the supervisor.
    const opened = Store.open(db);
    if (!opened.ok) throw new Error(opened.error.message);
    const stored = opened.value.getRun(result.run);
    opened.value.close();
    const reasons = new Map(CASES.map(([, name], c) => [name, (stored?.samples.find((s) => s.index === c * 4)?.execution as { error?: { kind: string } } | undefined)?.error?.kind]));
    expect(reasons.get('unhandled rejection with a looping getter')).toBe('timeout');
    expect(reasons.get('a forged record handed to the adapter (method 42)')).toBe('exception');
    expect(reasons.get('WebAssembly memory')).toBe('exception');
    expect(['timeout', 'memory', 'crashed']).toContain(reasons.get('a Map with 5M entries'));
  }, 300_000);
});
