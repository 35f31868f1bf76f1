import { describe, expect, it } from 'vitest';
import { setupFor } from '../prompt/index.js';
import { extractInvocation, referenceProgram } from './extract.js';

const sample = { task: 'List the users', config: { method: 'get', url: 'https://api.example.com/users' } };
const fixed = setupFor(sample, 'full');
const call = "get('https://api.example.com/users', { params: { limit: 2 } })";

describe('extraction: which program runs the cut call', () => {
  it('runs a well-formed program as written, as before', () => {
    const e = extractInvocation(`${fixed.starter}${call}\n  .then((r) => console.log(r.data));\n`, fixed);
    expect(e).toMatchObject({ status: 'ok', rule: '.then', runs: 'as-written' });
    if (e.status === 'ok') expect(e.program).toBe(`${fixed.starter}${call}\n  ;\n`);
  });

  // Each of these leaves the text before the cut, plus the call, unparsable: the call runs alone after the import.
  const wrapped: Record<string, string> = {
    'a top-level try': `// t\nconst axios = require('axios');\ntry {\n  const r = await axios.${call};\n  console.log(r.data);\n} catch (e) {}\n`,
    'a helper function': `// t\nconst axios = require('axios');\nfunction list() {\n  return axios.${call};\n}\nlist();\n`,
    'an async IIFE': `// t\nconst axios = require('axios');\n(async () => {\n  const r = await axios.${call};\n})();\n`,
    'a code fence': "```javascript\nconst axios = require('axios');\naxios." + `${call}\n  .then((r) => r.data);\n` + '```\n',
  };
  for (const [where, text] of Object.entries(wrapped)) {
    it(`runs a call inside ${where} alone after the import, as the reference does`, () => {
      const e = extractInvocation(text, fixed);
      expect(e).toMatchObject({ status: 'ok', runs: 'call-alone' });
      if (e.status === 'ok') expect(e.program).toBe(referenceProgram(e.call));
    });
  }

  it('keeps the reference switch: always the call alone', () => {
    const e = extractInvocation(`${fixed.starter}${call};\n`, fixed, 'reference');
    expect(e).toMatchObject({ status: 'ok', runs: 'call-alone', program: referenceProgram(`axios.${call};\n`) });
  });

  it('keeps a syntax error of the model its own: the call alone would not parse either', () => {
    const e = extractInvocation(`${fixed.starter}get('u', { params: { a: } });\n`, fixed);
    expect(e).toMatchObject({ status: 'ok', runs: 'as-written' });
  });
});

describe("extraction on a sample's own starter (upstream's real-world pipeline)", () => {
  const own = {
    ...sample,
    starter_code: "const axios = require('axios');\nconst Command = require('../structures/Command');\naxios.get('https://api.example.com/ping');\nmodule.exports = function (args) {\n  return new Promise((resolve) => {\n    // {task}\n    axios.",
    definitions: { args: { name: 'ada', tags: ['a', 'b'] } },
  };
  const setup = setupFor(own, 'full');

  it('fills the task in, and starts the search after the starter (its own earlier call is not the one scored)', () => {
    expect(setup.starter).toContain('    // List the users\n    axios.');
    expect(setup.callStart).toBe(setup.starter.length - 'axios.'.length);
    const e = extractInvocation(`${setup.starter}${call}.then(resolve);\n  });\n};\n`, setup);
    expect(e).toMatchObject({ status: 'ok', rule: 'matching )', runs: 'own-starter', call: `axios.${call};\n` });
  });

  it('runs the call after the sandbox-offered imports and the definitions (the other requires left out)', () => {
    expect(setup.callPrelude).toBe(`const axios = require('axios');\nconst args = ${JSON.stringify(own.definitions.args, null, 2)};\n`);
    const e = extractInvocation(`${setup.starter}${call});\n`, setup);
    if (e.status !== 'ok') throw new Error(e.message);
    expect(e.program).toBe(`${setup.callPrelude}axios.${call};\n`);
  });

  it("matches parentheses on tokens: a `)` in a string or template does not close the call", () => {
    const tricky = "post('https://api.example.com/users', { name: ')', note: `(${args.name})` })";
    const e = extractInvocation(`${setup.starter}${tricky}\n`, setup);
    expect(e).toMatchObject({ status: 'ok', call: `axios.${tricky};\n` });
    expect(extractInvocation(`${setup.starter}get('https://api.example.com/users', {`, setup)).toMatchObject({ status: 'incomplete_request' });
  });

  it('runs what the model declared before the call where it parses on its own', () => {
    // A chat reply's code spliced in at the starter's call line, as upstream does.
    const line = setup.starter.lastIndexOf('\n', setup.callStart - 1) + 1;
    const text = `${setup.starter.slice(0, line)}    const params = { limit: 2 };\n    const res = await axios.get('https://api.example.com/users', { params });\n`;
    const e = extractInvocation(text, setup);
    if (e.status !== 'ok') throw new Error(e.message);
    expect(e.program).toBe(`${setup.callPrelude}    const params = { limit: 2 };\naxios.get('https://api.example.com/users', { params });\n`);
  });
});
