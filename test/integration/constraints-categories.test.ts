import { beforeAll, describe, expect, it } from 'vitest';
import { ConstraintMatcher } from '../../main/constraints/index.js';
import { loadSpec, type ApiSpec } from '../../main/openapi/index.js';

/**
 * Our own cases for the kinds of code upstream WAPIIBench's constraint suite exercises
 * (data/test/method_as_function, run by `npm run bench -- upstream-suite`) that the other
 * constraint tests did not: escapes inside strings, numbers of the wrong kind, punctuation
 * left out, arguments in the wrong place, keys that need quotes, dotted paths, untyped schemes
 * and required query parameters. A spec of our own, with no security schemes, so a config has
 * only the operation's own keys.
 */
const KENNEL = `
openapi: 3.0.3
info: {title: Kennel, version: '1'}
servers: [{url: 'https://kennel.example/api'}]
paths:
  /dogs:
    get:
      parameters:
        - {name: breeds, in: query, schema: {type: array, items: {type: string}}}
        - {name: max, in: query, schema: {type: integer}}
      responses: {'200': {description: ok}}
    post:
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, required: [name], properties: {name: {type: string}, nickname: {type: string}}}}}
      responses: {'200': {description: ok}}
  /dogs/{dogId}:
    parameters: [{name: dogId, in: path, required: true, schema: {type: integer}}]
    get: {responses: {'200': {description: ok}}}
    delete: {responses: {'204': {description: gone}}}
  /meals:
    post:
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [dish, portion]
              properties:
                dish: {type: string}
                portion: {type: object, required: [grams, kcal], properties: {grams: {type: integer}, kcal: {type: integer}, organic: {type: boolean}}}
                note: {description: anything at all}
      responses: {'200': {description: ok}}
  /walkers/{handle}:
    get:
      parameters: [{name: handle, in: path, required: true, schema: {type: string}}]
      responses: {'200': {description: ok}}
  /walkers/{handle}/page:
    post:
      parameters:
        - {name: handle, in: path, required: true, schema: {type: string}}
        - {name: urgency, in: query, schema: {type: integer}}
      responses: {'200': {description: ok}}
  /walkers:
    get:
      parameters: [{name: available, in: query, required: true, schema: {type: boolean}}]
      responses: {'200': {description: ok}}
  /tricks.list:
    get:
      parameters:
        - {name: $cursor, in: query, schema: {type: boolean}}
        - {name: with-videos, in: query, schema: {type: boolean}}
      responses: {'200': {description: ok}}
`;
const BASE = 'https://kennel.example/api';
const STARTER = "const axios = require('axios');\nconst breed = 'collie'\nconst dogId = 7\n";

let spec: ApiSpec;
beforeAll(async () => {
  const loaded = await loadSpec(KENNEL, 'kennel.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  spec = loaded.value;
});

/** True when accepted and complete; else the offset in `completion` of the refused character. */
function feed(completion: string): true | number {
  const { matcher, fed } = ConstraintMatcher.after(spec, STARTER);
  expect(fed).toEqual({ ok: true });
  const result = matcher.feed(completion);
  if (!result.ok) return result.offset - STARTER.length;
  return matcher.isComplete() ? true : completion.length;
}

describe('kinds of code upstream accepts', () => {
  it.each([
    ['an array param with a name in scope', `axios.get('${BASE}/dogs', { params: { breeds: ['pug', breed], max: 3 } });`],
    ['an empty array, an empty params object, an empty config', `axios.get('${BASE}/dogs', { params: { breeds: [] } });\naxios.get('${BASE}/dogs', { params: {} });\naxios.get('${BASE}/dogs', {});`],
    ['an escaped quote, an escaped backslash, and an escape sequence in strings', `axios.post('${BASE}/dogs', { name: 'Rex\\'s', nickname: "a\\\\b\\r\\n" });`],
    ['the other quote inside a string', `axios.post('${BASE}/dogs', { name: 'say "hi"' });`],
    ['a template value from a declaration without a semicolon', `axios.post("${BASE}/dogs", { name: \`dog \${dogId}\` });`],
    ['a call spread over lines, a space before the semicolon', `axios.delete(\n  \`${BASE}/dogs/\${dogId}\`\n)  ;`],
    ['nested objects in any key order', `axios.post('${BASE}/meals', { portion: { kcal: 300, grams: 200, organic: true }, dish: 'stew' });`],
    ['an untyped property takes any literal', `axios.post('${BASE}/meals', { dish: 'x', portion: { grams: 1, kcal: 2 }, note: [1, { a: null }] });`],
    ['URL-safe characters in a string path parameter', `axios.get('${BASE}/walkers/~ann_b.c-1');`],
    ['an empty body where the operation has none, then params', `axios.post('${BASE}/walkers/ann/page', {}, { params: { urgency: 2 } });`],
    ['a required boolean query parameter', `axios.get('${BASE}/walkers', { params: { available: false } });`],
    ['a dotted path, a key with $ bare, a key with - quoted', `axios.get('${BASE}/tricks.list', { params: { $cursor: true, 'with-videos': false } });`],
  ])('%s', (_why, completion) => {
    expect(feed(completion)).toBe(true);
  });
});

describe('kinds of code upstream refuses, refused at the first offending character', () => {
  it.each([
    ['a float where an integer goes', `axios.get('${BASE}/dogs', { params: { max: 10|.0 } });`],
    ['a missing comma between two keys', `axios.get('${BASE}/dogs', { params: { breeds: ['pug']\n |max: 3 } });`],
    ['a number in an array of strings', `axios.get('${BASE}/dogs', { params: { breeds: ['pug', |2] } });`],
    ['a query key at the config level', `axios.get('${BASE}/dogs', { |max: 3 });`],
    ['a config object as the body', `axios.post('${BASE}/dogs', { |params: { name: 'Rex' } });`],
    ['a body on a GET', `axios.get('${BASE}/dogs', { |name: 'Rex' });`],
    ['a string left open', `axios.post('${BASE}/dogs', { name: 'Rex|\n});`],
    ['mismatched quotes', `axios.post('${BASE}/dogs', { name: "Rex',|\n  nickname: 'R' });`],
    ['a missing colon', `axios.post('${BASE}/dogs', { name |'Rex' });`],
    ['an array as the body', `axios.post('${BASE}/dogs', |[ 'Rex' ]);`],
    ['an unescaped quote inside a string', `axios.post('${BASE}/dogs', { name: 'Rex'|s' });`],
    ['an escaped backslash before the closing quote', `axios.post('${BASE}/dogs', { name: 'Rex\\\\'|s' });`],
    ['a template left open', `axios.get(\`${BASE}/dogs/\${dogId}|);`],
    ['a word where an integer path parameter goes', `axios.get(\`${BASE}/dogs/|id\`);`],
    ['an extra path segment', `axios.delete('${BASE}/dogs/4|/2');`],
    ['a second object after the config of a delete', `axios.delete('${BASE}/dogs/4', |{}, {});`],
    ['a config where the operation takes no argument', `axios.get('${BASE}/dogs/4', |{});`],
    ['a name starting with a digit', `axios.delete(\`${BASE}/dogs/\${|42id}\`);`],
    ['a wrong type inside a nested object', `axios.post('${BASE}/meals', { dish: 'x', portion: { grams: |'1', kcal: 2 } });`],
    ['an unknown key inside a nested object', `axios.post('${BASE}/meals', { dish: 'x', portion: { grams: 1, kcal: 2, |salt: 1 } });`],
    ['a nested object closed before a required key', `axios.post('${BASE}/meals', { dish: 'x', portion: { grams: 1, |} });`],
    ['garbage after an untyped value', `axios.post('${BASE}/meals', { dish: 'x', portion: { grams: 1, kcal: 2 }, note: 76|; });`],
    ['a ? inside a path parameter', `axios.get('${BASE}/walkers/ann|?x');`],
    ['a string concatenated onto the URL', `axios.get('${BASE}/walkers/ann'|+'b');`],
    ['a POST without its data argument', `axios.post('${BASE}/walkers/ann/page'|);`],
    ['params where the data argument goes', `axios.post('${BASE}/walkers/ann/page', { |params: { urgency: 2 } });`],
    ['a required query parameter left out', `axios.get('${BASE}/walkers'|);`],
    ['an underscore for the dot of a path', `axios.get('${BASE}/tricks|_list');`],
    ['a slash for the dot of a path', `axios.get('${BASE}/tricks|/list');`],
    ['a key that needs quotes written bare (no bare key begins so)', `axios.get('${BASE}/tricks.list', { params: { |with-videos: true } });`],
    ['a quoted key closed by the other quote', `axios.get('${BASE}/tricks.list', { params: { 'with-videos|": true } });`],
  ])('%s', (_why, template) => {
    expect(feed(template.replace('|', ''))).toBe(template.indexOf('|'));
  });
});

/**
 * Security arguments by what the spec applies (rules.ts, securedBy): an operation that applies a
 * scheme may send any scheme's argument, never must; one that applies none, where the spec applies
 * security elsewhere, is public and takes no config at all (upstream's negative/2002); a spec that
 * defines schemes and applies none anywhere permits them everywhere.
 */
describe('security arguments follow what the spec applies', () => {
  const vault = (applied: boolean): string => `
openapi: 3.0.3
info: {title: Vault, version: '1'}
servers: [{url: 'https://vault.example'}]
components:
  securitySchemes:
    bearer: {type: http, scheme: bearer}
    key: {type: apiKey, in: header, name: X-Key}
paths:
  /boxes/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
    get:
      ${applied ? 'security: [{bearer: []}]' : ''}
      responses: {'200': {description: ok}}
  /open/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: integer}}]
    get: {responses: {'200': {description: ok}}}
`;
  const feedIn = async (text: string, template: string): Promise<true | number> => {
    const loaded = await loadSpec(text, 'vault.yaml');
    if (!loaded.ok) throw new Error(loaded.error.message);
    const starter = "const axios = require('axios');\n";
    const { matcher } = ConstraintMatcher.after(loaded.value, starter);
    const result = matcher.feed(template.replace('|', ''));
    if (!result.ok) return result.offset - starter.length;
    return matcher.isComplete() ? true : template.length;
  };
  it.each([
    ['a secured operation takes any scheme\'s argument', true, "axios.get('https://vault.example/boxes/1', { headers: { Authorization: 'Bearer t', 'X-Key': 'k' } });"],
    ['a secured operation without its token (never required)', true, "axios.get('https://vault.example/boxes/1');"],
    ['a public operation of a spec that secures others', true, "axios.get('https://vault.example/open/1');"],
    ['schemes applied nowhere: permitted everywhere', false, "axios.get('https://vault.example/open/1', { headers: { 'X-Key': 'k' } });"],
  ])('accepts %s', async (_why, applied, completion) => {
    expect(await feedIn(vault(applied), completion)).toBe(true);
  });
  it.each([
    ['a token sent to a public operation of a spec that secures others', "axios.get('https://vault.example/open/1', |{ headers: { Authorization: 'Bearer t' } });"],
    ['an empty config there: no key could go in it', "axios.get('https://vault.example/open/1', |{});"],
  ])('refuses %s at the first offending character', async (_why, template) => {
    expect(await feedIn(vault(true), template)).toBe(template.indexOf('|'));
  });
});
