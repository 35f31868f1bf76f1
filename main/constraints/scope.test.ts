import { describe, expect, it } from 'vitest';
import { declaredNames, namesInScope } from './scope.js';

describe('declaredNames', () => {
  it('lists what the starter code declares, not the declaration its call is inside', () => {
    expect(declaredNames("// Get a user\nconst axios = require('axios');\n\naxios.")).toEqual(['axios']);
    expect(declaredNames("const axios = require('axios');\n\nconst response = await axios.")).toEqual(['axios']);
    expect(declaredNames("const axios = require('axios')\nconst id = 4\naxios.get(`/u/${")).toEqual(['axios', 'id']);
  });

  it('reads destructuring, functions and their parameters, imports, and several declarators', () => {
    expect(declaredNames('const { a, b: c, d = 1, ...e } = x, [f, , g = 2] = y;\n')).toEqual(['a', 'c', 'd', 'e', 'f', 'g']);
    expect(declaredNames('import axios from "axios";\nimport { x as y, z } from "m";\nimport * as ns from "n";\n')).toEqual(['axios', 'ns', 'y', 'z']);
    expect(declaredNames('async function load(token, { page = 1 }) {\n  axios.')).toEqual(['load', 'page', 'token']);
    expect(declaredNames('items.forEach((item, i) => axios.')).toEqual(['i', 'item']);
    expect(declaredNames('try { f() } catch (err) { axios.')).toEqual(['err']);
  });

  it('drops names whose block has closed, and ignores comments, strings and templates', () => {
    expect(declaredNames('{ const inner = 1; }\nfunction f(p) { const q = 2; }\nfor (const k of ks) { }\n')).toEqual(['f']);
    expect(declaredNames('// const fake = 1\n/* let other */ const s = "const no = 2", t = `${1} let x`;\n')).toEqual(['s', 't']);
    expect(declaredNames('const r = /const x = [/]/g;\n')).toEqual(['r']);
  });

  it('leaves out a declaration whose initialiser is still open (its temporal dead zone)', () => {
    expect(declaredNames('const a = 1;\nconst b = f(a,')).toEqual(['a']);
    expect(declaredNames('let x = x')).toEqual([]);
  });
});

describe('declaredNames on real-world starters (a parser, error tolerant)', () => {
  it('sees function parameters of the function the starter stops in', () => {
    expect(declaredNames('module.exports = async function handler(args) {\n  // {task}\n  const res = await axios.')).toEqual(['args', 'handler']);
    expect(declaredNames("app.get('/user/:id', async (req, res) => {\n  try {\n    const { data } = await axios.")).toEqual(['req', 'res']);
    expect(declaredNames('export const getBalance = (address) =>\n  axios.')).toEqual(['address']);
  });

  it('sees declarations without semicolons (ASI) and inside a promise callback', () => {
    expect(declaredNames("const axios = require('axios')\nconst id = 42\nlet user = 'octocat'\n\naxios.")).toEqual(['axios', 'id', 'user']);
    expect(declaredNames('fetchToken().then((token) => {\n  const headers = { Authorization: token }\n  return axios.')).toEqual(['headers', 'token']);
  });

  it('leaves out what a closed function declared, and a declarator the call is inside', () => {
    expect(declaredNames('function helper(x) {\n  const y = x\n  return y\n}\nconst z = helper(1)\nconst out = axios.')).toEqual(['helper', 'z']);
  });
});

describe('namesInScope', () => {
  it('adds the sample\'s definitions to what the starter declares before the call', () => {
    const starter = "const axios = require('axios')\nasync function run(chatId) {\n  await axios.get('https://x.example/a')\n  return axios.";
    expect(namesInScope({ starter, callStart: starter.lastIndexOf('axios.'), definitions: { token: 'abc', cfg: { id: 1 } } })).toEqual(['axios', 'cfg', 'chatId', 'run', 'token']);
  });
});
