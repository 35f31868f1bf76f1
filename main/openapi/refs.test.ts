import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { WAPIIBENCH_SPECS } from '../../test/support/paths.js';
import { loadSpec } from './index.js';
import { EXPANDED_NODES_LIMIT, expandedNodes } from './refs.js';

/** A description whose schema S<n> refers to S<n-1> twice: tiny as text, 2^n nodes when inlined. */
function doubling(levels: number): string {
  const schemas: Record<string, unknown> = { S0: { type: 'string' } };
  for (let i = 1; i <= levels; i++) schemas[`S${i}`] = { type: 'object', properties: { a: { $ref: `#/components/schemas/S${i - 1}` }, b: { $ref: `#/components/schemas/S${i - 1}` } } };
  const body = { content: { 'application/json': { schema: { $ref: `#/components/schemas/S${levels}` } } } };
  return JSON.stringify({ openapi: '3.0.0', info: { title: 't', version: '1' }, servers: [{ url: 'https://api.test' }], paths: { '/a': { post: { requestBody: body, responses: { '200': { description: 'ok' } } } } }, components: { schemas } });
}

describe('references that expand past reason', () => {
  it('refuses a doubling chain of $refs in one line, at once, where resolving it would take hours', async () => {
    const loaded = await loadSpec(doubling(40), 'dag.json');
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.error.message).toBe(`dag.json: its $refs expand to more than ${EXPANDED_NODES_LIMIT.toLocaleString('en')} nodes when inlined (a schema that refers to another more than once at every level doubles with each); refused rather than spending minutes resolving it`);
  });

  it('loads a short doubling chain, and counts the WAPIIBench descriptions well under the limit', async () => {
    expect((await loadSpec(doubling(8), 'dag.json')).ok).toBe(true);
    for (const file of fs.readdirSync(WAPIIBENCH_SPECS)) {
      const n = expandedNodes(parse(fs.readFileSync(path.join(WAPIIBENCH_SPECS, file), 'utf8'), { maxAliasCount: -1 }) as Record<string, unknown>);
      expect(n, file).toBeDefined();
      expect(n!).toBeLessThan(EXPANDED_NODES_LIMIT / 10);
    }
  });

  it('counts a reference back into its own chain once', () => {
    const doc = { components: { schemas: { Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } } } }, root: { $ref: '#/components/schemas/Node' } };
    expect(expandedNodes(doc)).toBeLessThan(20);
  });
});
