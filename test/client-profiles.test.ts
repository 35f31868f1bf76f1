import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENT_PROFILES, clientField, clientOf, HTTP_CLIENTS } from '../main/api/clients.js';
import { extractInvocation } from '../main/execution/index.js';
import { setupFor } from '../main/prompt/index.js';
import { REPO_ROOT } from './support/paths.js';

/** Every source file of the engine and the pages, tests aside. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return sources(file);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [file] : [];
  });
}

/** A comparison with a client's name (`x === 'fetch'`, `'axios' !== y`), or a ternary on one. */
const COMPARES_A_CLIENT = new RegExp(`(?:[=!]==\\s*'(?:${HTTP_CLIENTS.join('|')})')|(?:'(?:${HTTP_CLIENTS.join('|')})'\\s*[=!]==)`);

describe('one profile per HTTP client (issue 35 item 4)', () => {
  it('no code outside main/api/clients.ts compares a client name (12 files did before)', () => {
    const files = [...sources(path.join(REPO_ROOT, 'main')), ...sources(path.join(REPO_ROOT, 'renderer', 'src'))].filter((f) => !f.endsWith(path.join('api', 'clients.ts')));
    const branching = files.filter((f) => COMPARES_A_CLIENT.test(fs.readFileSync(f, 'utf8'))).map((f) => path.relative(REPO_ROOT, f));
    expect(branching).toEqual([]);
  });

  it("each profile's opener is where its fixed starter hands over, and extraction finds that call", () => {
    const sample = { task: 'List the carriers.', config: { url: 'https://api.harbor.example/v2/carriers', method: 'get' } };
    for (const client of HTTP_CLIENTS) {
      const setup = setupFor(sample, 'full', { client });
      expect(setup.starter.endsWith(CLIENT_PROFILES[client].opener)).toBe(true);
      expect(setup.callStart).toBe(setup.starter.length - CLIENT_PROFILES[client].opener.length);
      const found = extractInvocation(`${setup.starter}'https://api.harbor.example/v2/carriers')`, setup);
      expect(found.status).not.toBe('no_request');
    }
  });

  it('reads a stored setting: an absent or unknown client is Axios, and only another client is recorded', () => {
    expect(clientOf(undefined)).toBe('axios');
    expect(clientOf('curl')).toBe('axios');
    expect(clientOf('fetch')).toBe('fetch');
    expect(clientField('axios')).toEqual({});
    expect(clientField('fetch')).toEqual({ client: 'fetch' });
  });
});
