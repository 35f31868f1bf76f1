import { afterAll, describe, expect, it } from 'vitest';
import { normalizeCaptured, Sandbox, type NormalizeMode } from './index.js';

const sandbox = new Sandbox({ timeoutMs: 500 });
afterAll(() => sandbox.dispose());

/** Runs a program and normalises its first request in the given mode. */
function first(code: string, mode: NormalizeMode = 'default'): ReturnType<typeof normalizeCaptured> {
  const run = sandbox.run(`const axios = require('axios');\n${code}`, { compat: mode });
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

  it('reads text that is not JSON as a form, whatever its first character: "[object Object]" is the key "object Object" (issue 36 item 20)', () => {
    expect(ok(`axios.post('https://x.test/p', '[object Object]');`).data).toEqual({ 'object Object': '' });
    expect(ok(`axios.post('https://x.test/p', '{"a":1');`).data).toEqual({ '{"a":1': '' });
    // Axios re-encodes a JSON-typed string that does not parse, so it is sent quoted.
    expect(ok(`axios.post('https://x.test/p', '[object Object]', { headers: { 'Content-Type': 'application/json' } });`).data).toEqual({ '"': { 'object Object': '' } });
    expect(ok(`axios.post('https://x.test/p', '[1, 2]');`).data).toEqual([1, 2]);
    // The reference kept such text as it was.
    expect(ok(`axios.post('https://x.test/p', '[object Object]');`, 'reference').data).toBe('[object Object]');
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

describe("issue 23: the scorer's edges", () => {
  it('reads the request once: a getter or interceptor answering differently on each read is scored by its first answer, the one the request was built from', () => {
    const changing = (field: string, first: string, later: string): string =>
      `axios.interceptors.request.use((c) => { let n = 0; return Object.defineProperty(c, '${field}', { get() { return n++ === 0 ? '${first}' : '${later}'; }, configurable: true }); });`;
    expect(ok(`${changing('url', 'https://x.test/sent', 'https://x.test/expected')}\naxios.get('https://x.test/');`).url).toBe('https://x.test/sent');
    expect(ok(`${changing('url', 'https://x.test/sent', 'https://x.test/expected')}\naxios.get('https://x.test/');`, 'reference').url).toBe('https://x.test/sent');
    expect(ok(`${changing('baseURL', 'https://x.test/v1', 'https://x.test/v2')}\naxios.get('users', { baseURL: 'https://x.test/v0' });`).url).toBe('https://x.test/v1/users');
  });

  it('scores URLSearchParams params and bodies by what their toString() sends, replaced or not', () => {
    expect(ok(`const p = new URLSearchParams({ status: 'delivered' }); p.toString = () => 'status=lost&x=a+b'; axios.get('https://x.test/q', { params: p });`).params).toEqual({ status: 'lost', x: 'a b' });
    expect(ok(`URLSearchParams.prototype.toString = () => 'n=2'; axios.get('https://x.test/q', { params: new URLSearchParams({ n: '1' }) });`).params).toEqual({ n: '2' });
    expect(ok(`const p = new URLSearchParams({ a: '1' }); p.toString = () => 'b=2'; axios.post('https://x.test/p', p);`).data).toEqual({ b: '2' });
    expect(ok(`axios.get('https://x.test/q', { params: new URLSearchParams({ q: 'a b', t: 'x&y' }) });`).params).toEqual({ q: 'a b', t: 'x&y' });
  });

  it('refuses a header value with CR, LF or NUL (and a name that is not a token), whether or not that header is counted', () => {
    for (const header of [`'X-Trace': 'a\\r\\nX-Forged: 1'`, `'X-Trace': 'a\\nb'`, `Accept: 'application/json\\u0000'`, `'Content-Type': 'application/json\\r'`, `'X Trace': 'a'`]) {
      expect(first(`axios.get('https://x.test/q', { headers: { ${header} } });`)).toMatchObject({ ok: false, message: expect.stringContaining("Node's http refuses the request") });
    }
    expect(ok(`axios.get('https://x.test/q', { headers: { 'X-Name': 'J\\u00fcrgen\\tM' } });`).headers).toMatchObject({ 'X-Name': 'Jürgen\tM' });
  });

  it('sends a header array as Node does: one element as its value, several as their list, none not at all', () => {
    expect(ok(`axios.get('https://x.test/q', { headers: { Authorization: ['Bearer t'], 'X-Many': ['a', 'b'], 'X-None': [] } });`).headers).toEqual({ Accept: 'application/json, text/plain, */*', Authorization: 'Bearer t', 'X-Many': 'a, b' });
  });

  it('sends a date as the toISOString() the program left in place', () => {
    const r = ok(`Date.prototype.toISOString = function () { return 'day ' + this.getUTCDate(); }; axios.get('https://x.test/q', { params: { since: new Date(Date.UTC(2025, 0, 2)) } });`);
    expect(r.params).toEqual({ since: 'day 2' });
    expect(ok(`axios.get('https://x.test/q', { params: { since: new Date(Date.UTC(2025, 0, 2)) } });`).params).toEqual({ since: '2025-01-02T00:00:00.000Z' });
  });

  it("sends the auth option (else the URL's credentials) as the Authorization: Basic header Node's http adapter sends, in place of any Authorization header", () => {
    expect(ok(`axios.get('https://x.test/q', { auth: { username: 'ann', password: 'pässword' }, headers: { authorization: 'Bearer old' } });`).headers).toEqual({
      Accept: 'application/json, text/plain, */*',
      Authorization: `Basic ${Buffer.from('ann:pässword', 'utf8').toString('base64')}`,
    });
    expect(ok(`axios.get('https://ann:s%20cret@x.test/q');`)).toMatchObject({ url: 'https://x.test/q', headers: { Authorization: `Basic ${Buffer.from('ann:s%20cret').toString('base64')}` } });
    expect(ok(`axios.get('https://x.test/q', { auth: { username: 'ann' } });`).headers['Authorization']).toBe(`Basic ${Buffer.from('ann:').toString('base64')}`);
    // The reference's mock kept auth apart from the headers.
    expect(ok(`axios.get('https://x.test/q', { auth: { username: 'ann', password: 'p' } });`, 'reference').headers).toEqual({ Accept: 'application/json, text/plain, */*' });
  });

  it('--compat reference never calls a custom paramsSerializer (its mock does not build the URL)', () => {
    const code = `axios.get('https://x.test/q', { params: { n: 50 }, paramsSerializer: () => { console.log('called'); throw new Error('serializer called'); } });`;
    const reference = sandbox.run(`const axios = require('axios');\n${code}`, { compat: 'reference' });
    expect(reference.console).toEqual([]);
    expect(normalizeCaptured(reference.requests[0]!, 'reference')).toMatchObject({ ok: true, request: { params: { n: 50 } } });
    const sent = sandbox.run(`const axios = require('axios');\n${code}`);
    expect(sent.console).toEqual(['log: called']);
    expect(sent.requests[0]?.refused).toContain('serializer called');
  });
});

describe('issue 23: timers follow Node', () => {
  const urls = (code: string): string[] => sandbox.run(`const axios = require('axios');\n${code}`).requests.map((r) => r.url);

  it('a delay of 2^31 ms or more, Infinity, NaN, 0 or less fires after 1 ms, in the order set', () => {
    expect(urls(`setTimeout(() => axios.get('https://x.test/10'), 10); setTimeout(() => axios.get('https://x.test/inf'), Infinity); setTimeout(() => axios.get('https://x.test/2e31'), 2 ** 31); setTimeout(() => axios.get('https://x.test/max'), 2 ** 31 - 1);`)).toEqual([
      'https://x.test/inf',
      'https://x.test/2e31',
      'https://x.test/10',
      'https://x.test/max',
    ]);
    expect(urls(`setTimeout(() => axios.get('https://x.test/one'), 1); setTimeout(() => axios.get('https://x.test/zero'), 0); setTimeout(() => axios.get('https://x.test/nan'), 'soon');`)).toEqual(['https://x.test/one', 'https://x.test/zero', 'https://x.test/nan']);
  });

  it('process.nextTick callbacks run before promise jobs, after the main program and after each timer', () => {
    expect(urls(`Promise.resolve().then(() => axios.get('https://x.test/promise')); process.nextTick(() => axios.get('https://x.test/tick'));`)).toEqual(['https://x.test/tick', 'https://x.test/promise']);
    expect(
      urls(`setTimeout(() => { queueMicrotask(() => axios.get('https://x.test/micro')); process.nextTick(() => axios.get('https://x.test/tick')); }, 5);
        Promise.resolve().then(() => process.nextTick(() => axios.get('https://x.test/tick-from-job'))).then(() => axios.get('https://x.test/second-job'));`),
    ).toEqual(['https://x.test/second-job', 'https://x.test/tick-from-job', 'https://x.test/tick', 'https://x.test/micro']);
  });
});
