import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok, unwrap } from '../api/result.js';
import type { JsonValue } from '../api/schemas.js';
import { REPO_ROOT } from '../../test/support/paths.js';
import { checkRequest } from '../dataset/checks.js';
import { bundleSpec, CONVERTED_FROM, importSpecFile, loadSpec, parseSpecText, resolveEndpoint, splitServer, validateValue, type ApiSpec } from './index.js';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'openapi');
const fixture = (name: string): string => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
const readDisk = (file: string) => ok(fs.readFileSync(file, 'utf8'));
const load = async (name: string): Promise<ApiSpec> => unwrap(await loadSpec(fixture(name), path.basename(name)));

describe('Swagger 2.0', () => {
  it('is converted on import, the original kept beside the converted one and named by it', async () => {
    const original = fixture('swagger2/petshop.yaml');
    const imported = unwrap(await importSpecFile({ filename: 'petshop.yaml', content: original }));
    expect(imported.original).toEqual({ filename: 'petshop.swagger2.yaml', content: original });
    expect(imported.file.filename).toBe('petshop.yaml');
    const doc = unwrap(parseSpecText(imported.file.content, 'petshop.yaml'));
    expect(doc['openapi']).toMatch(/^3\.0\./);
    expect(doc[CONVERTED_FROM]).toMatchObject({ swagger: '2.0', filename: 'petshop.swagger2.yaml', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const spec = unwrap(await loadSpec(imported.file.content, 'petshop.yaml'));
    expect(spec.servers).toEqual(['https://api.petshop.example/v1']);
    expect(spec.endpoints.map((e) => `${e.method} ${e.path}`)).toEqual(['get /pets', 'post /pets', 'get /pets/{petId}', 'post /pets/{petId}/photos']);
    // formData parameters become a form-encoded body; `body` parameters a JSON one; basic auth an http scheme.
    const photo = spec.endpoints[3]!.requestBody!.contents[0]!;
    expect(photo.mediaType).toBe('application/x-www-form-urlencoded');
    expect(photo.properties.map((p) => `${p.name}${p.required ? '!' : ''}`)).toEqual(['caption!', 'public']);
    expect(spec.endpoints[1]!.requestBody!.contents[0]!.properties.map((p) => p.name)).toEqual(['name', 'tag', 'owner']);
    expect(spec.securitySchemes).toContainEqual({ name: 'basic', type: 'http', scheme: 'basic' });
    expect(checkRequest(spec, { url: 'https://api.petshop.example/v1/pets/7', method: 'get' })).toEqual([]);
    expect(checkRequest(spec, { url: 'https://api.petshop.example/v1/pets', method: 'post', data: { name: 'Rex', owner: { email: 'a@b.example' } } })).toEqual([]);
  });

  it('loads as it is stored elsewhere too (converted when read)', async () => {
    const spec = await load('swagger2/petshop.yaml');
    expect(spec.endpoints).toHaveLength(4);
  });
});

describe('a description split over files', () => {
  it('is bundled from its folder into one document that loads on its own', async () => {
    const entry = path.join(FIXTURES, 'multifile', 'shop.yaml');
    const bundled = unwrap(await bundleSpec(entry, fs.readFileSync(entry, 'utf8'), readDisk));
    expect(bundled.content).not.toMatch(/\$ref: "?\.\//);
    const spec = unwrap(await loadSpec(bundled.content, bundled.filename));
    const order = spec.endpoints.find((e) => e.operationId === 'createOrder')!;
    expect(order.requestBody!.contents[0]!.properties.map((p) => `${p.name}${p.required ? '!' : ''}`)).toEqual(['items!', 'total', 'note']);
    expect(spec.endpoints.find((e) => e.operationId === 'getOrder')!.parameters.map((p) => p.name)).toEqual(['orderId', 'expand']);
    expect(checkRequest(spec, { url: 'https://shop.example/api/orders', method: 'post', data: { items: [{ sku: 'A', quantity: 1 }], total: { amount: 5, currency: 'EUR' } } })).toEqual([]);
    expect(checkRequest(spec, { url: 'https://shop.example/api/orders', method: 'post', data: { items: [{ sku: 'A', quantity: 1 }], total: { amount: 5, currency: 'GBP' } } })).toHaveLength(1);
  });

  it('refuses, in one line, a $ref that leaves the folder or names a URL, reading nothing there', async () => {
    const reads: string[] = [];
    const spy = (file: string) => (reads.push(file), readDisk(file));
    for (const [name, message] of [
      ['leaky.yaml', /^leaky\.yaml: \$ref "\.\.\/multifile\/shop\/parameters\.yaml" leaves the spec's folder .*escape; only files inside it are read$/],
      ['remote.yaml', /^remote\.yaml: \$ref "https:\/\/schemas\.example\/parameters\.yaml" names a URL; only files inside the spec's folder are read/],
    ] as const) {
      const entry = path.join(FIXTURES, 'escape', name);
      const result = await bundleSpec(entry, fs.readFileSync(entry, 'utf8'), spy);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toMatch(message);
    }
    expect(reads).toEqual([]);
  });

  it('leaves a single-file document as it is', async () => {
    const text = fixture('openapi31/messenger.yaml');
    expect(unwrap(await bundleSpec(path.join(FIXTURES, 'openapi31', 'messenger.yaml'), text, readDisk))).toEqual({ filename: 'messenger.yaml', content: text });
  });
});

describe('OpenAPI 3.1 and the server forms of public descriptions', () => {
  it('keeps server variables open (enum ones expanded) and servers per path and per operation', async () => {
    const spec = await load('openapi31/messenger.yaml');
    const at = (url: string, method: string, params?: Record<string, unknown>): string | undefined => resolveEndpoint(spec, url, method, params).endpoint?.operationId;
    expect(at('https://api.messenger.example/bot123456:AAH-x_y/sendMessage', 'post')).toBe('sendMessage');
    expect(at('https://us.messenger.example/bot1/sendMessage', 'post')).toBe('sendMessage');
    expect(at('https://fr.messenger.example/bot1/sendMessage', 'post')).toBeUndefined();
    expect(splitServer(spec, 'https://api.messenger.example/bot/sendMessage')).toBeUndefined();
    expect(at('https://maps.messenger.example/maps/api/geocode/json', 'get')).toBe('geocode');
    expect(at('https://api.messenger.example/bot1/geocode/json', 'get')).toBeUndefined();
    expect(at('https://upload.messenger.example/uploads', 'post')).toBe('upload');
    expect(at('https://api.messenger.example/bot1/uploads', 'post')).toBeUndefined();
  });

  it('tells path keys with a query part apart by the arguments they fix, in the URL or in params', async () => {
    const spec = await load('openapi31/messenger.yaml');
    const at = (url: string, params?: Record<string, unknown>): string | undefined => resolveEndpoint(spec, url, 'get', params).endpoint?.operationId;
    expect(at('https://scan.messenger.example/api', { module: 'account', action: 'txlist', address: '0x1' })).toBe('txlist');
    expect(at('https://scan.messenger.example/api', { module: 'account', action: 'balance' })).toBe('balance');
    expect(at('https://scan.messenger.example/api?module=account&action=balance')).toBe('balance');
    expect(at('https://scan.messenger.example/api', { module: 'account', action: 'nope' })).toBeUndefined();
    expect(checkRequest(spec, { url: 'https://scan.messenger.example/api', method: 'get', params: { module: 'account', action: 'balance', address: '0x1', tag: 'latest' } })).toEqual([]);
    const wrongTag = checkRequest(spec, { url: 'https://scan.messenger.example/api', method: 'get', params: { module: 'account', action: 'balance', address: '0x1', tag: 'earliest' } });
    expect(wrongTag.map((f) => f.rule)).toEqual(['value']);
    expect(checkRequest(spec, { url: 'https://scan.messenger.example/api', method: 'get', params: { module: 'account', action: 'nope' } }).map((f) => f.rule)).toEqual(['path']);
  });

  it('validates type arrays, const and examples as JSON Schema 2020-12', async () => {
    const spec = await load('openapi31/messenger.yaml');
    const send = (data: Record<string, JsonValue>) => checkRequest(spec, { url: 'https://api.messenger.example/bot1/sendMessage', method: 'post', data });
    expect(send({ chat_id: 42, text: 'hi', parse_mode: null, silent: true, reply_to: null })).toEqual([]);
    expect(send({ chat_id: '@news', text: 'hi', parse_mode: 'HTML' })).toEqual([]);
    expect(send({ chat_id: true, text: 'hi' }).map((f) => f.key)).toEqual(['chat_id']);
    expect(send({ chat_id: 1, text: 'hi', silent: false }).map((f) => f.key)).toEqual(['silent']);
    expect(validateValue(spec, { type: ['string', 'null'] }, null)).toEqual([]);
  });
});
