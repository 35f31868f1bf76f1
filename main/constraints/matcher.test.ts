import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { DEMO_SPECS } from '../../test/support/paths.js';
import { ConstraintMatcher } from './index.js';

let spec: ApiSpec;
beforeAll(async () => {
  const loaded = await loadSpec(fs.readFileSync(`${DEMO_SPECS}/harbor.yaml`, 'utf8'), 'harbor.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  spec = loaded.value;
});

const STARTER = "// task\nconst axios = require('axios');\nconst token = process.env.HARBOR_TOKEN, id = 'shp_1';\nconst body = { sku: 'CRATE-L', quantity: 3 };\nfunction getEnd() {\n  return '2024-03-31';\n}\n\n";
const BASE = 'https://api.harbor.example/v2';
/** Feeds starter code and its completion; the starter's declarations are what values may reference. */
const feed = (text: string, starter = STARTER) => {
  const { matcher: m, fed } = ConstraintMatcher.after(spec, starter);
  expect(fed).toEqual({ ok: true });
  const result = m.feed(text.slice(starter.length));
  return { result, complete: m.isComplete(), m };
};
/** The offset of the first occurrence of `marker`'s `|` in a template, and the text without it. */
const at = (template: string): [string, number] => [template.replace('|', ''), template.indexOf('|')];

describe('accepted invocations', () => {
  it.each([
    `axios.get('${BASE}/me');`,
    `axios.get("${BASE}/shipments", { params: { status: 'delivered', limit: 25 }, headers: { Authorization: \`Bearer \${token}\` } }).then(r => r);`,
    `axios.post(\`${BASE}/shipments/\${id}/labels\`, { format: 'zpl', size: "A6", }, { headers: { 'Content-Type': 'application/json' } })\n  .catch(console.error);`,
    `axios.put('${BASE}/warehouses/wh_1/inventory/CRATE-L', { quantity: body.quantity });`,
    `axios.get('${BASE}/carriers/ups/rates', {\n  params: {\n    origin_country: 'US',\n    destination_country: 'CA',\n    weight_kg: 3.2,\n  },\n});`,
    `axios.post('${BASE}/reports', { type: 'shipments', period: { from: '2024-03-01', to: getEnd }, filters: { statuses: ['delivered', 'returned'] } });`,
    `axios.delete('${BASE}/warehouses/<warehouse_id>', { params: { force: true } }).finally(() => done());`,
    `axios.get('${BASE}/shipments', { headers: { 'X-API-Key': process.env.HARBOR_KEY } });`,
    `axios.put(\`${BASE}/warehouses/\${id}/inventory/\${process.env.SKU}\`, { quantity: body['quantity'], location: { aisle: \`\${body.sku}-\${token}\` } }, { headers: { 'Content-Type': 'application/json' } });`,
    `axios.get('${BASE}/shipments', { params: { limit: body['quantity'], status: process.env.STATUS } });`,
  ])('%s', (completion) => {
    const { result, complete } = feed(STARTER + completion + '\nconsole.log("free text after the call");\n');
    expect(result).toEqual({ ok: true });
    expect(complete).toBe(true);
  });

  it('is incomplete while an invocation is open, and copies cheaply', () => {
    const { m } = feed(`${STARTER}axios.get('${BASE}/me'`);
    expect(m.isComplete()).toBe(false);
    const copy = m.clone();
    expect(copy.feed(');').ok).toBe(true);
    expect(copy.isComplete()).toBe(true);
    expect(m.isComplete()).toBe(false); // the original is untouched
  });
});

describe('each single illegal change is rejected at the offending character', () => {
  it.each([
    ['unknown method', `axios.|fetch('${BASE}/me');`],
    ['unknown path', `axios.get('${BASE}/|parcels');`],
    ['wrong server', `axios.get('https://api.harbo|ur.example/v2/me');`],
    ['method not defined for the path', `axios.delete('${BASE}/|me');`],
    ['unknown key', `axios.get('${BASE}/shipments', { params: { s|ort: 'asc' } });`],
    ['duplicate key', `axios.get('${BASE}/shipments', { params: { status: 'created', |status: 'delivered' } });`],
    ['closing before a required key', `axios.get('${BASE}/carriers/ups/rates', { params: { origin_country: 'US', destination_country: 'CA' |} });`],
    ['config omitted though it holds a required key', `axios.get('${BASE}/carriers/ups/rates'|);`],
    ['wrong value type', `axios.get('${BASE}/shipments', { params: { limit: |'25' } });`],
    ['enum violation', `axios.get('${BASE}/shipments', { params: { status: '|lost' } });`],
    ['unbalanced quote', `axios.get('${BASE}/me|");`],
    ['query string in the URL', `axios.get('${BASE}/shipments|?limit=5');`],
    ['more array items than allowed', `axios.post('${BASE}/shipments', { notify_emails: ['a', 'b', 'c', 'd', 'e', |'f'] });`],
    ['header only for bodies', `axios.get('${BASE}/me', { headers: { '|Content-Type': 'application/json' } });`],
    ['concatenated URL', `axios.get('${BASE}/warehouses/|' + id);`],
    ['body method without data', `axios.post('${BASE}/reports'|);`],
    ['a name not declared before the call', `axios.put('${BASE}/warehouses/wh_1/inventory/CRATE-L', { quantity: bod|x });`],
    ['an undeclared name in a template', `axios.get(\`${BASE}/shipments/\${|shipmentId}\`);`],
    // A reference takes one accessor and no call (constraints run: a call may throw or send a request of its own).
    ['a call', `axios.post('${BASE}/reports', { type: 'shipments', period: { from: '2024-03-01', to: getEnd|() } });`],
    ['a second accessor', `axios.get('${BASE}/shipments', { params: { status: body.sku|.trim } });`],
    ['an accessor after process.env.NAME', `axios.get('${BASE}/shipments', { params: { status: process.env.STATUS|.trim() } });`],
    ['a name not in scope as the body', `axios.put('${BASE}/warehouses/wh_1/inventory/CRATE-L', |requestBody);`],
    ['a name not in scope as the params', `axios.get('${BASE}/shipments', { params: |query });`],
    ['an accessor in a URL reference (its text could hold a slash)', `axios.get(\`${BASE}/shipments/\${body|.sku}\`);`],
    ['process without env', `axios.get('${BASE}/shipments', { headers: { 'X-API-Key': process.|argv } });`],
    // Literals that parse: a leading zero, a \x/\u/digit escape and a raw carriage return do not (or not everywhere).
    ['a number with a leading zero', `axios.get('${BASE}/shipments', { params: { limit: 0|1 } });`],
    ['a hex escape', `axios.get('${BASE}/shipments', { headers: { 'X-API-Key': 'a\\|x4' } });`],
    ['an octal escape in a template', `axios.get('${BASE}/shipments', { headers: { 'X-API-Key': \`a\\|1\` } });`],
    ['a carriage return in a quoted string', `axios.get('${BASE}/shipments', { headers: { 'X-API-Key': 'a|\rb' } });`],
    ['a name starting with a digit', `axios.get('${BASE}/shipments', { headers: { 'X-API-Key': process.env.|1KEY } });`],
  ])('%s', (_name, template) => {
    const [completion, offset] = at(template);
    const { result } = feed(STARTER + completion);
    expect(result).toMatchObject({ ok: false, offset: STARTER.length + offset });
  });

  it('does not let the call reference the declaration it initialises (its temporal dead zone)', () => {
    const starter = "const axios = require('axios');\nconst response = await axios.";
    expect(feed(`${starter}get('${BASE}/shipments', { params: { limit: response.data } })`, starter).result).toMatchObject({ ok: false });
    expect(feed(`${starter}get('${BASE}/shipments', { params: { limit: axios.defaults } })`, starter).result).toEqual({ ok: true });
  });
});

describe('header values hold only what Node sends (it refuses the request otherwise)', () => {
  const call = `axios.get('${BASE}/shipments', { headers: { `;
  it.each([
    ['Latin-1 and a tab', "Authorization: 'Bearer café\tx' } });"],
    ['an escaped tab and quote', "Authorization: 'Bearer a\\t\\'b' } });"],
    ['a template with a reference', 'Authorization: `Bearer ${token}` } });'],
    ['a line continuation', "Authorization: 'Bearer a\\\nb' } });"],
    ['a number under a free key', "'X-API-Key': 'k' } });"],
  ])('accepts %s', (_name, rest) => {
    const { result, complete } = feed(STARTER + call + rest);
    expect(result).toEqual({ ok: true });
    expect(complete).toBe(true);
  });
  it.each([
    ['Cyrillic (the random model wrote it on Intel)', "Authorization: 'Bearer |рес' } });"],
    ['a CJK character in a template', 'Authorization: `Bearer |⼠` } });'],
    ['an emoji (a surrogate pair)', "'X-API-Key': 'k|😀' } });"],
    ['a control character', "'X-API-Key': 'k|\u0001' } });"],
    ['a line break in a template', "Authorization: `Bearer |\n` } });"],
    ['an escaped line break', "Authorization: 'Bearer \\|n' } });"],
  ])('refuses %s', (_name, rest) => {
    const [completion, offset] = at(call + rest);
    const { result } = feed(STARTER + completion);
    expect(result).toMatchObject({ ok: false, offset: STARTER.length + offset });
  });
  it('leaves other strings free: a body may hold any character', () => {
    expect(feed(`${STARTER}axios.post('${BASE}/reports', { type: 'shipments', period: { from: 'ре😀', to: '中' } });`).result).toEqual({ ok: true });
  });
});

describe('state keys', () => {
  it('tell apart two enums met at the same object state (token masks are memoised by key)', () => {
    const call = `axios.post('${BASE}/shipments/shp_1/labels', `;
    const formatLast = feed(`${STARTER}${call}{ size: 'A6', format: '`).m;
    const sizeLast = feed(`${STARTER}${call}{ format: 'zpl', size: '`).m;
    expect(formatLast.stateKey()).not.toBe(sizeLast.stateKey());
    expect(formatLast.clone().feed("pdf'").ok).toBe(true);
    expect(sizeLast.clone().feed("pdf'").ok).toBe(false);
  });

  it('are equal for equal states reached by different texts, and one number however deep the state', () => {
    const a = feed(`${STARTER}axios.get('${BASE}/shipments', { params: { limit: 25, status: 'deliv`).m;
    const b = feed(`${STARTER}axios.get("${BASE}/shipments",{params:{limit:1,status:'deliv`).m;
    expect(a.stateKey()).toBe(b.stateKey());
    expect(typeof a.stateKey()).toBe('number');
  });
});

describe('loopClass (what the token mask takes as a self-loop without a step)', () => {
  // Every printable ASCII character, and some beyond it.
  const CHARS = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\t', '\n', '\r', 'é', '→', '中'];
  it.each([
    ["a single-quoted string's contents", STARTER + `axios.get('${BASE}/shipments', { headers: { Authorization: 'Bearer a b`],
    ['a template literal outside `${`', STARTER + `axios.get(\`${BASE}/me\`, { headers: { Authorization: \`Bearer `],
    ['a string in a reference index', STARTER + `axios.get('${BASE}/shipments', { params: { limit: body["qu`],
  ])('holds in %s: each character outside its exits leads back to the same state, and an exit does not', (_, text) => {
    const { result, m } = feed(text);
    expect(result).toEqual({ ok: true });
    const cls = m.loopClass();
    expect(cls?.stable).toBe(true);
    for (const c of CHARS) {
      const copy = m.clone();
      const took = copy.push(c);
      if (!cls!.exits(c)) expect({ c, took, same: copy.stateKey() === m.stateKey() }).toEqual({ c, took: true, same: true });
      else expect({ c, same: took && copy.stateKey() === m.stateKey() }).toEqual({ c, same: false });
    }
  });

  it('is absent where a character can change the state: an escape, an enum, a key, a reference', () => {
    expect(feed(STARTER + `axios.get('${BASE}/shipments', { headers: { Authorization: 'a\\`).m.loopClass()).toBeUndefined();
    expect(feed(STARTER + `axios.get('${BASE}/shipments', { params: { status: 'del`).m.loopClass()).toBeUndefined();
    expect(feed(STARTER + `axios.get('${BASE}/shipments', { params: { sta`).m.loopClass()).toBeUndefined();
    expect(feed(STARTER + `axios.get('${BASE}/shipments', { headers: { Authorization: tok`).m.loopClass()).toBeUndefined();
  });
});

describe("jump (where an escape's next character leads, taken by the token mask without a step)", () => {
  const CHARS = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\t', '\n', '\r', 'é', '→', '中'];
  it.each([
    ['a single-quoted string', STARTER + `axios.get('${BASE}/shipments', { headers: { Authorization: 'a\\`],
    ['a template literal', STARTER + `axios.get(\`${BASE}/me\`, { headers: { Authorization: \`Bearer \\`],
  ])('in %s: every character outside its exits leads to its target, each exit is refused', (_, text) => {
    const { result, m } = feed(text);
    expect(result).toEqual({ ok: true });
    const jump = m.jump()!;
    expect(jump.to.stateKey()).not.toBe(m.stateKey());
    for (const c of CHARS) {
      const copy = m.clone();
      const took = copy.push(c);
      if (jump.exits(c)) expect({ c, took }).toEqual({ c, took: false });
      else expect({ c, took, same: copy.stateKey() === jump.to.stateKey() }).toEqual({ c, took: true, same: true });
    }
  });

  it("is absent outside an escape: a string's contents, a key, a reference", () => {
    for (const text of [`{ headers: { Authorization: 'a`, `{ params: { sta`, `{ headers: { Authorization: tok`]) {
      const { result, m } = feed(STARTER + `axios.get('${BASE}/shipments', ${text}`);
      expect(result).toEqual({ ok: true });
      expect(m.jump()).toBeUndefined();
    }
  });
});

describe('literals (the only ways on, which the token mask walks without a state per character)', () => {
  const CHARS = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\t', '\n', '\r', 'é', '中'];
  /** Every character the state takes next must begin a literal, and every literal's first character be taken. */
  const exact = (m: ConstraintMatcher, literals: readonly string[]): void => {
    for (const c of CHARS) expect({ c, took: m.clone().push(c) }).toEqual({ c, took: literals.some((l) => l.startsWith(c)) });
  };
  it.each([
    ['a bare key in a closed object', `{ params: { sta`],
    ['a quoted key', `{ params: { "li`],
    ['a quoted key at its start', `{ headers: { '`],
    ['a reference', `{ headers: { Authorization: to`],
    ['a word', `axios.get('${BASE}/shipments', { headers: { Authorization: body[nu`],
    ['a method', `axios.p`],
    ['what may follow the call', `axios.get('${BASE}/me').`],
  ])('hold for %s: along each one, up to a whole one, nothing else is taken', (_, text) => {
    const { result, m } = feed(STARTER + (text.startsWith('axios') ? text : `axios.get('${BASE}/shipments', ${text}`));
    expect(result).toEqual({ ok: true });
    const literals = m.literals();
    expect(literals?.length).toBeGreaterThan(0);
    exact(m, literals!);
    for (const literal of literals!) {
      const along = m.clone();
      for (let i = 1; i < literal.length; i++) {
        expect(along.push(literal[i - 1]!)).toBe(true);
        const rests = literals!.filter((l) => l.startsWith(literal.slice(0, i))).map((l) => l.slice(i));
        // A whole literal on the way ends the walk along them: the state after it is walked as any other.
        if (rests.includes('')) break;
        exact(along, rests);
      }
      expect(m.clone().feed(literal).ok).toBe(true);
    }
  });

  it('are absent where other characters may come: a key position, a whole key, a value, string contents', () => {
    for (const text of [`{ params: { `, `{ params: { status`, `{ params: { status: `, `{ headers: { Authorization: 'a`]) {
      const { result, m } = feed(STARTER + `axios.get('${BASE}/shipments', ${text}`);
      expect(result).toEqual({ ok: true });
      expect(m.literals()).toBeUndefined();
    }
  });
});

describe('a setup: constraints start at its call, with its names in scope', () => {
  it('ignores the starter\'s own earlier Axios calls and takes parameters, ASI declarations and definitions as values', () => {
    const starter = "const axios = require('axios')\nconst limit = 25\nasync function sync(shipmentId) {\n  await axios.get('https://elsewhere.example/ping')\n  // {task}\n  return axios.";
    const setup = { starter, callStart: starter.lastIndexOf('axios.'), definitions: { token: 'abc' } };
    const { matcher, fed } = ConstraintMatcher.forSetup(spec, setup);
    expect(fed).toEqual({ ok: true });
    const completion = `get(\`${BASE}/shipments/\${shipmentId}\`, { headers: { Authorization: token } });\n}\n`;
    expect(matcher.feed(completion)).toEqual({ ok: true });
    expect(matcher.isComplete()).toBe(true);
    // The old way, the whole starter through the matcher, refused the starter's own call.
    expect(ConstraintMatcher.create(spec).feed(starter).ok).toBe(false);
    const limited = ConstraintMatcher.forSetup(spec, setup).matcher;
    expect(limited.feed(`get('${BASE}/shipments', { params: { limit: limit } });`)).toEqual({ ok: true });
    const unknown = ConstraintMatcher.forSetup(spec, setup).matcher;
    expect(unknown.feed(`get('${BASE}/shipments', { params: { limit: nope } });`).ok).toBe(false);
  });
});

describe('path parameter segments take URL-safe characters and <placeholders> only', () => {
  it.each([
    ['a backtick in a placeholder', "axios.delete('https://api.harbor.example/v2/warehouses/<wh|`x>');"],
    ['a template in a single-quoted placeholder', "axios.delete('https://api.harbor.example/v2/warehouses/<|${id}>');"],
    ['a brace in a placeholder', "axios.delete('https://api.harbor.example/v2/warehouses/<a|{b}>');"],
    ['a backslash in a placeholder', "axios.delete('https://api.harbor.example/v2/warehouses/<a|\\\\b>');"],
    ['a template in a single-quoted value', "axios.delete('https://api.harbor.example/v2/warehouses/$|{id}');"],
  ])('rejects %s', (_why, template) => {
    const [text, offset] = at(template);
    const fed = ConstraintMatcher.create(spec).feed(text);
    expect(fed.ok ? -1 : fed.offset).toBe(offset);
  });

  it('accepts placeholders of words, digits, spaces and _-.', () => {
    expect(ConstraintMatcher.create(spec).feed("axios.delete('https://api.harbor.example/v2/warehouses/<warehouse id-1.b_2>');")).toEqual({ ok: true });
  });
});

describe('a declared name may stand for a whole body, headers or params (constraints.md; the upstream suite\'s axios.post(url, requestBody))', () => {
  it.each([
    `axios.put('${BASE}/warehouses/wh_1/inventory/CRATE-L', body);`,
    `axios.get('${BASE}/shipments', { params: body, headers: body });`,
    `axios.post(\`${BASE}/shipments/\${id}/labels\`, body, { headers: body });`,
  ])('%s', (completion) => {
    const { result, complete } = feed(STARTER + completion);
    expect(result).toEqual({ ok: true });
    expect(complete).toBe(true);
  });
});

describe('whitespace between tokens is bounded: one line break, runs of at most 16 spaces or tabs (constraints.md)', () => {
  const sp = (n: number): string => ' '.repeat(n);
  it.each([
    ['the 17th space before a value', `axios.get('${BASE}/shipments', { params: {${sp(16)}|${sp(1)}limit: 1 } });`],
    ['the 17th tab after a comma', `axios.get('${BASE}/shipments',${'\t'.repeat(16)}|\t{});`],
    ['a second line break', `axios.get('${BASE}/shipments', {\n  params: {\n|\n limit: 1 } });`],
    ['a second line break after spaces', `axios.get('${BASE}/me'    \n  |\n);`],
    ['the 17th space after the line break', `axios.get('${BASE}/me',\n${sp(16)}|${sp(1)});`],
    ['a carriage return not before a line feed', `axios.get('${BASE}/me'\r|  );`],
    ['the 17th space before the statement ends', `axios.get('${BASE}/me')${sp(16)}| ;`],
    ['the 17th space between the method and its parenthesis', `axios.get${sp(16)}| ('${BASE}/me');`],
  ])('rejects %s at that character', (_why, template) => {
    const [text, offset] = at(template);
    const fed = ConstraintMatcher.create(spec).feed(text);
    expect(fed.ok ? -1 : fed.offset).toBe(offset);
  });

  it('accepts what the bound allows: 16 spaces, a line break (LF or CRLF) then 16 more, between every two tokens', () => {
    const w = `${' '.repeat(8)}\t${' '.repeat(7)}\r\n${'\t'.repeat(16)}`;
    const code = `axios.get${w}(${w}'${BASE}/shipments'${w},${w}{${w}params${w}:${w}{${w}limit${w}:${w}[1]${w}.length${w}}${w}}${w})${w};`;
    // `[1].length` is no value here: keep the reference simple, a number.
    const fed = ConstraintMatcher.create(spec).feed(code.replace(`[1]${w}.length`, '1'));
    expect(fed).toEqual({ ok: true });
    // Inside a string whitespace is content, not bounded.
    expect(ConstraintMatcher.create(spec).feed(`axios.get('${BASE}/shipments', { headers: { Authorization: 'Bearer${' '.repeat(40)}\t\tx' } });`)).toEqual({ ok: true });
  });

  it('gives states with different runs different keys (token masks are memoised per state)', () => {
    const m = ConstraintMatcher.create(spec);
    expect(m.feed(`axios.get('${BASE}/me',`).ok).toBe(true);
    const keys = new Set<string | number>();
    for (let i = 0; i < 16; i++) {
      keys.add(m.stateKey());
      expect(m.push(' ')).toBe(true);
    }
    keys.add(m.stateKey());
    expect(keys.size).toBe(17);
    expect(m.push(' ')).toBe(false);
    expect(m.push('\n')).toBe(true);
  });
});

describe('an operation whose body has several media types (apimatic: form, text/plain and multipart at once)', () => {
  const SPEC = `openapi: 3.0.0
info: {title: Convert, version: '1'}
servers: [{url: 'https://api.convert.example'}]
paths:
  /transform:
    post:
      requestBody:
        content:
          text/plain: {schema: {type: string}}
          application/x-www-form-urlencoded:
            schema: {type: object, properties: {source: {type: string}, format: {type: string, enum: [xml, json]}}}
          multipart/form-data:
            schema: {type: object, properties: {file: {type: string}}}
      responses: {'200': {description: ok}}
`;
  let convert: ApiSpec;
  beforeAll(async () => {
    const loaded = await loadSpec(SPEC, 'convert.yaml');
    if (!loaded.ok) throw new Error(loaded.error.message);
    convert = loaded.value;
  });
  const starter = "const axios = require('axios');\n";
  const check = (call: string) => {
    const { matcher, fed } = ConstraintMatcher.after(convert, starter);
    expect(fed).toEqual({ ok: true });
    const result = matcher.feed(call);
    return { result, complete: matcher.isComplete() };
  };
  it.each([
    ['the form body wrapped', "axios.post('https://api.convert.example/transform', new URLSearchParams({ source: 'a', format: 'xml' }));"],
    ['the form body as an object', "axios.post('https://api.convert.example/transform', { source: 'a' });"],
    ["the multipart body's field", "axios.post('https://api.convert.example/transform', { file: 'a.txt' });"],
    ['the text body', "axios.post('https://api.convert.example/transform', 'plain words');"],
  ])('accepts %s, as the scorer permits each media type', (_name, call) => {
    expect(check(call)).toEqual({ result: { ok: true }, complete: true });
  });
  it("still refuses what no media type declares, or an enum's stray value", () => {
    expect(check("axios.post('https://api.convert.example/transform', { colour: 'red' });").result).toMatchObject({ ok: false });
    expect(check("axios.post('https://api.convert.example/transform', { format: 'yaml' });").result).toMatchObject({ ok: false });
  });
});
