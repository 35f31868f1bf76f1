import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEMO_SPECS } from '../../test/support/paths.js';
import { unwrap } from '../api/result.js';
import { diffSpecs, loadSpec, typeSignature } from './index.js';

const load = async (file: string) => unwrap(await loadSpec(fs.readFileSync(`${DEMO_SPECS}/${file}`, 'utf8'), file.split('/').pop()!));

describe('spec diff', () => {
  it('lists exactly the changes written into harbor-v2.yaml', async () => {
    const diff = diffSpecs(await load('harbor.yaml'), await load('versions/harbor-v2.yaml'));
    expect(diff).toEqual({
      added: ['POST /shipments/{shipment_id}/returns', 'GET /carriers/{carrier_code}', 'PATCH /webhooks/{webhook_id}'],
      removed: ['GET /carriers', 'DELETE /webhooks/{webhook_id}'],
      changed: [
        {
          endpoint: 'GET /warehouses',
          changes: [
            { kind: 'removed', location: 'query', name: 'cursor' },
            { kind: 'type', location: 'query', name: 'region', before: 'string enum ["eu","us","apac","latam"]', after: 'string enum ["eu","us","apac","latam","mea"]' },
            { kind: 'added', location: 'query', name: 'country' },
          ],
        },
        { endpoint: 'PATCH /warehouses/{warehouse_id}', changes: [{ kind: 'type', location: 'body', name: 'capacity_pallets', before: 'integer', after: 'string' }] },
        { endpoint: 'POST /shipments', changes: [{ kind: 'required', location: 'body', name: 'reference' }] },
        {
          endpoint: 'GET /shipments/{shipment_id}/events',
          changes: [
            { kind: 'removed', location: 'query', name: 'since' },
            { kind: 'added', location: 'query', name: 'after' },
          ],
        },
        { endpoint: 'POST /shipments/{shipment_id}/labels', changes: [{ kind: 'type', location: 'body', name: 'size', before: 'string enum ["4x6","A6"]', after: 'string enum ["4x6","A6","letter"]' }] },
      ],
    });
  });

  it('finds nothing between a spec and itself, and tells the reverse direction apart', async () => {
    const [v1, v2] = [await load('harbor.yaml'), await load('versions/harbor-v2.yaml')];
    expect(diffSpecs(v1, v1)).toEqual({ added: [], removed: [], changed: [] });
    const back = diffSpecs(v2, v1);
    expect(back.added).toEqual(['GET /carriers', 'DELETE /webhooks/{webhook_id}']);
    expect(back.changed.find((c) => c.endpoint === 'POST /shipments')?.changes).toEqual([{ kind: 'optional', location: 'body', name: 'reference' }]);
  });

  it('compares types by structure, not prose or bounds', () => {
    expect(typeSignature({ type: 'integer', minimum: 0, description: 'a' })).toBe(typeSignature({ type: 'integer', maximum: 9 }));
    expect(typeSignature({ type: 'object', required: ['a'], properties: { a: { type: 'string' } } })).toBe('object {a!: string}');
    expect(typeSignature({ type: 'array', items: { type: 'string', format: 'email' } })).toBe('array of string format email');
  });
});
