import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, downloadStandIn, selfSignedCertificate, type StandIn } from '../../test/support/downloadStandIn.js';
import { tempDir } from '../../test/support/paths.js';
import { downloadModelFile, mayCarryToken, type DownloadState } from './download.js';

const TOKEN = 'hf_secret_token_for_tests';
const fresh = (): DownloadState => ({ file: '', downloadedBytes: 0, totalBytes: 0, message: undefined });
const bytes = Buffer.from('GGUF'.padEnd(100_000, 'x'));

describe('the Hugging Face token', () => {
  let tls: { key: string; cert: string };
  let endpoint: StandIn;
  let other: StandIn;
  let plain: StandIn;
  beforeAll(async () => {
    tls = selfSignedCertificate();
    endpoint = await downloadStandIn(tls);
    other = await downloadStandIn(tls);
    plain = await downloadStandIn();
  });
  afterAll(async () => {
    await Promise.all([endpoint.close(), other.close(), plain.close()]);
  });
  const auth = (s: StandIn, p: string): (string | undefined)[] => s.seen.filter((r) => r.path === p).map((r) => r.headers.authorization);

  it('goes over https to the configured endpoint’s exact origin, and not after a redirect to another origin', async () => {
    endpoint.routes.set('/u/r/resolve/main/m.gguf', { data: bytes });
    endpoint.routes.set('/u/r/resolve/main/away.gguf', { redirect: `${other.origin}/cdn/away.gguf` });
    other.routes.set('/cdn/away.gguf', { redirect: `${endpoint.origin}/u/r/resolve/main/back.gguf` });
    endpoint.routes.set('/u/r/resolve/main/back.gguf', { data: bytes });
    const folder = tempDir();
    const common = { folder, hfEndpoint: `${endpoint.origin}/`, hfToken: TOKEN, ca: tls.cert, signal: new AbortController().signal };
    const file = await downloadModelFile({ ...common, source: 'hf:u/r/m.gguf', state: fresh() });
    expect(fs.readFileSync(file).equals(bytes)).toBe(true);
    expect(auth(endpoint, '/u/r/resolve/main/m.gguf')).toEqual([`Bearer ${TOKEN}`]);
    // Endpoint -> another origin -> back to the endpoint: the token went to the first request only.
    await downloadModelFile({ ...common, source: 'hf:u/r/away.gguf', state: fresh() });
    expect(auth(endpoint, '/u/r/resolve/main/away.gguf')).toEqual([`Bearer ${TOKEN}`]);
    expect(auth(other, '/cdn/away.gguf')).toEqual([undefined]);
    expect(auth(endpoint, '/u/r/resolve/main/back.gguf')).toEqual([undefined]);
    // A URL on another origin than the endpoint's never gets it.
    other.routes.set('/plain.gguf', { data: bytes });
    await downloadModelFile({ ...common, source: `${other.origin}/plain.gguf`, state: fresh() });
    expect(auth(other, '/plain.gguf')).toEqual([undefined]);
  });

  it('never goes over plain http, not even to the configured endpoint', async () => {
    plain.routes.set('/u/r/resolve/main/m.gguf', { data: bytes });
    await downloadModelFile({ folder: tempDir(), source: 'hf:u/r/m.gguf', hfEndpoint: `${plain.origin}/`, hfToken: TOKEN, signal: new AbortController().signal, state: fresh() });
    expect(auth(plain, '/u/r/resolve/main/m.gguf')).toEqual([undefined]);
    expect(mayCarryToken(new URL('http://127.0.0.1:1/x'), 'http://127.0.0.1:1/', false)).toBe(false);
    expect(mayCarryToken(new URL('https://huggingface.co:444/x'), 'https://huggingface.co/', false)).toBe(false);
    expect(mayCarryToken(new URL('https://huggingface.co/x'), 'https://huggingface.co/', true)).toBe(false);
    expect(mayCarryToken(new URL('https://huggingface.co/x'), 'https://huggingface.co/', false)).toBe(true);
  });

  it('is not read from another tool’s cache (huggingface-cli’s token file)', async () => {
    const home = tempDir();
    fs.writeFileSync(path.join(home, 'token'), 'hf_from_the_cache');
    const saved = { HF_HOME: process.env['HF_HOME'], HF_TOKEN: process.env['HF_TOKEN'] };
    process.env['HF_HOME'] = home;
    delete process.env['HF_TOKEN'];
    try {
      endpoint.routes.set('/u/r/resolve/main/cache.gguf', { data: bytes });
      await downloadModelFile({ folder: tempDir(), source: 'hf:u/r/cache.gguf', hfEndpoint: `${endpoint.origin}/`, ca: tls.cert, signal: new AbortController().signal, state: fresh() });
      expect(auth(endpoint, '/u/r/resolve/main/cache.gguf')).toEqual([undefined]);
    } finally {
      for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
});

describe('a download that cannot succeed ends at once, with one line', () => {
  let server: StandIn;
  beforeAll(async () => {
    server = await downloadStandIn();
  });
  afterAll(() => server.close());

  it('a refused connection is not retried', async () => {
    const port = await closedPort();
    const state = fresh();
    await expect(downloadModelFile({ folder: tempDir(), source: `http://127.0.0.1:${port}/m.gguf`, signal: new AbortController().signal, state })).rejects.toThrow(/^connection refused \(ECONNREFUSED 127\.0\.0\.1:\d+\)$/);
    expect(state.message).toBeUndefined();
  });

  it('a redirect to file: is refused, not followed or retried', async () => {
    server.routes.set('/passwd.gguf', { redirect: 'file:///etc/passwd' });
    await expect(downloadModelFile({ folder: tempDir(), source: `${server.origin}/passwd.gguf`, signal: new AbortController().signal, state: fresh() })).rejects.toThrow(
      'the server redirected to file:///etc/passwd; only http(s) redirects are followed',
    );
    expect(server.seen.filter((r) => r.path === '/passwd.gguf')).toHaveLength(1);
  });

  it('a server that closes early is retried a bounded number of times, each retry said, then fails', async () => {
    server.routes.set('/early.gguf', { data: bytes, closeAfter: 4096 });
    const state = fresh();
    const messages: string[] = [];
    const watch = setInterval(() => state.message && messages.at(-1) !== state.message && messages.push(state.message), 5);
    await expect(downloadModelFile({ folder: tempDir(), source: `${server.origin}/early.gguf`, signal: new AbortController().signal, state, retryDelayMs: () => 50 })).rejects.toThrow(
      'the server closed the connection after 16.0 KiB of 97.7 KiB (after 3 retries)',
    );
    clearInterval(watch);
    // Each retry asks for the rest of the file (no ETag, no Last-Modified: the length checks it), not for byte 0 again.
    expect(server.seen.filter((r) => r.path === '/early.gguf').map((r) => r.headers.range)).toEqual([undefined, 'bytes=4096-', 'bytes=8192-', 'bytes=12288-']);
    expect(messages.filter((m) => m.includes('retry'))).toEqual([1, 2, 3].map((n) => `the server closed the connection after ${4 * n}.0 KiB of 97.7 KiB; retry ${n} of 3 in 0.1 s`));
  });
});

describe('hf: references', () => {
  it('hf:user/repo:quant downloads the file the endpoint’s manifest names', async () => {
    const server = await downloadStandIn();
    try {
      server.routes.set('/v2/u/r/manifests/Q8_0', { data: Buffer.from(JSON.stringify({ ggufFile: { rfilename: 'sub/r-Q8_0.gguf' } })) });
      server.routes.set('/u/r/resolve/main/sub/r-Q8_0.gguf', { data: bytes });
      const state = fresh();
      const file = await downloadModelFile({ folder: tempDir(), source: 'hf:u/r:Q8_0', hfEndpoint: `${server.origin}/`, signal: new AbortController().signal, state });
      expect(path.basename(file)).toBe('r-Q8_0.gguf');
      expect(fs.readFileSync(file).equals(bytes)).toBe(true);
      expect(server.seen.find((r) => r.path === '/v2/u/r/manifests/Q8_0')?.headers['user-agent']).toBe('llama-cpp');
      await expect(downloadModelFile({ folder: tempDir(), source: 'hf:u/r:Q2_K', hfEndpoint: `${server.origin}/`, signal: new AbortController().signal, state: fresh() })).rejects.toThrow(
        /^the server answered 404 for http:\/\/127\.0\.0\.1:\d+\/v2\/u\/r\/manifests\/Q2_K: no such model or quantisation$/,
      );
    } finally {
      await server.close();
    }
  });
});
