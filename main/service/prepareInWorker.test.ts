import { afterAll, describe, expect, it } from 'vitest';
import { prepareInWorker, stopImportWorker } from './prepareInWorker.js';

const HEAP_MB = 64;

/** A spec whose text is a few MB but whose parse takes far more than HEAP_MB (a node per path, an object per node). */
function heavySpec(paths: number): string {
  const lines = ['openapi: 3.0.3', "info: {title: Heavy, version: '1'}", "servers: [{url: 'https://heavy.example'}]", 'paths:'];
  for (let i = 0; i < paths; i++) lines.push(`  /p${i}: {get: {parameters: [{name: q${i}, in: query, schema: {type: string}}], responses: {'200': {description: ok}}}}`);
  return lines.join('\n') + '\n';
}

describe('an import refused at the worker\'s memory limit', () => {
  afterAll(async () => {
    delete process.env['WAPII_IMPORT_HEAP_MB'];
    await stopImportWorker();
  });

  it('names the spec that was too large, not the dataset', async () => {
    await stopImportWorker();
    process.env['WAPII_IMPORT_HEAP_MB'] = String(HEAP_MB);
    const dataset = { filename: 'ds.json', content: JSON.stringify([{ api: 'heavy', task: 'x', config: { url: 'https://heavy.example/p1', method: 'get' } }, { api: 'light', task: 'y', config: { url: 'https://light.example/a', method: 'get' } }]) };
    const light = { filename: 'light.yaml', content: "openapi: 3.0.3\ninfo: {title: L, version: '1'}\nservers: [{url: 'https://light.example'}]\npaths:\n  /a: {get: {responses: {'200': {description: ok}}}}\n" };
    const result = await prepareInWorker(dataset, [light, { filename: 'heavy.yaml', content: heavySpec(60_000) }]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toBe(`heavy.yaml: reading it needed more than ${HEAP_MB} MB; is the file unusually large or self-referencing?`);
  }, 120_000);
});
