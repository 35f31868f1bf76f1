import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasWapiiBench, WAPIIBENCH_SPECS } from '../../test/support/paths.js';
import { parseSpecText } from './parse.js';

describe.runIf(hasWapiiBench)("a JSON description read by JSON.parse's fast path", () => {
  it.each(['asana.yaml', 'google_calendar_v3.yaml', 'google_sheet_v4.yaml', 'slack.yaml'])('%s written as JSON reads as the same document as its YAML', (file) => {
    const yaml = parseSpecText(fs.readFileSync(path.join(WAPIIBENCH_SPECS, file), 'utf8'), file);
    if (!yaml.ok) throw new Error(yaml.error.message);
    const json = parseSpecText(JSON.stringify(yaml.value, null, 1), file.replace('.yaml', '.json'));
    expect(json).toEqual(yaml);
  });

  it('still refuses what the YAML path refuses, saying where', () => {
    expect(parseSpecText('{"openapi": "3.0.3", "paths": {}, "openapi": "3.1.0"}', 's.json')).toMatchObject({ ok: false, error: { message: expect.stringMatching(/^s\.json: duplicate key "openapi" at line 1, column \d+/) } });
    expect(parseSpecText('[1, 2]', 's.json')).toMatchObject({ ok: false, error: { message: 's.json: an OpenAPI document must be an object at the top level' } });
  });
});
