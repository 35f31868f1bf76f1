import { afterAll, describe, expect, it } from 'vitest';
import { normalizeCaptured, Sandbox } from './index.js';

/**
 * The sandbox's global fetch (issue 25 item 5): each request recorded as undici would send it
 * (scoring.md §2-3), the first request of a program scored whichever client sent it.
 */
const sandbox = new Sandbox({ timeoutMs: 500 });
afterAll(() => sandbox.dispose());

const requests = (code: string) => sandbox.run(code).requests.map((r) => normalizeCaptured(r));
const sent = (code: string) => {
  const [first] = requests(code);
  if (!first?.ok) throw new Error(first ? first.message : 'no request');
  return first.request;
};

describe('the global fetch is captured as undici sends it', () => {
  it('url, method, headers (names lowercased, the implicit accept and content-type), the query moved into params, a JSON body decoded', () => {
    expect(sent(`fetch('https://x.test/a?limit=50&tag=a&tag=b#top', { method: 'post', headers: { Authorization: 'Bearer t', 'Content-Type': 'application/json' }, body: JSON.stringify({ a: 1, b: [true] }) });`)).toEqual({
      client: 'fetch',
      method: 'post',
      url: 'https://x.test/a',
      headers: { accept: '*/*', authorization: 'Bearer t', 'content-type': 'application/json' },
      params: { limit: '50', tag: ['a', 'b'] },
      data: { a: 1, b: [true] },
    });
    expect(sent(`fetch('https://x.test/g');`)).toEqual({ client: 'fetch', method: 'get', url: 'https://x.test/g', headers: { accept: '*/*' }, params: {} });
  });

  it("bodies as undici extracts them: a string (text/plain), URLSearchParams (by its toString), FormData, Blob, bytes, and any other object as String() writes it", () => {
    expect(sent(`fetch('https://x.test/p', { method: 'POST', body: 'a=1&b=x+y' })`)).toMatchObject({ headers: { 'content-type': 'text/plain;charset=UTF-8' }, data: { a: '1', b: 'x y' } });
    expect(sent(`const p = new URLSearchParams({ a: '1' }); p.toString = () => 'b=2'; fetch('https://x.test/p', { method: 'POST', body: p });`)).toMatchObject({
      headers: { 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      data: { b: '2' },
    });
    expect(sent(`const f = new FormData(); f.append('file', 'hello'); f.append('n', 3); fetch('https://x.test/p', { method: 'POST', body: f });`).data).toEqual({ file: 'hello', n: '3' });
    expect(sent(`fetch('https://x.test/p', { method: 'PUT', body: new Blob(['{"a":1}'], { type: 'application/json' }) });`)).toMatchObject({ headers: { 'content-type': 'application/json' }, data: { a: 1 } });
    expect(sent(`fetch('https://x.test/p', { method: 'PUT', body: new TextEncoder().encode('{"a":2}') });`)).toMatchObject({ headers: { accept: '*/*' }, data: { a: 2 } });
    // The classic mistake: an object body is sent as "[object Object]", text that is not JSON, read as a form as any such text is (scoring.md §2).
    expect(sent(`fetch('https://x.test/p', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: { a: 1 } });`).data).toEqual({ 'object Object': '' });
    expect(sent(`fetch('https://x.test/p', { method: 'POST', body: { a: 1 } });`)).toMatchObject({ headers: { 'content-type': 'text/plain;charset=UTF-8' }, data: { 'object Object': '' } });
  });

  it('Headers, Request and node-fetch: values trimmed, a repeated name joined, the method normalised as fetch does', () => {
    expect(sent(`const h = new Headers([['X-A', '1']]); h.append('x-a', '2'); h.set('Authorization', '  Bearer t  '); fetch(new Request('https://x.test/r', { method: 'delete', headers: h }));`)).toEqual({
      client: 'fetch',
      method: 'delete',
      url: 'https://x.test/r',
      headers: { accept: '*/*', authorization: 'Bearer t', 'x-a': '1, 2' },
      params: {},
    });
    expect(sent(`import fetch from 'node-fetch';\nawait fetch('https://x.test/nf', { headers: { Accept: 'application/json' } });`).headers).toEqual({ accept: 'application/json' });
  });

  it('answers 200 with an empty JSON body, so response handling runs on', () => {
    expect(sandbox.run(`const r = await fetch('https://x.test/g'); console.log(r.ok, r.status, JSON.stringify(await r.json()), r.headers.get('Content-Type'));`).console).toEqual(['log: true 200 {} application/json']);
  });

  it('what fetch refuses is a refused first request (a runtime_error), and the call rejects as in Node', () => {
    const refusals: [string, string][] = [
      [`fetch('https://x.test/p', { body: 'x' })`, 'GET/HEAD method cannot have body'],
      [`fetch('https://x.test/p', { headers: { 'X-A': 'a\\r\\nX-B: b' } })`, 'NUL, CR or LF'],
      [`fetch('https://x.test/p', { headers: { 'X-A': 'a\\u0000' } })`, 'NUL, CR or LF'],
      [`fetch('https://x.test/p', { headers: { 'X A': 'a' } })`, 'invalid header name'],
      [`fetch('https://x.test/p', { headers: { 'X-A': '\\u20ac' } })`, 'ByteString'],
      [`fetch('https://x.test/p', { method: 'TRACE' })`, 'unsupported'],
    ];
    for (const [call, why] of refusals) {
      const run = sandbox.run(`${call}.catch((e) => console.log('rejected', e.name));`);
      expect(run.console).toEqual(['log: rejected TypeError']);
      expect(normalizeCaptured(run.requests[0]!)).toMatchObject({ ok: false, message: expect.stringContaining(why) });
    }
    expect(requests(`fetch('https://ann:pw@x.test/p');`)[0]).toMatchObject({ ok: false, message: expect.stringContaining('credentials') });
    expect(requests(`fetch('/relative');`)[0]).toMatchObject({ ok: false, message: expect.stringContaining('not an absolute URL') });
    // A control character undici's dispatcher refuses (as Node's http does), though the Headers class lets it by.
    expect(requests(`fetch('https://x.test/p', { headers: { 'X-A': 'a\\u0001' } });`)[0]).toMatchObject({ ok: false, message: expect.stringContaining("Node's http refuses") });
  });

  it('a program mixing fetch and axios: its requests in the order sent, whichever client sent them', () => {
    const run = sandbox.run(`const axios = require('axios');
      setTimeout(() => axios.get('https://x.test/third'), 5);
      await fetch('https://x.test/first');
      await axios.get('https://x.test/second');`);
    expect(run.requests.map((r) => [r.client ?? 'axios', r.url])).toEqual([
      ['fetch', 'https://x.test/first'],
      ['axios', 'https://x.test/second'],
      ['axios', 'https://x.test/third'],
    ]);
  });
});
