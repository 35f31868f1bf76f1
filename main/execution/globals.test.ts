import { afterAll, describe, expect, it } from 'vitest';
import { Sandbox } from './index.js';

/**
 * Node 20's globals in the sandbox (issue 36 item 19): each program runs in the sandbox and in
 * this Node process, and prints the same lines in both. Programs print text only, so the two
 * consoles compare as written.
 */
const sandbox = new Sandbox({ timeoutMs: 2000 });
afterAll(() => sandbox.dispose());

type AsyncProgram = (console: { log: (line: string) => void }) => Promise<void>;
const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (param: string, body: string) => AsyncProgram;

async function inNode(code: string): Promise<string[]> {
  const lines: string[] = [];
  await new AsyncFunction('console', code)({ log: (line: string) => lines.push(`log: ${line}`) });
  return lines;
}

function inSandbox(code: string): string[] {
  const run = sandbox.run(code);
  if (run.error) throw new Error(`${run.error.kind}: ${run.error.message}`);
  return [...run.console];
}

const PROGRAMS: Record<string, string> = {
  AbortController: `
    const c = new AbortController(); const seen = [];
    c.signal.addEventListener('abort', (e) => seen.push(e.type + ':' + (e.target === c.signal)));
    c.signal.onabort = () => seen.push('onabort');
    c.signal.addEventListener('abort', () => seen.push('once'), { once: true });
    console.log([c.signal.aborted, c.signal.reason].join());
    c.abort(); c.abort();
    console.log([c.signal.aborted, c.signal.reason.name, c.signal.reason instanceof DOMException, c.signal.reason.code, seen.join('|')].join());
    try { c.signal.throwIfAborted(); } catch (e) { console.log('thrown ' + e.name); }
    const why = AbortSignal.abort('why'); console.log([why.aborted, why.reason].join());
    const a = new AbortController(), b = new AbortController(); const any = AbortSignal.any([a.signal, b.signal]);
    b.abort(new Error('second')); console.log([any.aborted, any.reason.message].join());
    try { new AbortSignal(); } catch (e) { console.log(e.name); }
    console.log(Object.prototype.toString.call(c.signal) + ' ' + (c.signal instanceof EventTarget));`,
  'AbortSignal.timeout': `
    const s = AbortSignal.timeout(10);
    console.log(String(s.aborted));
    await new Promise((resolve) => setTimeout(resolve, 60));
    console.log([s.aborted, s.reason.name, s.reason.message].join());
    try { AbortSignal.timeout(-1); } catch (e) { console.log(e.name); }`,
  structuredClone: `
    class Point { constructor() { this.x = 1; } }
    const o = { d: new Date(0), m: new Map([[1, { a: [1, 2] }]]), s: new Set(['x']), r: /a/gi, u: new Uint8Array([1, 2]), n: null, e: new TypeError('t'), p: new Point(), big: 10n, un: undefined };
    o.self = o; o.list = [o.m, o.m];
    const c = structuredClone(o);
    console.log(JSON.stringify([c.self === c, c !== o, c.d.toISOString(), [...c.m.get(1).a], [...c.s], String(c.r), [...c.u], c.e instanceof TypeError, c.e.message, c.p instanceof Point, c.p.x, String(c.big), 'un' in c, c.list[0] === c.list[1], c.m !== o.m]));
    for (const bad of [() => 1, Symbol('s'), Promise.resolve(), new WeakMap(), { f() {} }]) { try { structuredClone(bad); console.log('cloned'); } catch (e) { console.log(e.name + ' ' + (e instanceof DOMException)); } }
    console.log(JSON.stringify([structuredClone(1), structuredClone('s'), structuredClone(null), structuredClone([1, [2]])]));`,
  performance: `
    const t0 = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 5));
    const t1 = performance.now();
    performance.mark('a'); performance.mark('b');
    const m = performance.measure('a-b', 'a', 'b');
    console.log([typeof t0, t1 >= t0, typeof performance.timeOrigin, m.name, m.entryType, m.duration >= 0, performance.getEntriesByName('a').length].join());`,
  crypto: `
    const id = crypto.randomUUID();
    console.log([/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id), id !== crypto.randomUUID()].join());
    const a = new Uint32Array(4); const back = crypto.getRandomValues(a);
    console.log([back === a, a.length].join());
    for (const bad of [new Float32Array(2), new Uint8Array(65537)]) { try { crypto.getRandomValues(bad); } catch (e) { console.log(e.name); } }`,
  'TextEncoder and TextDecoder': `
    const e = new TextEncoder(), d = new TextDecoder();
    const b = e.encode('héllo €😀');
    console.log([b.length, [...b].join(' '), e.encoding, d.encoding].join());
    console.log([d.decode(b), d.decode(b.subarray(1, 3)), d.decode(b.buffer), d.decode(), d.decode(new Uint8Array([0xff, 0x41])), d.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])).length].join('|'));
    console.log([...e.encode('\\ud800x')].join(' '));
    const r = e.encodeInto('aé€', new Uint8Array(4)); console.log([r.read, r.written].join());
    try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])); } catch (x) { console.log(x.name); }
    console.log(new TextDecoder('UTF8', { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])).length + '');`,
  ReadableStream: `
    const rs = new ReadableStream({ start(c) { c.enqueue('a'); c.enqueue('b'); c.close(); } });
    const out = []; for await (const x of rs) out.push(x);
    const reader = new ReadableStream({ pull(c) { c.enqueue(1); c.close(); } }).getReader();
    const first = await reader.read(), second = await reader.read();
    const upper = new TransformStream({ transform(chunk, c) { c.enqueue(chunk.toUpperCase()); } });
    const piped = []; await new ReadableStream({ start(c) { c.enqueue('x'); c.close(); } }).pipeThrough(upper).pipeTo(new WritableStream({ write(chunk) { piped.push(chunk); } }));
    console.log([out.join(''), first.value, first.done, second.done, piped.join(''), typeof CountQueuingStrategy].join());`,
  Blob: `
    const b = new Blob(['héllo', ' ', new Uint8Array([65, 66]), new Blob(['!'])], { type: 'text/plain' });
    const bytes = new Uint8Array(await b.arrayBuffer());
    console.log([b.size, b.type, await b.text(), bytes.length, bytes[1], await b.slice(1, 3).text(), b.slice(-3).size, b.slice(0, 1, 'x/y').type, Object.prototype.toString.call(b)].join());
    const chunks = []; for await (const c of b.stream()) chunks.push(...c);
    console.log(new TextDecoder().decode(new Uint8Array(chunks)) + ' ' + new Blob().size + ' ' + (await new Blob([new Uint8Array([0xff])]).text()).length);`,
  'URL and URLSearchParams': `
    const show = (u) => [u.href, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash, u.origin].join(' ');
    console.log(show(new URL('https://user:pw@Example.COM:443/a/../b c/./d?x=1 2&y=é#frag')));
    console.log(show(new URL('/v2/items?x=1', 'https://api.test/base/')));
    console.log(show(new URL('items', 'https://api.test/base/x')));
    console.log(show(new URL('../up', 'https://api.test/a/b/c')));
    console.log(show(new URL('?q=1', 'https://api.test/a/b')));
    console.log(show(new URL('#h', 'https://api.test/a?b=1')));
    console.log(show(new URL('//other.test/p', 'https://api.test/')));
    console.log(show(new URL('https://api.test')) + ' ' + show(new URL('http://x.test:80/')) + ' ' + show(new URL('http://x.test:8080')));
    const u = new URL('https://api.test/v1/search?q=old');
    u.searchParams.set('q', 'a b&c'); u.searchParams.append('tag', 'x/y');
    console.log(u.href + ' ' + u.search);
    u.pathname = '/v2/new path'; u.hash = 'top'; console.log(u.toString());
    u.search = '?a=1'; console.log([u.href, u.searchParams.get('a'), JSON.stringify({ u })].join(' '));
    u.href = 'https://other.test/x'; console.log(u.href);
    console.log([URL.canParse('nope'), URL.canParse('/x', 'https://a.test'), URL.canParse('https://a.test')].join());
    try { new URL('/relative'); } catch (e) { console.log(e.name + ' ' + e.code); }
    const sp = new URLSearchParams({ b: 'x y', a: "1*~!'()" });
    sp.append('a', '2'); console.log([sp.toString(), sp.getAll('a').join('+'), sp.size, sp.has('a'), sp.has('a', '2')].join(' '));
    sp.sort(); console.log([...sp.keys()].join() + ' ' + sp);
    console.log(new URLSearchParams('?a=1&a=2&c=%20d+e&&f').toString() + ' ' + new URLSearchParams([['k', 'v']]).get('k'));`,
};

describe("Node 20's globals in the sandbox answer as Node's do", () => {
  for (const [name, code] of Object.entries(PROGRAMS)) {
    it(name, async () => {
      expect(inSandbox(code)).toEqual(await inNode(code));
    });
  }

  it('an aborted signal given to Axios ends the call as a cancel, as in Node', () => {
    const run = sandbox.run(`const axios = require('axios'); const c = new AbortController(); c.abort();
      try { await axios.get('https://x.test/never', { signal: c.signal }); } catch (e) { console.log(e.name, e.code); }
      await axios.get('https://x.test/sent', { signal: AbortSignal.timeout(5000) });`);
    expect(run.console).toEqual(['log: CanceledError ERR_CANCELED']);
    expect(run.requests.map((r) => r.url)).toEqual(['https://x.test/sent']);
  });

  it('hands the program no host object: every native function it can reach is one of the language\'s own', () => {
    // A host function (an isolated-vm Callback or Reference) reads as native code; the language's own are collected first.
    const run = sandbox.run(`const intrinsic = new Set();
      const collect = (v, depth) => {
        if (v === null || (typeof v !== 'object' && typeof v !== 'function') || intrinsic.has(v) || depth > 6) return;
        intrinsic.add(v);
        for (const k of Reflect.ownKeys(v)) { const x = Object.getOwnPropertyDescriptor(v, k); if ('value' in x) collect(x.value, depth + 1); else { collect(x.get, depth + 1); collect(x.set, depth + 1); } }
        collect(Object.getPrototypeOf(v), depth + 1);
      };
      for (const n of ['Object', 'Function', 'Array', 'String', 'Number', 'Boolean', 'Symbol', 'BigInt', 'Math', 'JSON', 'Reflect', 'Proxy', 'Promise', 'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'FinalizationRegistry', 'Date', 'RegExp', 'Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError', 'AggregateError', 'ArrayBuffer', 'DataView', 'Uint8Array', 'Int8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array', 'Intl', 'escape', 'unescape', 'eval', 'isNaN', 'isFinite', 'parseInt', 'parseFloat', 'encodeURIComponent', 'decodeURIComponent', 'encodeURI', 'decodeURI']) collect(globalThis[n], 0);
      collect((function* () {})(), 0); collect((async function* () {})(), 0); collect([][Symbol.iterator](), 0); collect(new Map()[Symbol.iterator](), 0); collect(new Set()[Symbol.iterator](), 0); collect(''[Symbol.iterator](), 0); collect(/x/[Symbol.matchAll](''), 0); collect(async () => {}, 0);
      const names = ['AbortController', 'AbortSignal', 'structuredClone', 'performance', 'crypto', 'TextEncoder', 'TextDecoder', 'ReadableStream', 'WritableStream', 'TransformStream', 'Blob', 'URL', 'URLSearchParams', 'Event', 'EventTarget', 'DOMException'];
      const foreign = [];
      const seen = new Set();
      const walk = (v, path, depth) => {
        if (v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v) || depth > 4) return;
        seen.add(v);
        if (typeof v === 'function' && !intrinsic.has(v) && /\\[native code\\]/.test(Function.prototype.toString.call(v))) foreign.push(path);
        for (const k of Reflect.ownKeys(v)) { let x; try { x = Object.getOwnPropertyDescriptor(v, k); } catch (e) { continue; } if (x && 'value' in x) walk(x.value, path + '.' + String(k), depth + 1); else if (x) { walk(x.get, path + '.get ' + String(k), depth + 1); walk(x.set, path + '.set ' + String(k), depth + 1); } }
        walk(Object.getPrototypeOf(v), path + '.__proto__', depth + 1);
      };
      for (const n of names) walk(globalThis[n], n, 0);
      walk(globalThis, 'globalThis', 0);
      console.log(foreign.join() || 'none');`);
    expect(run.error).toBeUndefined();
    expect(run.console).toEqual(['log: none']);
  });
});
