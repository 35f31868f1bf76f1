import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSpecFolder } from './specFolder.js';

const SECRET = 'oauth_token_0123456789abcdef';
const ENTRY = [
  'openapi: 3.0.3',
  "info: {title: Linked, version: '1'}",
  "servers: [{url: 'https://linked.example'}]",
  'paths:',
  '  /hosts:',
  '    get:',
  "      parameters: [{$ref: './refs/shared.yaml#/host'}]",
  "      responses: {'200': {description: ok}}",
  '',
].join('\n');
const SHARED = `host: {name: host, in: query, schema: {type: string, example: ${SECRET}}}\n`;

let root: string;
let specs: string;
beforeEach(() => {
  // root/outside/hosts.yml holds what must never be read; root/project/specs is the folder given.
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'wapii-links-'));
  fs.mkdirSync(path.join(root, 'outside'));
  fs.writeFileSync(path.join(root, 'outside', 'hosts.yml'), SHARED);
  fs.writeFileSync(path.join(root, 'outside', 'shared.yaml'), SHARED);
  specs = path.join(root, 'project', 'specs');
  fs.mkdirSync(specs, { recursive: true });
  fs.writeFileSync(path.join(specs, 'linked.yaml'), ENTRY);
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const refusal = async (): Promise<string> => {
  const read = await readSpecFolder(specs);
  expect(read.ok).toBe(false);
  const message = read.ok ? '' : read.error.message;
  expect(message).not.toContain(SECRET);
  expect(message).not.toContain('\n');
  return message;
};

describe('a spec folder whose files lead outside it through symbolic links', () => {
  it('refuses a $ref to a file that is a link to a file outside the folder', async () => {
    fs.mkdirSync(path.join(specs, 'refs'));
    fs.symlinkSync('../../../outside/hosts.yml', path.join(specs, 'refs', 'shared.yaml'));
    expect(await refusal()).toMatch(/^refs\/shared\.yaml \(named by a \$ref\) is a symbolic link to .*outside\/hosts\.yml, outside the spec folder /);
  });

  it('refuses a $ref into a linked folder that lies outside', async () => {
    fs.symlinkSync('../../outside', path.join(specs, 'refs'));
    expect(await refusal()).toMatch(/^refs\/shared\.yaml \(named by a \$ref\) is a symbolic link to .*outside\/shared\.yaml, outside the spec folder /);
  });

  it('refuses a spec file of the folder that is a link to a file outside', async () => {
    fs.rmSync(path.join(specs, 'linked.yaml'));
    fs.writeFileSync(path.join(root, 'outside', 'api.yaml'), ENTRY.replace('./refs/shared.yaml', './shared.yaml'));
    fs.symlinkSync('../../outside/api.yaml', path.join(specs, 'api.yaml'));
    expect(await refusal()).toMatch(/^api\.yaml \(a spec file of the folder\) is a symbolic link to .*outside\/api\.yaml/);
  });

  it('follows links that stay inside the folder, and a spec folder that is itself a link', async () => {
    fs.mkdirSync(path.join(specs, 'parts'));
    fs.writeFileSync(path.join(specs, 'parts', 'shared.yaml'), 'host: {name: host, in: query, schema: {type: string}}\n');
    fs.symlinkSync('parts', path.join(specs, 'refs'));
    const linkedFolder = path.join(root, 'specs-link');
    fs.symlinkSync(specs, linkedFolder);
    for (const dir of [specs, linkedFolder]) {
      const read = await readSpecFolder(dir);
      expect(read.ok && read.value.map((f) => f.filename)).toEqual(['linked.yaml']);
    }
  });
});
