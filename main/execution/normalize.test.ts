import { afterAll, describe, expect, it } from 'vitest';
import { normalizeCaptured, Sandbox, type NormalizeMode } from './index.js';

const sandbox = new Sandbox({ timeoutMs: 500 });
afterAll(() => sandbox.dispose());

/** Runs a program and normalises its first request in the given mode. */
function first(code: string, mode: NormalizeMode = 'default'): ReturnType<typeof normalizeCaptured> {
  const run = sandbox.run(`const axios = require('axios');\n${code}`);
  expect(run.error).toBeUndefined();
  const raw = run.requests[0];
  if (!raw) throw new Error('no request');
  return normalizeCaptured(raw, mode);
}
const ok = (code: string, mode?: NormalizeMode) => {
  const n = first(code, mode);
  if (!n.ok) throw new Error(n.message);
  return n.request;
};

describe('scoring.md §3: the URL Axios really sends (default mode)', () => {
  it('applies baseURL and allowAbsoluteUrls as Axios does', () => {
    expect(ok(`axios.get('users', { baseURL: 'https://x.test/v1/' });`).url).toBe('https://x.test/v1/users');
    expect(ok(`axios.get('https://y.test/a', { baseURL: 'https://x.test/v1' });`).url).toBe('https://y.test/a');
    expect(ok(`axios.get('https://y.test/a', { baseURL: 'https://x.test/v1', allowAbsoluteUrls: false });`).url).toBe('https://x.test/v1/https://y.test/a');
  });

  it('refuses what Axios or the WHATWG parser refuses: protocol-relative, relative without a base, other schemes', () => {
    expect(first(`axios.get('//y.test/a', { baseURL: 'https://x.test' });`)).toMatchObject({ ok: false, message: expect.stringContaining('not an absolute URL') });
    expect(first(`axios.get('/users');`)).toMatchObject({ ok: false });
    expect(first(`axios.get('ftp://x.test/a');`)).toMatchObject({ ok: false, message: expect.stringContaining('http and https') });
  });

  it('decodes each path segment once, keeping %2F, %3F and %23 inside their segment; resolves dot segments', () => {
    expect(ok(`axios.get('https://x.test/a%2Fb/c%3Fd%23e/f%2520g');`).url).toBe('https://x.test/a%2Fb/c%3Fd%23e/f%2520g');
    expect(ok(`axios.get('https://x.test/J%C3%BCrgen/x/../y/%2e%2e/z');`).url).toBe('https://x.test/Jürgen/z');
  });

  it('moves the query into params: strings, `true` without `=`, a repeated key as an array, __proto__ a key; typed params as written', () => {
    const r = ok(`axios.get('https://x.test/q?a=1&a=2&flag&__proto__=p&s=J%C3%BCrgen', { params: { n: 50, b: [1, 2] } });`);
    expect(r.url).toBe('https://x.test/q');
    expect(Object.entries(r.params)).toEqual([
      ['a', ['1', '2']],
      ['flag', true],
      ['__proto__', 'p'],
      ['s', 'Jürgen'],
      ['n', 50],
      ['b', [1, 2]],
    ]);
  });

  it('with a custom paramsSerializer, takes the query it produced', () => {
    expect(ok(`axios.get('https://x.test/q', { params: { n: 50 }, paramsSerializer: (p) => 'n=' + (p.n + 1) + '&n=x' });`).params).toEqual({ n: ['51', 'x'] });
    expect(ok(`axios.get('https://x.test/q', { params: { n: 'a b' }, paramsSerializer: { encode: (s) => s.toUpperCase() } });`).params).toEqual({ N: 'A B' });
  });

  it('URLSearchParams params keep every pair', () => {
    expect(ok(`axios.get('https://x.test/q', { params: new URLSearchParams([['t', '1'], ['t', '2']]) });`).params).toEqual({ t: ['1', '2'] });
  });

  it('refuses a body a custom transformRequest left as an object, and one nested too deep', () => {
    expect(first(`axios.post('https://x.test/p', { a: 1 }, { transformRequest: [(d) => d] });`)).toMatchObject({ ok: false, message: expect.stringContaining('transformRequest') });
    expect(first(`axios.post('https://x.test/p', '['.repeat(1e5) + ']'.repeat(1e5), { headers: { 'Content-Type': 'application/json' } });`)).toMatchObject({ ok: false, message: expect.stringContaining('deeper') });
  });
});

describe('--compat reference keeps the reference behaviour', () => {
  it('decodes the whole URL, splits at the first ?, the last repeated key wins, __proto__ is dropped', () => {
    expect(ok(`axios.get('https://x.test/a%3Fb=1&c=2&c=3&d=%3F');`, 'reference')).toMatchObject({ url: 'https://x.test/a', params: { b: '1', c: '3', d: '?' } });
    expect(Object.keys(ok(`axios.get('https://x.test/q?__proto__=p');`, 'reference').params)).toEqual([]);
  });

  it('joins baseURL unless the URL has a scheme, ignores allowAbsoluteUrls and paramsSerializer, scores an unserialised body as JSON', () => {
    expect(ok(`axios.get('https://y.test/a', { baseURL: 'https://x.test/v1', allowAbsoluteUrls: false });`, 'reference').url).toBe('https://y.test/a');
    expect(ok(`axios.get('https://x.test/q', { params: { n: 50 }, paramsSerializer: () => 'n=1' });`, 'reference').params).toEqual({ n: 50 });
    expect(ok(`axios.post('https://x.test/p', { a: 1 }, { transformRequest: [(d) => d] });`, 'reference').data).toEqual({ a: 1 });
  });
});

describe('the capture cannot be forged from inside the program', () => {
  it('records at the moment of the call, whatever the program changes afterwards', () => {
    const run = sandbox.run(`const axios = require('axios');
      const config = { params: { a: 1 } };
      axios.get('https://x.test/q', config).then((r) => { r.config.url = 'https://evil.test/'; r.config.params.a = 2; });
      setTimeout(() => { Object.prototype.toJSON = () => null; String.prototype.toLowerCase = () => 'post'; JSON.stringify = () => '{}'; }, 1);
      setTimeout(() => axios.get('https://x.test/second'), 2);`);
    expect(run.error).toBeUndefined();
    expect(run.requests.map((r) => normalizeCaptured(r))).toEqual([
      { ok: true, request: { method: 'get', url: 'https://x.test/q', headers: { Accept: 'application/json, text/plain, */*' }, params: { a: 1 } } },
      { ok: true, request: expect.objectContaining({ url: 'https://x.test/second' }) },
    ]);
  });

  it('offers no host channel, capture store, WebAssembly, SharedArrayBuffer or Atomics', () => {
    const run = sandbox.run(`console.log(typeof __wapiiHost, typeof __wapii, typeof __wapiiInternal, typeof __wapiiResult, typeof WebAssembly, typeof SharedArrayBuffer, typeof Atomics);`);
    expect(run.console).toEqual(['log: undefined undefined undefined undefined undefined undefined undefined']);
  });

  it('refuses a request the adapter cannot read (a method that is not a string, a getter that throws)', () => {
    const run = sandbox.run(`const axios = require('axios');
      axios.defaults.adapter({ method: 42, url: 'https://x.test/' });
      axios.defaults.adapter({ method: 'get', url: 'https://x.test/', headers: { get X() { throw new Error('no'); } } });`);
    expect(run.requests.map((r) => r.refused)).toEqual(['the request method is not a string', expect.stringContaining('reading the request failed')]);
  });
});
