import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEMO_SPECS } from '../../test/support/paths.js';
import { argumentSource, isPermitted, loadSpec, pathCandidates, resolveEndpoint, validateValue, type ApiSpec } from './index.js';

const demoText = fs.readFileSync(`${DEMO_SPECS}/harbor.yaml`, 'utf8');

async function load(text: string, filename = 'spec.yaml'): Promise<ApiSpec> {
  const result = await loadSpec(text, filename);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

const minimal = (paths: string, components = '{}', version = '3.0.3'): string =>
  `openapi: ${version}\ninfo: {title: t, version: '1'}\nservers: [{url: 'https://x.test/api/'}]\npaths:\n${paths}\ncomponents: ${components}\n`;

describe('loadSpec', () => {
  it('builds servers, endpoints, parameters and security schemes of the demo spec', async () => {
    const spec = await load(demoText);
    expect(spec.servers).toEqual(['https://api.harbor.example/v2']);
    expect(spec.endpoints).toHaveLength(22);
    expect(spec.securitySchemes).toEqual([
      { name: 'bearerAuth', type: 'http', scheme: 'bearer' },
      { name: 'apiKeyAuth', type: 'apiKey', in: 'header', keyName: 'X-API-Key' },
    ]);
    const inventory = spec.endpoints.find((e) => e.operationId === 'listInventory');
    // Path-level parameters are merged with the operation's.
    expect(inventory?.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['path:warehouse_id', 'query:sku', 'query:min_quantity', 'query:include_reserved', 'query:limit']);
    expect(inventory?.parameters[0]?.required).toBe(true);
  });

  it('merges allOf request bodies and marks readOnly properties', async () => {
    const spec = await load(demoText);
    const create = spec.endpoints.find((e) => e.operationId === 'createShipment');
    const body = create?.requestBody?.contents[0];
    expect(body?.mediaType).toBe('application/json');
    expect(body?.properties.map((p) => p.name).sort()).toEqual(['destination', 'insurance', 'notify_emails', 'origin_warehouse_id', 'parcels', 'reference', 'service_level']);
    expect(body?.properties.filter((p) => p.required).map((p) => p.name).sort()).toEqual(['destination', 'origin_warehouse_id', 'parcels']);
    const update = spec.endpoints.find((e) => e.operationId === 'updateWarehouse');
    expect(update?.requestBody?.contents[0]?.properties.find((p) => p.name === 'id')?.readOnly).toBe(true);
  });

  it('reports malformed YAML with line and column', async () => {
    const result = await loadSpec('openapi: 3.0.0\npaths:\n  /a: {get: [unclosed\n', 'broken.yaml');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(/^broken\.yaml: malformed YAML at line \d+, column \d+: /);
  });

  it('reports an unresolved $ref by its pointer', async () => {
    const text = minimal(`  /a:\n    get:\n      parameters: [{$ref: '#/components/parameters/missing'}]\n      responses: {'200': {description: ok}}`);
    const result = await loadSpec(text, 'dangling.yaml');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toBe('dangling.yaml: unresolved $ref "#/components/parameters/missing": nothing in the document at that pointer; fix the references, or import with --lenient-refs (each broken one then stands for any value)');
  });

  it('rejects what is neither OpenAPI 3 nor Swagger 2.0 (which is converted, see import.test.ts)', async () => {
    const result = await loadSpec('swagger: "1.2"\npaths: {}\n', 'old.yaml');
    expect(result.ok ? '' : result.error.message).toBe('old.yaml: not an OpenAPI 3.0/3.1 or Swagger 2.0 document (Swagger 1.2)');
  });

  it('loads a recursive schema without hanging and validates through the recursion', async () => {
    const text = minimal(
      `  /nodes:\n    post:\n      requestBody:\n        content:\n          application/json:\n            schema: {$ref: '#/components/schemas/Node'}\n      responses: {'200': {description: ok}}`,
      `{schemas: {Node: {type: object, properties: {name: {type: string}, children: {type: array, items: {$ref: '#/components/schemas/Node'}}}}}}`,
    );
    const spec = await load(text);
    const body = spec.endpoints[0]?.requestBody?.contents[0];
    const children = body?.properties.find((p) => p.name === 'children');
    expect(validateValue(spec, children?.schema, [{ name: 'a', children: [{ name: 'b' }] }])).toEqual([]);
    expect(validateValue(spec, children?.schema, [{ name: 'a', children: [{ name: 7 }] }])).toEqual([{ path: ['0', 'children', '0', 'name'], message: 'must be of type string' }]);
  });

  it('validates OpenAPI 3.1 schemas as JSON Schema 2020-12', async () => {
    const text = minimal(`  /a:\n    get:\n      parameters: [{name: n, in: query, schema: {type: [integer, 'null']}}]\n      responses: {'200': {description: ok}}`, '{}', '3.1.0');
    const spec = await load(text);
    const schema = spec.endpoints[0]?.parameters[0]?.schema;
    expect(validateValue(spec, schema, null)).toEqual([]);
    expect(validateValue(spec, schema, 'x')).toHaveLength(1);
  });

  it('reads JSON specs too', async () => {
    const spec = await load(JSON.stringify({ openapi: '3.0.0', info: { title: 'J', version: '1' }, paths: { '/a': { get: { responses: {} } } } }), 'j.json');
    expect(spec.title).toBe('J');
    expect(spec.endpoints.map((e) => `${e.method} ${e.path}`)).toEqual(['get /a']);
  });
});

describe('URL → endpoint candidates (scoring.md §4)', () => {
  const sheets = minimal(
    [
      `  /v/{range}:\n    get: {responses: {'200': {description: ok}}}`,
      `  /v/{range}:clear:\n    post: {responses: {'200': {description: ok}}}`,
      `  /v/fixed:\n    get: {responses: {'200': {description: ok}}}`,
    ].join('\n'),
  );

  it('orders by fewest parameters, then longest template', async () => {
    const spec = await load(sheets);
    expect(pathCandidates(spec, 'https://x.test/api/v/A1:clear').map((c) => c.template.path)).toEqual(['/v/{range}:clear', '/v/{range}']);
    expect(pathCandidates(spec, 'https://x.test/api/v/fixed').map((c) => c.template.path)).toEqual(['/v/fixed', '/v/{range}']);
    expect(pathCandidates(spec, 'https://x.test/api/v/Sheet1%21A1').map((c) => c.pathParams)).toEqual([{ range: 'Sheet1!A1' }]);
  });

  it('finds no candidate for another server or a parameter with a slash', async () => {
    const spec = await load(sheets);
    expect(pathCandidates(spec, 'https://other.test/api/v/fixed')).toEqual([]);
    expect(pathCandidates(spec, 'https://x.test/api/v/a/b')).toEqual([]);
  });

  it('resolves to the first candidate defining the method', async () => {
    const spec = await load(sheets);
    expect(resolveEndpoint(spec, 'https://x.test/api/v/A1:clear', 'get').endpoint?.path).toBe('/v/{range}');
    expect(resolveEndpoint(spec, 'https://x.test/api/v/A1:clear', 'POST').endpoint?.path).toBe('/v/{range}:clear');
    expect(resolveEndpoint(spec, 'https://x.test/api/v/A1', 'delete').endpoint).toBeUndefined();
  });
});

describe('is this argument permitted here', () => {
  it('follows parameters, body properties, security schemes and Content-Type', async () => {
    const spec = await load(demoText);
    const listShipments = resolveEndpoint(spec, 'https://api.harbor.example/v2/shipments', 'get').endpoint!;
    const createLabel = resolveEndpoint(spec, 'https://api.harbor.example/v2/shipments/s1/labels', 'post').endpoint!;
    expect(isPermitted(spec, listShipments, 'params', 'status')).toBe(true);
    expect(isPermitted(spec, listShipments, 'params', 'format')).toBe(false);
    expect(isPermitted(spec, listShipments, 'headers', 'x-request-id')).toBe(true); // headers are case-insensitive
    expect(argumentSource(spec, listShipments, 'headers', 'Authorization')?.kind).toBe('security');
    expect(argumentSource(spec, listShipments, 'headers', 'X-API-Key')?.kind).toBe('security');
    expect(isPermitted(spec, listShipments, 'headers', 'Content-Type')).toBe(false); // only for put/post/patch
    expect(isPermitted(spec, createLabel, 'headers', 'Content-Type')).toBe(true);
    expect(isPermitted(spec, createLabel, 'data', 'format')).toBe(true);
    expect(isPermitted(spec, createLabel, 'data', 'dpi')).toBe(false);
    expect(isPermitted(spec, createLabel, 'path_params', 'shipment_id')).toBe(true);
  });
});

describe('loadSpec refuses what it would otherwise alter or crash on, with one line', () => {
  const message = async (text: string, filename = 'spec.yaml'): Promise<string> => {
    const result = await loadSpec(text, filename);
    return result.ok ? 'loaded' : result.error.message;
  };
  const ops = (text: string): Promise<string[]> => load(text).then((s) => s.endpoints.map((e) => `${e.method} ${e.path} ${e.summary ?? ''}`));

  it('a duplicate key, naming it and its line (the parser would keep only the last operation)', async () => {
    const dup = minimal(`  /a:\n    get: {summary: first, responses: {'200': {description: ok}}}\n    get: {summary: second, responses: {'200': {description: ok}}}`);
    expect(await message(dup)).toBe('spec.yaml: duplicate key "get" at line 7, column 5; keys must be unique (a parser would silently keep only the last)');
    const json = '{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},\n "paths": {"/a": {}, "/b": {},\n  "/a": {}}}';
    expect(await message(json, 'spec.json')).toBe('spec.json: duplicate key "/a" at line 3, column 3; keys must be unique (a parser would silently keep only the last)');
    // The same key in different objects is fine.
    expect(await ops(minimal(`  /a:\n    get: {summary: a, responses: {'200': {description: ok}}}\n  /b:\n    get: {summary: b, responses: {'200': {description: ok}}}`))).toEqual(['get /a a', 'get /b b']);
  });

  it('a YAML alias bomb', async () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const [i, name] of [...'bcdefgh'].entries()) levels.push(`${name}: &${name} [${Array(9).fill(`*${'abcdefgh'[i]}`).join(', ')}]`);
    expect(await message(`${minimal('  {}')}x-bomb:\n${levels.map((l) => `  ${l}`).join('\n')}\n`)).toBe(
      'spec.yaml: YAML aliases expand to more than 1000 references (an alias bomb?); refusing to expand them',
    );
  });

  it('nesting 100,000 levels deep, in JSON, YAML flow and YAML block style', async () => {
    const n = 100_000;
    expect(await message(`{"openapi": "3.0.3", "paths": {}, "x": ${'['.repeat(n)}${']'.repeat(n)}}`, 'spec.json')).toBe('spec.json: nesting deeper than 128 levels at line 1, column 168');
    expect(await message(`${minimal('  {}')}x-deep: ${'{a: '.repeat(n)}1${'}'.repeat(n)}\n`)).toMatch(/^spec\.yaml: nesting deeper than 128 levels at line 7, column \d+$/);
    expect(await message(`${minimal('  {}')}x-deep:\n  ${'- '.repeat(n)}x\n`)).toMatch(/^spec\.yaml: nesting deeper than 128 levels at line 8, column \d+$/);
    // Aliases can build what the text does not nest: caught on the composed value.
    const anchored = `${minimal('  {}')}x-a: &deep ${'['.repeat(100)}${']'.repeat(100)}\nx-b: ${'['.repeat(100)}*deep${']'.repeat(100)}\n`;
    expect(await message(anchored)).toMatch(/^spec\.yaml: nesting deeper than 128 levels at \/x-b\/0\/0\/0\/0\/0\/…$/);
  });

  it('a `__proto__` key, which JavaScript objects cannot keep as data', async () => {
    expect(await message(minimal(`  /a:\n    get:\n      responses: {'200': {description: ok}}\n      __proto__: {summary: x}`))).toBe(
      'spec.yaml: the key "__proto__" at /paths/~1a/get/__proto__ is not supported (JavaScript objects cannot keep it as data); rename or remove it',
    );
  });
});
