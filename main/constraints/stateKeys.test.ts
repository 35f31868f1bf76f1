import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { DEMO_SPECS } from '../../test/support/paths.js';
import { ConstraintMatcher } from './index.js';

let spec: ApiSpec;
beforeAll(async () => {
  const loaded = await loadSpec(fs.readFileSync(`${DEMO_SPECS}/harbor.yaml`, 'utf8'), 'harbor.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  spec = loaded.value;
});

const BASE = 'https://api.harbor.example/v2';
/** Characters a state may or may not take next: a placeholder's, a URL's, a string's ends. */
const PROBES = [...'>a1_-. /<\'"`$?{}x'];
const next = (m: ConstraintMatcher): string => PROBES.filter((c) => m.clone().push(c)).join('');

/**
 * The token mask is memoised per state key, and its automaton keeps one matcher per key: two
 * states under one key must take the same characters, or a mask computed from one is wrong for
 * the other. The token bench beside XGrammar found one: the empty placeholder `<` and `<id` of a
 * path parameter shared a key, so after a mask had met `<` (where `>` cannot follow), a later
 * mask refused the tokens `<s>` and `<unk>` that the check allowed.
 */
describe('state keys', () => {
  it('states with one key take the same next characters', () => {
    const prefixes = ['', '<', '<w', '<wh_1', '<wh_1>', 'wh_1', '<wh 1', '${', '`'].flatMap((v) => [`axios.get('${BASE}/warehouses/${v}`, `axios.get(\`${BASE}/warehouses/${v}`]);
    const byKey = new Map<string, { prefix: string; next: string }>();
    for (const prefix of prefixes) {
      const m = ConstraintMatcher.create(spec);
      if (!m.feed(prefix).ok) continue;
      const key = String(m.stateKey());
      const seen = byKey.get(key);
      if (seen) expect({ prefix, next: next(m) }).toEqual({ prefix, next: seen.next });
      else byKey.set(key, { prefix, next: next(m) });
    }
    expect(byKey.size).toBeGreaterThan(6);
  });
});
