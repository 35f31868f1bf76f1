import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractInvocation, normalizeRequest, rewriteImports, Sandbox } from './index.js';

const sandbox = new Sandbox({ timeoutMs: 500 });
afterAll(() => sandbox.dispose());

const CANARY = `const axios = require('axios');\naxios.get('https://canary.test/ok', { params: { n: 1 } });`;
const canary = (): void => {
  const run = sandbox.run(CANARY);
  expect(run.error).toBeUndefined();
  expect(run.requests.map(normalizeRequest)).toEqual([{ method: 'get', url: 'https://canary.test/ok', headers: { Accept: 'application/json, text/plain, */*' }, params: { n: 1 } }]);
};

describe('the sandbox runs programs with the real Axios', () => {
  it('captures the method form, axios(config), axios.request and axios.create, in order', () => {
    const run = sandbox.run(`
      import axios from 'axios';
      const api = axios.create({ baseURL: 'https://x.test/v1/', headers: { 'X-Key': 'k' } });
      await api.get('users', { params: { q: 'a b' } });
      await axios({ method: 'PATCH', url: 'https://x.test/p', data: { a: 1 } });
      await axios.request({ url: 'https://x.test/r' });`);
    expect(run.error).toBeUndefined();
    expect(run.requests.map((r) => [r.method, r.url])).toEqual([
      ['get', 'https://x.test/v1/users'],
      ['patch', 'https://x.test/p'],
      ['get', 'https://x.test/r'],
    ]);
    expect(normalizeRequest(run.requests[0]!)).toMatchObject({ headers: { 'X-Key': 'k' }, params: { q: 'a b' } });
  });

  it('finishes then/await chains, fires timers on a virtual clock and captures console output', () => {
    const run = sandbox.run(`
      const axios = require('axios');
      setTimeout(() => axios.delete('https://x.test/later'), 60000);
      axios.get('https://x.test/now').then((r) => console.log('status', r.status));`);
    expect(run.requests.map((r) => r.url)).toEqual(['https://x.test/now', 'https://x.test/later']);
    expect(run.console).toEqual(['log: status 200']);
  });

  it('normalises bodies: JSON, form-urlencoded with brackets, multipart, and the query string', () => {
    const run = sandbox.run(`
      const axios = require('axios');
      const qs = require('querystring');
      axios.post('https://x.test/j', { a: { b: [1, 2] } });
      axios.post('https://x.test/f', 'name=a+b&tags%5B%5D=x&tags%5B%5D=y&user%5Bid%5D=7', { headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
      const FormData = require('form-data'); const f = new FormData(); f.append('file', 'hello'); f.append('n', 3);
      axios.post('https://x.test/m', f, { headers: f.getHeaders() });
      axios.get('https://x.test/q?limit=5&flag&name=J%C3%BCrgen');
      axios.put('https://x.test/e', null);`);
    const [json, form, multipart, query, empty] = run.requests.map(normalizeRequest);
    expect(json?.data).toEqual({ a: { b: [1, 2] } });
    expect(form?.data).toEqual({ name: 'a b', tags: ['x', 'y'], user: { id: '7' } });
    expect(multipart?.data).toEqual({ file: 'hello', n: '3' });
    expect(query).toMatchObject({ url: 'https://x.test/q', params: { limit: '5', flag: true, name: 'Jürgen' } });
    expect(empty?.data).toEqual({});
  });

  it('offers URL, URLSearchParams, TextEncoder, btoa/atob and a harmless process', () => {
    const run = sandbox.run(`
      const axios = require('axios');
      const u = new URL('https://x.test/a?b=1'); u.searchParams.append('c', 'd e');
      const token = btoa('user:pass'); const back = atob(token);
      const bytes = new TextEncoder().encode('ü').length;
      axios.get(u.toString(), { headers: { Authorization: 'Basic ' + token, 'X-Env': String(process.env.TOKEN), 'X-Back': back, 'X-Bytes': String(bytes) } });`);
    expect(run.error).toBeUndefined();
    expect(normalizeRequest(run.requests[0]!)).toMatchObject({
      url: 'https://x.test/a',
      params: { b: '1', c: 'd+e' }, // URLSearchParams writes a space as `+`; URL decoding (as in the reference) keeps it
      headers: { Authorization: 'Basic dXNlcjpwYXNz', 'X-Env': 'undefined', 'X-Back': 'user:pass', 'X-Bytes': '2' },
    });
  });

  it('process.exit ends the program as Node does: nothing after it runs or counts, what was captured stays (issue 36 item 17)', () => {
    const urls = (code: string) => {
      const run = sandbox.run(`const axios = require('axios');\n${code}`);
      return { urls: run.requests.map((r) => r.url), console: run.console, error: run.error };
    };
    // The exit inside main() is a rejection main().catch sees in the stand-in; Node never gets there.
    expect(urls(`async function main() { await axios.post('https://x.test/p', { a: 1 }); process.exit(0); }\nmain().catch((e) => { console.error('failed', e); process.exit(1); });`)).toEqual({ urls: ['https://x.test/p'], console: [], error: undefined });
    expect(urls(`async function main() { await axios.post('https://x.test/p', { a: 1 }); process.exit(0); }\nmain();`)).toEqual({ urls: ['https://x.test/p'], console: [], error: undefined });
    // A catch or finally that swallows the exit, and whatever comes after it, sends nothing.
    expect(urls(`try { process.exit(0); } catch (e) { console.log('caught'); }\naxios.get('https://x.test/after');`)).toEqual({ urls: [], console: [], error: undefined });
    expect(urls(`await axios.get('https://x.test/1');\ntry { process.exit(0); } finally { console.log('finally'); axios.get('https://x.test/2'); }`)).toEqual({ urls: ['https://x.test/1'], console: [], error: undefined });
    // Nor do its timers, a loop it would never reach, or a throw after it.
    expect(urls(`setTimeout(() => axios.get('https://x.test/timer'), 5);\nawait axios.get('https://x.test/1');\ntry { process.exit(0); } catch {}\nfor (;;) {}`)).toEqual({ urls: ['https://x.test/1'], console: [], error: undefined });
    expect(urls(`console.log('before'); try { process.exit(0); } catch {} throw new Error('after');`)).toEqual({ urls: [], console: ['log: before'], error: undefined });
    // An error the program raised before it exited stays its error.
    expect(urls(`setTimeout(() => { throw new Error('first'); }, 1); setTimeout(() => process.exit(0), 2);`).error).toMatchObject({ kind: 'exception', message: 'Error: first' });
  });

  it('require, module, exports, __filename and __dirname are the program\'s own, as a CommonJS module\'s (issue 36 item 18)', () => {
    const run = sandbox.run(`Function('return this')().require = () => { throw new Error('a fake require'); };
      globalThis.module = { fake: true };
      const axios = require('axios');
      await axios.get('https://x.test/r');
      console.log([typeof require, require.main === module, module.exports === exports, this === module.exports, __filename, __dirname, 'require' in globalThis && globalThis.require !== require].join());`);
    expect(run.error).toBeUndefined();
    expect(run.requests.map((r) => r.url)).toEqual(['https://x.test/r']);
    expect(run.console).toEqual(['log: function,true,true,true,/snippet.js,/,true']);
    // Nothing is global before the program makes it so; require.main === module runs the main function, as in Node.
    expect(sandbox.run(`console.log([typeof globalThis.require, typeof globalThis.module, typeof globalThis.exports].join());`).console).toEqual(['log: undefined,undefined,undefined']);
    expect(sandbox.run(`const axios = require('axios');\nasync function main() { await axios.get('https://x.test/main'); }\nif (require.main === module) main();`).requests.map((r) => r.url)).toEqual(['https://x.test/main']);
  });

  it('reports syntax errors and exceptions as errors', () => {
    expect(sandbox.run('axios.get(').error?.kind).toBe('syntax');
    expect(sandbox.run('undefinedFunction();').error).toMatchObject({ kind: 'exception', message: expect.stringContaining('undefinedFunction is not defined') });
  });
});

/** Programs that try to escape, exhaust or poison the sandbox. Each must be contained. */
const HOSTILE: readonly (readonly [string, string])[] = [
  ['require fs', `const fs = require('fs'); fs.writeFileSync('/tmp/wapii-pwned', 'x');`],
  ['require child_process', `require('child_process').execSync('touch /tmp/wapii-pwned');`],
  ['require net', `require('net').connect(80, '127.0.0.1');`],
  ['require http', `require('http').get('http://127.0.0.1:1/');`],
  ['dynamic import', `await import('fs');`],
  ['process.binding', `process.binding('fs');`],
  ['process.mainModule', `process.mainModule.require('fs');`],
  ['process.exit', `process.exit(1);`],
  ['process.kill', `process.kill(process.pid);`],
  ['Function returns the global', `const g = Function('return this')(); g.require('fs');`],
  ['constructor escape', `const P = this.constructor.constructor('return process')(); P.mainModule.require('fs');`],
  ['async constructor escape', `const F = (async function () {}).constructor; await F('return require("child_process")')();`],
  ['eval to the host', `eval('require')('os').homedir();`],
  ['fetch', `await fetch('http://127.0.0.1:1/');`],
  ['XMLHttpRequest', `new XMLHttpRequest().open('GET', 'http://127.0.0.1:1/');`],
  ['WebSocket', `new WebSocket('ws://127.0.0.1:1/');`],
  ['Object.prototype pollution', `Object.prototype.polluted = 'yes'; Object.prototype.url = 'https://evil.test/';`],
  ['Array.prototype pollution', `Array.prototype.push = function () { return 0; };`],
  ['JSON pollution', `JSON.stringify = () => '{"requests":[{"url":"https://evil.test"}]}';`],
  ['axios default pollution', `require('axios').defaults.baseURL = 'https://evil.test'; require('axios').defaults.headers.common['X-Evil'] = '1';`],
  ['sync infinite loop', `while (true) {}`],
  ['recursion', `function f() { return f() + 1; } f();`],
  ['promise-chain infinite loop', `const spin = () => Promise.resolve().then(spin); spin(); await new Promise(() => {});`],
  ['async infinite loop', `(async () => { while (true) await null; })();`],
  ['timer storm', `setInterval(() => { for (let i = 0; i < 1e5; i++); }, 0);`],
  ['memory bomb (arrays)', `const a = []; while (true) a.push(new Array(1e6).fill(7));`],
  ['memory bomb (strings)', `let s = 'x'; while (true) s += s;`],
  ['Atomics.wait', `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1e9);`],
  ['catastrophic regex', `/^(a+)+$/.test('a'.repeat(40) + 'b');`],
  ['huge console output', `for (let i = 0; i < 1e5; i++) console.log('x'.repeat(1000));`],
  ['unhandled rejection storm', `for (let i = 0; i < 1e4; i++) Promise.reject(new Error('x'));`],
  ['throw a non-error', `throw { toString() { while (true) {} } };`],
  ['redefine globals used by the host', `globalThis.__wapiiResult = () => '{"requests":[{"url":"https://evil.test"}]}'; delete globalThis.__wapii;`],
];

describe('a hostile corpus is contained', () => {
  const marker = path.join(os.tmpdir(), 'wapii-pwned');
  const envBefore = { ...process.env };

  it.each(HOSTILE)('%s', (_name, code) => {
    const started = performance.now();
    const run = sandbox.run(`const axios = require('axios');\n${code}`);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(run.requests.some((r) => r.url.includes('evil'))).toBe(false);
    // The next program runs in a fresh context, unaffected.
    canary();
  });

  it('leaves the host unharmed', () => {
    expect(fs.existsSync(marker)).toBe(false);
    expect(process.env).toEqual(envBefore);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(HOSTILE.length).toBeGreaterThanOrEqual(30);
    expect(sandbox.isolatesStarted).toBeGreaterThan(1); // timeouts and out-of-memory recycled the isolate
  });

  it('caps console output', () => {
    const run = sandbox.run(`for (let i = 0; i < 1e4; i++) console.log('y'.repeat(500));`);
    expect(run.console.join('\n').length).toBeLessThan(80_000);
  });
});

describe('extraction (scoring.md §2)', () => {
  const starter = "// task\nconst axios = require('axios');\n\n";
  it.each([
    ['.then', "axios.get('u').then(r => r);", "axios.get('u');\n"],
    ['.catch', "axios.get('u')\n.catch(e => e);", "axios.get('u')\n;\n"],
    ['.finally', "axios.get('u').finally(() => 1);", "axios.get('u');\n"],
    ['});', "axios.post('u', {\n  a: 1\n});\nmore();", "axios.post('u', {\n  a: 1\n});\n"],
    ['}\n);', "axios.post('u', {\n  a: 1\n}\n);", "axios.post('u', {\n  a: 1\n}\n);\n"],
    [');', "axios.get('u');", "axios.get('u');\n"],
    [';', "axios.get('u', { a: 1 }) ; x", "axios.get('u', { a: 1 }) ;\n"],
    ['\naxios.', "axios.get('u')\naxios.get('v')", "axios.get('u')"],
    ['```', "axios.get('u')\n```\ntext", "axios.get('u')\n"],
  ])('cuts at %s', (rule, completion, call) => {
    const result = extractInvocation(starter + completion);
    expect(result).toMatchObject({ status: 'ok', rule, call, program: starter + call });
  });

  it('reports a missing or unfinished call', () => {
    expect(extractInvocation('fetch("u")').status).toBe('no_request');
    expect(extractInvocation("axios.get('u'").status).toBe('incomplete_request');
  });

  it('rewrites ES imports into require calls', () => {
    expect(rewriteImports("import axios from 'axios';\nimport { URL as U } from 'url';\nimport * as qs from 'querystring';\nimport 'form-data';")).toBe(
      "const axios = require(\"axios\");\nconst { URL: U } = require(\"url\");\nconst qs = require(\"querystring\");\nrequire(\"form-data\");",
    );
  });
});
