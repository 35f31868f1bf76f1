import path from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { cachedTestModel } from '../../main/generation/index.js';
import { localClient, openWorkbench, readDemo } from '../../main/service/index.js';
import { boundedAnswerSchema } from '../../main/synthesis/index.js';
import { loadSpec } from '../../main/openapi/index.js';
import { unwrap } from '../../main/api/result.js';
import { demoSubset } from '../support/demoSubset.js';
import { DEMO_SPECS, tempDir } from '../support/paths.js';
import { hasVocabBundle } from '../support/vocab.js';

const ASKED = ['GET /carriers/{carrier_code}/rates'];

/**
 * A random-weight model says nothing sensible; under the JSON-schema grammar every answer must
 * still be complete JSON valid against the bounded answer schema, and the job must end.
 */
describe.skipIf(!hasVocabBundle)('local synthesis with a random-weight model', () => {
  it('completes; every answer is schema-valid JSON, recorded as samples or as a per-endpoint failure', async () => {
    const demo = readDemo(path.dirname(DEMO_SPECS));
    using wb = openWorkbench({ db: path.join(tempDir('wapii-local-synth-'), 'wapii.db'), author: 'tester' });
    const client = localClient(wb.service);
    const { id: datasetId } = await client.importDataset({ name: 'subset', dataset: demoSubset(), specs: demo.specs });
    const job = await client.synthesize({ datasetId, provider: 'local', modelFile: cachedTestModel('qwen2'), endpoints: ASKED, wait: true });
    expect(job).toMatchObject({ provider: 'local', costUsd: 0, counts: { endpoints: 1, pending: 0 } });
    // Its one endpoint decides the job: a job with no endpoint done reads `failed`, not `finished`.
    expect(job.status).toBe(job.endpoints[0]!.status === 'failed' ? 'failed' : 'finished');
    expect(job.usage.requests).toBe(1);

    const harbor = unwrap(await loadSpec(demo.specs[0]!.content, demo.specs[0]!.filename));
    const ajv = new Ajv({ strict: false });
    const samples = (await client.listSamples({ datasetId, filter: {} })).filter((s) => s.provenance);
    const raws = [...job.endpoints.map((e) => e.rawAnswer), ...samples.map((s) => s.provenance!.rawAnswer)].filter((r): r is string => r !== undefined);
    expect(raws.length).toBeGreaterThanOrEqual(1);
    for (const [i, endpoint] of job.endpoints.entries()) {
      // One request per endpoint (local batch size 1): its answer is checked against its own bounded schema.
      const raw = endpoint.rawAnswer ?? samples.find((s) => s.provenance!.endpoint === endpoint.endpoint)?.provenance!.rawAnswer;
      expect(raw, endpoint.endpoint).toBeDefined();
      const schema = boundedAnswerSchema(harbor, [harbor.endpoints.find((e) => `${e.method.toUpperCase()} ${e.path}` === ASKED[i])!], 1);
      const validate = ajv.compile(schema);
      expect(validate(JSON.parse(raw!)), `${endpoint.endpoint}: ${ajv.errorsText(validate.errors)}\n${raw}`).toBe(true);
      // The model's random URL rarely names the endpoint: a schema-valid answer may still be refused, and is recorded.
      if (endpoint.status === 'failed') expect(['unasked_endpoint', 'invalid_sample', 'missing']).toContain(endpoint.failure);
      else expect(endpoint.samples).toBe(1);
    }
  }, 600_000);
});
