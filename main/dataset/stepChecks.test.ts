import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { WAPIIBENCH_SPECS } from '../../test/support/paths.js';
import type { SampleFields } from '../api/schemas.js';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { checkSample } from './checks.js';

/**
 * A multi-step sample's checks on shapes the seed dataset met (issue 37): an answer whose status
 * the operation does not document cannot be validated and is a finding, not a pass; a carried
 * path value before a `:verb` suffix, or written unencoded, is found in its segment.
 */
const AUTH = { Authorization: 'Bearer <token>' };
const JSON_AUTH = { ...AUTH, 'Content-Type': 'application/json' };
const specs = new Map<string, ApiSpec>();
beforeAll(async () => {
  for (const api of ['asana', 'google_sheet_v4']) {
    const loaded = await loadSpec(fs.readFileSync(path.join(WAPIIBENCH_SPECS, `${api}.yaml`), 'utf8'), `${api}.yaml`);
    if (!loaded.ok) throw new Error(loaded.error.message);
    specs.set(api, loaded.value);
  }
});
const check = (api: string, steps: unknown[]): string[] => checkSample(specs.get(api), { api, config: { url: '', method: 'get' }, source: {}, fields: { steps } as SampleFields }).map((f) => f.message);

describe('multi-step checks', () => {
  const lookup = { config: { url: 'https://app.asana.com/api/1.0/projects', method: 'get', headers: AUTH, params: { workspace: '1200001' } }, response: { status: 200, data: { data: [{ gid: '1300001', name: 'Launch', resource_type: 'project' }] } } };
  const create = (status: number) => ({ config: { url: 'https://app.asana.com/api/1.0/tasks', method: 'post', headers: JSON_AUTH, data: { data: { name: 'Write the plan', projects: ['1300001'], workspace: '1200001' } } }, response: { status, data: { data: { gid: '1400001', name: 'Write the plan' } } } });

  it('flags an answer whose status the operation does not document (Asana creates with 201)', () => {
    expect(check('asana', [lookup, create(201)]).filter((m) => m.includes('status'))).toEqual([]);
    expect(check('asana', [lookup, create(200)])).toContainEqual(expect.stringMatching(/^step 1: the response's status 200 is not one the POST \/tasks operation documents \(201, 400, .*\)$/));
  });

  it('finds a carried path value before a `:verb` suffix and one written unencoded', () => {
    const get = { config: { url: 'https://sheets.googleapis.com/v4/spreadsheets/abc123', method: 'get', headers: AUTH }, response: { status: 200, data: { spreadsheetId: 'abc123', sheets: [{ properties: { sheetId: 77, title: 'Q1' } }] } } };
    const copy = { config: { url: 'https://sheets.googleapis.com/v4/spreadsheets/abc123/sheets/77:copyTo', method: 'post', headers: JSON_AUTH, data: { destinationSpreadsheetId: 'def456' } }, carried: { 'path_params.sheetId': '0:/data/sheets/0/properties/sheetId' }, response: { status: 200, data: { sheetId: 91, title: 'Copy of Q1' } } };
    expect(check('google_sheet_v4', [get, copy]).filter((m) => m.includes('carried'))).toEqual([]);
    const wrong = { ...copy, config: { ...copy.config, url: 'https://sheets.googleapis.com/v4/spreadsheets/abc123/sheets/78:copyTo' } };
    expect(check('google_sheet_v4', [get, wrong])).toContainEqual(expect.stringContaining('carried path_params.sheetId ← 0:/data/sheets/0/properties/sheetId: the URL\'s {sheetId} is "78", the response holds 77'));
    // The value in another parameter's segment is not the named one's: the spreadsheet's ID carried into {sheetId}.
    const crossed = { ...copy, config: { ...copy.config, url: 'https://sheets.googleapis.com/v4/spreadsheets/77/sheets/78:copyTo' } };
    expect(check('google_sheet_v4', [get, crossed])).toContainEqual(expect.stringContaining('the URL\'s {sheetId} is "78", the response holds 77'));
  });
});
