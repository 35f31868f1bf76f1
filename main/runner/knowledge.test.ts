import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../api/result.js';
import type { RequestConfig } from '../api/schemas.js';
import { parseDataset } from '../dataset/index.js';
import { loadSpec, resolveEndpoint, type ApiSpec } from '../openapi/index.js';
import { chatPrompt, completionPrompt, endpointLine, exampleRequestLines, parseKnowledge, parseKnowledgeList } from '../prompt/index.js';
import { measureRecall } from '../retrieval/index.js';
import { DEMO_DATASET, DEMO_SPECS } from '../../test/support/paths.js';
import { withKnowledge } from './knowledge.js';
import { ConstraintMatcher, declaredNames } from '../constraints/index.js';

const CONDITIONS = ['none', 'endpoint', 'params', 'docs', 'example', 'full', 'endpoint+params', 'retrieved:3'];

describe('knowledge conditions in prompts (demo dataset)', () => {
  let spec: ApiSpec;
  let specs: Map<string, ApiSpec>;
  let samples: { index: number; api: string; task: string; config: RequestConfig }[];
  const prompt = (index: number, condition: string): string => {
    const [s] = withKnowledge([samples[index]!], samples, specs, unwrap(parseKnowledge(condition)));
    return completionPrompt(s!, 'full').text;
  };
  beforeAll(async () => {
    spec = unwrap(await loadSpec(fs.readFileSync(path.join(DEMO_SPECS, 'harbor.yaml'), 'utf8'), 'harbor.yaml'));
    specs = new Map([['harbor', spec]]);
    samples = unwrap(parseDataset(fs.readFileSync(DEMO_DATASET, 'utf8'), 'demo.json')).map((s, index) => ({ index, api: s.api, task: s.task, config: s.config }));
  });

  it('parses conditions, their combinations and lists; rejects unknown ones with the valid names', () => {
    expect(unwrap(parseKnowledge('full')).parts).toEqual(['endpoint', 'params', 'docs', 'example']);
    expect(unwrap(parseKnowledge('params+endpoint')).parts).toEqual(['endpoint', 'params']);
    expect(unwrap(parseKnowledge('retrieved:5'))).toEqual({ name: 'retrieved:5', parts: [], retrieved: 5 });
    expect(unwrap(parseKnowledgeList('none,endpoint,params,full')).map((c) => c.name)).toEqual(['none', 'endpoint', 'params', 'full']);
    const bad = parseKnowledge('endpoint+schema');
    expect(bad.ok ? '' : bad.error.message).toBe('unknown knowledge condition "schema" in "endpoint+schema": use none, endpoint, params, docs, example, full or retrieved:<k>, joined by + (endpoint+params)');
    expect(parseKnowledge('retrieved:0').ok).toBe(false);
  });

  it('shows, for one sample, what each condition adds', () => {
    // Sample 5: "Pause warehouse wh_204." → PATCH /warehouses/{warehouse_id}.
    const base = completionPrompt(samples[5]!, 'full').text;
    const texts = Object.fromEntries(CONDITIONS.map((c) => [c, prompt(5, c)]));
    expect(texts['none']).toBe(base);
    // endpoint: exactly the expected endpoint, and no other.
    expect(texts['endpoint']).toBe(base.replace("// Pause", '// Endpoint: PATCH https://api.harbor.example/v2/warehouses/{warehouse_id}\n\n// Pause'));
    expect(texts['params']).toContain('// - path warehouse_id: string, required\n');
    expect(texts['params']).toContain('// - body status: string, optional, one of "active", "paused", "closed"\n');
    expect(texts['params']).toContain('// - authentication, one of: header Authorization: Bearer <token>; header X-API-Key: <api-key>\n');
    expect(texts['params']).not.toContain('Endpoint:');
    expect(texts['docs']).toContain('// Summary: Update a warehouse');
    expect(texts['example']).toContain('// Example, for another task ("Rename warehouse wh_77 to "Lyon Sud" and set its capacity to 800 pallets."):\n// PATCH https://api.harbor.example/v2/warehouses/wh_77\n// headers: {"Authorization":"Bearer <token>","Content-Type":"application/json"}\n// body: {"name":"Lyon Sud","capacity_pallets":800}\n');
    for (const part of ['Endpoint:', 'Parameters:', 'Summary:', 'Example,']) expect(texts['full']).toContain(part);
    expect(texts['endpoint+params']).toContain('// Endpoint: PATCH');
    expect(texts['endpoint+params']).toContain('// Parameters:');
    expect(texts['endpoint+params']).not.toContain('Summary:');
    // Every prompt still ends with the starter the model continues.
    for (const text of Object.values(texts)) expect(text.endsWith("const axios = require('axios');\n\naxios.")).toBe(true);
    const chat = chatPrompt(withKnowledge([samples[5]!], samples, specs, unwrap(parseKnowledge('endpoint')))[0]!, 'full');
    expect(chat.text).toContain("block.\n\nFrom the API's description:\nEndpoint: PATCH https://api.harbor.example/v2/warehouses/{warehouse_id}\n\n```javascript\n");
  });

  it("never puts a sample's own request in `example`; none when no other sample uses the endpoint", () => {
    const callOf = (o: (typeof samples)[number]): string => exampleRequestLines(o.config).join('\n');
    let shown = 0;
    for (const s of samples) {
      const text = prompt(s.index, 'example');
      const endpoint = resolveEndpoint(spec, s.config.url, s.config.method).endpoint;
      const others = samples.filter((o) => o.index !== s.index && !isDeepStrictEqual(o.config, s.config) && resolveEndpoint(spec, o.config.url, o.config.method).endpoint === endpoint);
      if (others.length === 0) {
        expect(text).toBe(completionPrompt(s, 'full').text);
        continue;
      }
      shown++;
      const uncommented = text.replace(/^\/\/ /gm, '');
      expect(uncommented).not.toContain(callOf(s));
      expect(uncommented).toContain(`Example, for another task ("${others[0]!.task}"):\n${callOf(others[0]!)}`);
    }
    expect(shown).toBeGreaterThan(10);
  });

  it('keeps every prompt of every condition acceptable to constrained decoding (the example is a request, not an `axios.` call)', () => {
    for (const condition of CONDITIONS) {
      for (const s of samples) {
        const text = prompt(s.index, condition);
        const fed = ConstraintMatcher.create(spec, declaredNames(completionPrompt(s, 'full').starter)).feed(text);
        expect(fed, `${condition}, sample ${s.index}`).toEqual({ ok: true });
      }
    }
  });

  it('lists the expected endpoint among `retrieved:k` exactly when its rank is at most k', () => {
    const ranks = measureRecall(samples, specs).samples;
    expect(ranks.some((r) => r.rank !== null && r.rank > 1)).toBe(true);
    for (const k of [1, 2, 3, 5]) {
      for (const s of samples) {
        const expected = resolveEndpoint(spec, s.config.url, s.config.method).endpoint!;
        const listed = prompt(s.index, `retrieved:${k}`).split('\n').filter((l) => l.startsWith('// * '));
        expect(listed.length).toBe(Math.min(k, listed.length));
        const rank = ranks[s.index]!.rank;
        expect(listed.includes(`// * ${endpointLine(spec, expected)}`)).toBe(rank !== null && rank <= k);
      }
    }
  });
});
