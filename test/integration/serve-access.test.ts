import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/paths.js';
import { startServe } from '../support/serve.js';

// Issue 13: `--token` is visible to every local user in the process list; `--host` anywhere but loopback said nothing.
describe('`wapii serve` takes its token from the environment or a file, and warns off loopback', () => {
  const db = (): string => path.join(tempDir(), 'access.db');

  it('uses $WAPII_TOKEN, with nothing on the command line', async () => {
    const serve = await startServe(['--db', db()], { serveArgs: ['--no-demo'], env: { WAPII_TOKEN: 'from-the-environment-0123' } });
    try {
      expect(serve.token).toBe('from-the-environment-0123');
      expect(serve.child.spawnargs.join(' ')).not.toContain('from-the-environment');
    } finally {
      await serve.stop();
    }
  });

  it('reads --token-file, and --token prints a note about the process list', async () => {
    const file = path.join(tempDir(), 'token');
    fs.writeFileSync(file, 'from-a-file-0123456789\n', { mode: 0o600 });
    const fromFile = await startServe(['--db', db()], { serveArgs: ['--no-demo', '--token-file', file] });
    await fromFile.stop();
    expect(fromFile.token).toBe('from-a-file-0123456789');
    const flagged = await startServe(['--db', db()], { serveArgs: ['--no-demo', '--token', 'on-the-command-line-0123'] });
    await flagged.stop();
    expect(flagged.output()).toContain('note: --token is visible to every local user in the process list; WAPII_TOKEN or --token-file keep it private');
  });

  it('refuses a token that cannot travel in a URL or cookie as one line', async () => {
    await expect(startServe(['--db', db()], { serveArgs: ['--no-demo'], env: { WAPII_TOKEN: 'short' } })).rejects.toThrow(/wapii: the token from \$WAPII_TOKEN must be 16 to 512 characters/);
  });

  it('warns when listening on an address other than loopback', async () => {
    const serve = await startServe(['--db', db()], { serveArgs: ['--no-demo', '--host', '0.0.0.0'] });
    // Bound to every interface, it answers a browser that names one of this machine's addresses, and no other name.
    const port = new URL(serve.url).port;
    const address = Object.values(os.networkInterfaces()).flatMap((l) => l ?? []).find((i) => i.family === 'IPv4')?.address ?? '127.0.0.1';
    const status = async (host: string): Promise<number> =>
      (await rawPost(Number(port), host, serve.token)).status;
    expect(await status(`${address}:${port}`)).toBe(200);
    expect(await status(`attacker.example:${port}`)).toBe(403);
    await serve.stop();
    expect(serve.output()).toContain('warning: --host 0.0.0.0 is not loopback');
    const local = await startServe(['--db', db()], { serveArgs: ['--no-demo', '--host', '127.0.0.1'] });
    await local.stop();
    expect(local.output()).not.toContain('warning');
  });
});

/** A POST with a Host header of our choosing (fetch does not let a caller set Host). */
function rawPost(port: number, host: string, token: string): Promise<{ status: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/api/listDatasets', method: 'POST', headers: { Host: host, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end('{}');
  });
}
