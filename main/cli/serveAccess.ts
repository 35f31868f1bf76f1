import fs from 'node:fs';
import { isLoopback } from '../api/httpGuard.js';
import { WapiiError } from '../api/result.js';

/** Where `wapii serve` takes its token from, besides a random one. */
export const TOKEN_ENV = 'WAPII_TOKEN';

/** Sent in a URL and a cookie, so limited to characters neither needs to escape. */
const TOKEN_SHAPE = /^[A-Za-z0-9._~-]{16,512}$/;

/**
 * The access token for `wapii serve`: `--token` (visible to every local user in the process
 * list, hence the note), else `--token-file` (the first line of the file), else $WAPII_TOKEN,
 * else undefined (the server picks a random one).
 */
export function resolveServeToken(opts: { token?: string; tokenFile?: string }, env: NodeJS.ProcessEnv, note: (message: string) => void): string | undefined {
  if (opts.token !== undefined && opts.tokenFile !== undefined) throw new WapiiError('bad_input', 'give either --token or --token-file, not both');
  let token: string | undefined;
  let source: string;
  if (opts.token !== undefined) {
    token = opts.token;
    source = '--token';
    note(`note: --token is visible to every local user in the process list; ${TOKEN_ENV} or --token-file keep it private`);
  } else if (opts.tokenFile !== undefined) {
    source = `--token-file ${opts.tokenFile}`;
    try {
      token = fs.readFileSync(opts.tokenFile, 'utf8').split(/\r?\n/)[0]?.trim();
    } catch (error) {
      throw new WapiiError('bad_input', `cannot read ${source}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
    }
  } else {
    token = env[TOKEN_ENV] || undefined;
    source = `$${TOKEN_ENV}`;
  }
  if (token !== undefined && !TOKEN_SHAPE.test(token)) {
    throw new WapiiError('bad_input', `the token from ${source} must be 16 to 512 characters of A-Z, a-z, 0-9, '.', '_', '~' or '-'`);
  }
  return token;
}

/** A warning for a listening address other than loopback, or undefined. */
export function hostWarning(host: string): string | undefined {
  if (isLoopback(host)) return undefined;
  return `warning: --host ${host} is not loopback: anyone who can reach this address and learns the token can read and change the database; the token travels unencrypted (plain HTTP)`;
}
