import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/paths.js';
import { seededRandom } from '../support/random.js';
import { rawRequest, startServe, type RawResponse, type ServeProcess } from '../support/serve.js';

const REQUESTS = Number(process.env['WAPII_FUZZ_REQUESTS'] ?? 2400);
const LANES = 8;
const SEED = Number(process.env['WAPII_FUZZ_SEED'] ?? 13);

interface Fuzzed {
  readonly bytes: Buffer;
  /** Whether the request, as generated, carries a valid token from a source allowed to call the API. */
  readonly mayCall: boolean;
  readonly targetsApi: boolean;
}

/**
 * Request lines, headers and paths, half built from a grammar of what goes wrong (bad targets,
 * bad escapes, wrong or doubled headers, foreign origins, broken framing) and half by flipping,
 * inserting and deleting bytes of a valid request.
 */
function fuzzer(seed: number, host: string, token: string, cookieName: string): () => Fuzzed {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number): boolean => random() < p;
  const port = host.split(':')[1];
  const randomText = (n: number): string => Array.from({ length: n }, () => String.fromCharCode(Math.floor(random() * 256))).join('');
  const methods = ['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'get', 'CONNECT', 'TRACE', 'G\0T', 'X'.repeat(300), ''];
  const apiPaths = ['/api/listDatasets', '/api/listSamples', '/api/getSample', '/api/editSample', '/api/undoEdit', '/api/importDataset', '/api/recheckDataset', '/api/exportDataset'];
  const targets = [
    '/', '//[', '//', 'http://a:99999/', `http://${host}/`, 'http://[::1/', '*', '/%ff', '/%', '/%zz', '/%c0%af', '/%00', '/api/%ff', '/api/%6cistDatasets',
    '/..%2f..%2f..%2fetc%2fpasswd', '/../../etc/passwd', '/assets/%2e%2e/%2e%2e/x', '/?token=', `/?token=${token}x`, `/?token=${token}`, '/api/events', '/api/', '/api/nope',
    '/api/listDatasets?x=%ff', '/\u00e9', '/a b', '/' + 'a'.repeat(9000), '/#frag', '?', '', ...apiPaths,
  ];
  const versions = ['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'HTTP/0.9', ''];
  const bodies = ['{}', '[]', 'null', '{', '{"datasetId":1}', '{"datasetId":"1"}', '{"datasetId":1,"sampleId":"nope","reason":"fuzz"}', '['.repeat(5000), '"\ud800"', '{"__proto__":{"x":1}}', randomText(64), ''];

  const grammar = (): Fuzzed => {
    const target = chance(0.5) ? pick(apiPaths) : pick(targets);
    const method = target.startsWith('/api/') && chance(0.7) ? 'POST' : pick(methods);
    const lines: string[] = [`${method} ${target} ${pick(versions)}`];
    const hostHeader = pick([host, host, host, `localhost:${port}`, 'evil.example', `${host}:1`, '', undefined]);
    if (hostHeader !== undefined) lines.push(`Host: ${hostHeader}`);
    if (chance(0.05)) lines.push(`Host: evil.example`);
    const auth = pick(['bearer', 'bearer', 'cookie', 'cookie', 'wrong', 'otherCookie', 'none']);
    if (auth === 'bearer') lines.push(`Authorization: Bearer ${token}`);
    if (auth === 'cookie') lines.push(`Cookie: a=b; ${cookieName}=${token}; c`);
    if (auth === 'wrong') lines.push(pick([`Authorization: Bearer ${token.slice(1)}`, 'Authorization: Bearer', 'Authorization: Basic Zm9vOmJhcg==', `Cookie: ${cookieName}=`]));
    if (auth === 'otherCookie') lines.push(`Cookie: wapii_token=${token}; wapii_token_1=${token}`);
    const origin = pick([undefined, undefined, `http://${host}`, `http://127.0.0.1:${Number(port) + 1}`, 'null', 'http://evil.example', randomText(8)]);
    if (origin !== undefined) lines.push(`Origin: ${origin}`);
    const site = pick([undefined, undefined, 'same-origin', 'same-site', 'cross-site', 'none', 'garbage']);
    if (site !== undefined) lines.push(`Sec-Fetch-Site: ${site}`);
    const type = pick(['application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'APPLICATION/JSON', undefined]);
    if (type !== undefined) lines.push(`Content-Type: ${type}`);
    if (chance(0.1)) lines.push(pick(['X-Bad Name: 1', 'NoColon', ': empty', ' folded: line', `X-Long: ${'v'.repeat(20_000)}`, `X-Ctl: a\x01b`, 'X-Latin: \u00ff\u00fe']));
    const body = Buffer.from(pick(bodies), 'latin1');
    const framings: Record<string, [string[], Buffer]> = {
      length: [[`Content-Length: ${body.length}`], body],
      chunked: [['Transfer-Encoding: chunked'], Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')])],
      badChunked: [['Transfer-Encoding: chunked'], Buffer.from(pick(['zz\r\nabc\r\n0\r\n\r\n', '5\r\nab\r\n', '-1\r\n', 'ffffffffffffffff\r\n']))],
      short: [[`Content-Length: ${body.length + 10}`], body],
      long: [[`Content-Length: ${Math.max(0, body.length - 1)}`], body],
      double: [[`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`], body],
      negative: [['Content-Length: -1'], body],
      none: [[], Buffer.alloc(0)],
    };
    const [framingHeaders, payload] = framings[pick(['length', 'length', 'length', 'chunked', 'badChunked', 'short', 'long', 'double', 'negative', 'none'])]!;
    lines.push(...framingHeaders);
    if (chance(0.1)) lines.push('Transfer-Encoding: chunked', `Content-Length: ${body.length}`);
    lines.push('Connection: close');
    const eol = chance(0.05) ? '\n' : '\r\n';
    const bytes = Buffer.concat([Buffer.from(lines.join(eol) + eol + eol, 'latin1'), payload]);
    const rightHost = hostHeader === host || hostHeader === `localhost:${port}`;
    const credentialed = auth === 'bearer' || auth === 'cookie';
    const sameOrigin = (origin === undefined || origin === `http://${host}`) && (site === undefined || site === 'same-origin') && (auth === 'bearer' || origin !== undefined || site !== undefined);
    return { bytes, mayCall: rightHost && credentialed && sameOrigin, targetsApi: target.startsWith('/api/') };
  };

  const valid = (): Buffer => {
    const body = '{"datasetId":1,"filter":{}}';
    return Buffer.from(`POST /api/listSamples HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
  };
  const mutated = (): Fuzzed => {
    const bytes = [...valid()];
    for (let n = 1 + Math.floor(random() * 4); n > 0; n--) {
      const at = Math.floor(random() * bytes.length);
      const op = pick(['flip', 'insert', 'delete', 'dup']);
      if (op === 'flip') bytes[at] = Math.floor(random() * 256);
      if (op === 'insert') bytes.splice(at, 0, pick([0, 10, 13, 32, 37, 47, 58, 0xff, Math.floor(random() * 256)]));
      if (op === 'delete') bytes.splice(at, 1);
      if (op === 'dup') bytes.splice(at, 0, ...bytes.slice(at, at + Math.floor(random() * 40)));
    }
    // Mutations can forge anything; only the outcome classes below are checked for them.
    return { bytes: Buffer.from(bytes), mayCall: true, targetsApi: false };
  };
  return () => (chance(0.5) ? grammar() : mutated());
}

describe('`wapii serve` under fuzzed request lines, headers and paths', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe(['--db', path.join(tempDir(), 'fuzz.db')]);
  });
  afterAll(async () => {
    await serve?.stop();
  });

  it(`answers ${REQUESTS} fuzzed requests without a 5xx or an unauthorised call, and answers correctly after each`, async () => {
    const host = new URL(serve.url).host;
    const cookieName = `wapii_token_${host.split(':')[1]}`;
    const healthy = async (): Promise<string> => {
      const response = await fetch(`${serve.url}/api/listDatasets`, { method: 'POST', headers: { Authorization: `Bearer ${serve.token}`, 'Content-Type': 'application/json' }, body: '{}' });
      return `${response.status} ${await response.text()}`;
    };
    const expected = await healthy();
    expect(expected).toMatch(/^200 \{"ok":true,"value":\[\{"id":1,"name":"demo"/);

    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let sent = 0;
    const lane = async (seed: number): Promise<void> => {
      const next = fuzzer(seed, host, serve.token, cookieName);
      while (sent < REQUESTS && failures.length < 5) {
        sent++;
        const request = next();
        const response: RawResponse = await rawRequest(serve.url, request.bytes, { idleMs: 5000, halfCloseAfterMs: 150 });
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const shown = JSON.stringify(request.bytes.toString('latin1').slice(0, 300));
        // Without `npm run build`, the UI's files answer 503 by design; everything else must not be a 5xx.
        const unbuilt = response.status === 503 && /\r\ncontent-type: text\/plain/i.test(response.head);
        if (response.status >= 500 && !unbuilt) failures.push(`${response.status} for ${shown}: ${response.body.slice(0, 200)}`);
        if (request.targetsApi && !request.mayCall && response.status === 200) failures.push(`200 for a request that may not call: ${shown}`);
        const after = await healthy();
        if (after !== expected) failures.push(`after ${shown}: ${after.slice(0, 200)}`);
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(SEED * 100 + i)));
    const counts = Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0]));
    console.log(`serve fuzz: ${sent} requests (seed ${SEED}), status counts ${JSON.stringify(counts)} (0 = closed without a status line)`);
    expect(failures).toEqual([]);
    expect(sent).toBe(REQUESTS);
    expect(serve.child.exitCode).toBeNull();
    expect(serve.output()).not.toMatch(/\n\s+at /);
  });
});
