/**
 * A grammar of hostile program fragments (getters, proxies, throws, timers, big allocations,
 * prototype edits, odd URLs and encodings, odd configs and bodies), for the fuzz test.
 */
const W = 'https://api.harbor.example/v2/warehouses';

/** mulberry32, the engine's own seeded generator: a failing program can be generated again. */
export { mulberry32 as random } from '../../main/scoring/index.js';

export const CANARY = `// task\nconst axios = require('axios');\n\naxios.get('${W}', { headers: { Authorization: 'Bearer <token>' }, params: { region: 'eu', limit: 10 } });\n`;
export const LIST = { url: W, method: 'get', headers: { Accept: 'application/json, text/plain, */*', Authorization: 'Bearer <token>' }, params: { region: 'eu', limit: 10 } };

/** The grammar: each rule picks one of its alternatives; a weight > 1 makes an alternative likelier. */
export function grammar(next: () => number) {
  const pick = <T>(items: readonly (T | readonly [T, number])[]): T => {
    const weighted = items.map((i) => (Array.isArray(i) && i.length === 2 && typeof i[1] === 'number' ? (i as readonly [T, number]) : ([i as T, 1] as const)));
    let r = next() * weighted.reduce((s, [, w]) => s + w, 0);
    for (const [item, w] of weighted) if ((r -= w) < 0) return item;
    return weighted[weighted.length - 1]![0];
  };
  const n = (): string => pick(['0', '1', '-1', '1e3', '1e5', '1e6', '2 ** 31', 'NaN', 'Infinity', '0.5']);
  // Rare: bodies that loop; each costs a time limit, or (read by isolated-vm outside it) a process.
  const body = (): string => pick<string>(['return 1;', 'return this;', "throw new Error('g');", 'throw 42;', 'return undefined;', "return { toString() { return 'x'; } };", ['for (;;) {}', 0.15]]);
  const value = (depth = 0): string =>
    depth > 2
      ? pick(['1', "'s'", 'null', 'undefined', 'true', '10n', "Symbol('s')", 'NaN', '() => 1'])
      : pick<string>([
          '1',
          "'s'",
          'null',
          'undefined',
          '{}',
          '[]',
          '10n',
          "Symbol('s')",
          'new Date(0)',
          'new Date(NaN)',
          "new Error('e')",
          `{ get g() { ${body()} } }`,
          `new Proxy({}, { get() { ${body()} }, ownKeys() { ${body()} } })`,
          `[${value(depth + 1)}, ${value(depth + 1)}]`,
          `{ a: ${value(depth + 1)}, '__proto__': ${value(depth + 1)}, ['__proto__']: ${value(depth + 1)} }`,
          `new Array(${pick(['3', '1e5'])}).fill(${value(depth + 1)})`,
          `'x'.repeat(${pick(['10', '1e5', '1e7'])})`,
          `(() => { const c = {}; c.c = c; return c; })()`,
          `(() => { let d = {}; for (let i = 0; i < ${pick(['100', '1e5'])}; i++) d = { d }; return d; })()`,
          'new URLSearchParams([["a", "1"], ["a", "2"]])',
          '(() => { const f = new FormData(); f.append("k", "v"); f.append("b", new Blob(["t"])); return f; })()',
          'new Blob(["b"])',
          'Object.create(Blob.prototype)',
          'new Uint8Array([104, 105])',
          'new ArrayBuffer(8)',
          ['Object.defineProperty(new Error("x"), "message", { get() { for (;;) {} } })', 0.05],
        ]);
  const statement = (): string =>
    pick<string>([
      `throw ${value()};`,
      `Promise.reject(${value()});`,
      `setTimeout(() => { ${pick([`throw ${value()};`, body(), 'require("axios").get("https://api.harbor.example/v2/me");'])} }, ${n()});`,
      `setInterval(() => { ${body()} }, ${pick(['0', '1', '10'])});`,
      `queueMicrotask(() => { ${pick([`throw ${value()};`, body()])} });`,
      `process.nextTick(() => { ${body()} });`,
      `const big${Math.floor(next() * 1e6)} = new Array(${pick(['1e3', '1e6', '1e7'])}).fill(${pick(['0', "'x'", '{}'])});`,
      `{ const m = new Map(); for (let i = 0; i < ${pick(['1e3', '1e5', '5e6'])}; i++) m.set(i, i); }`,
      `{ let s = 'x'; for (let i = 0; i < ${pick(['5', '20', '40'])}; i++) s += s; }`,
      `Object.prototype.toJSON = function () { ${body()} };`,
      `Object.defineProperty(Object.prototype, ${pick(["'url'", "'method'", "'headers'", "'data'", "'params'", "'adapter'", "'then'", "'toString'"])}, { get() { ${body()} }, configurable: true });`,
      `Array.prototype.push = function () { ${body()} };`,
      `Array.prototype[Symbol.iterator] = function () { ${body()} };`,
      `String.prototype.toLowerCase = function () { ${body()} };`,
      `String.prototype.replace = function () { ${body()} };`,
      `JSON.stringify = function () { ${body()} };`,
      `JSON.parse = function () { ${body()} };`,
      `Function.prototype.call = function () { ${body()} };`,
      `Function.prototype.apply = function () { ${body()} };`,
      `Promise.prototype.then = function () { ${body()} };`,
      `globalThis.String = function () { ${body()} };`,
      `Object.keys = function () { ${body()} };`,
      `globalThis.URL = function () { ${body()} };`,
      `globalThis.encodeURIComponent = function () { ${body()} };`,
      `require('axios').defaults.adapter = function () { ${body()} };`,
      `require('axios').interceptors.request.use((c) => { ${pick(['c.url = 42;', 'c.method = 42;', 'c.headers = null;', 'c.data = c;', 'return c;'])} return c; });`,
      `try { require('axios').defaults.adapter({ method: ${value()}, url: ${value()}, headers: ${value()}, data: ${value()} }); } catch (e) {}`,
      `try { globalThis.__wapii.requests.push({ method: 42 }); } catch (e) {}`,
      `delete globalThis.setTimeout;`,
      `Atomics.waitAsync(new Int32Array(new SharedArrayBuffer(16)), 0, 0, 10);`,
      `new WebAssembly.Memory({ initial: 100 });`,
      `})(); ${pick([`throw ${value()};`, body()])} (async () => {`,
      `console.log(${value()}, ${value()});`,
      `process.exit(${n()});`,
    ]);
  const url = (): string =>
    pick([
      `'${W}'`,
      `'${W}%3Fregion=eu'`,
      `'${W}%23/../me'`,
      `'${W}/%2e%2e/me'`,
      `'${W}%252F'`,
      `'${W}?region=us&region=eu&__proto__=x&flag'`,
      `'//api.harbor.example/v2/warehouses'`,
      `'/v2/warehouses'`,
      `'warehouses'`,
      `'ftp://x.test/'`,
      `'http://a b/'`,
      `'https://[::1'`,
      `'https://api.harbor.example/\\uD800'`,
      `'https://api.harbor.example/\\u0000'`,
      `'${W}?' + 'a=1&'.repeat(${pick(['10', '1e4', '1e6'])})`,
      `'${W}/' + 'x/'.repeat(${pick(['10', '1e5'])})`,
      value(),
    ]);
  const config = (): string => {
    const parts: string[] = [];
    const maybe = (p: number, f: () => string): void => {
      if (next() < p) parts.push(f());
    };
    maybe(0.6, () => `headers: ${pick(["{ Authorization: 'Bearer <token>' }", `{ X: ${value()} }`, value()])}`);
    maybe(0.6, () => `params: ${pick(["{ region: 'eu', limit: 10 }", value()])}`);
    maybe(0.2, () => `baseURL: ${pick(["'https://api.harbor.example/v2/'", "'https://evil.example'", value()])}`);
    maybe(0.1, () => `allowAbsoluteUrls: ${pick(['false', 'true', value()])}`);
    maybe(0.15, () => `paramsSerializer: ${pick([`() => ${value()}`, `{ encode: (s) => ${pick(['s', 's + s', value()])} }`, `{ serialize: function () { ${body()} } }`])}`);
    maybe(0.1, () => `transformRequest: ${pick(['[(d) => d]', `[() => ${value()}]`, value()])}`);
    maybe(0.05, () => `method: ${value()}`);
    return `{ ${parts.join(', ')} }`;
  };
  const call = (): string =>
    pick([
      `axios.get(${url()}, ${config()});`,
      `axios.post(${url()}, ${value()}, ${config()});`,
      `axios.put(${url()}, ${pick(["'a=1&b[c]=2'", "'{\"a\": 1}'", value()])}, ${config()});`,
      `axios.request({ url: ${url()}, method: ${pick(["'get'", "'PATCH'", value()])}, data: ${value()} });`,
      `axios.delete(${url()});`,
    ]);
  return (): string => {
    const statements = Array.from({ length: 1 + Math.floor(next() * 3) }, statement).join('\n');
    return `// fuzz\nconst axios = require('axios');\n${statements}\n${call()}\n`;
  };
}
