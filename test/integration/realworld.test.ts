import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonValue } from '../../main/api/schemas.js';
import { parseDataset } from '../../main/dataset/index.js';
import { createExecutor } from '../../main/execution/index.js';
import { oracleProgram, setupFor, setupSampleOf, type CompletionMode, type Quote } from '../../main/prompt/index.js';
import type { GenerationBackend } from '../../main/generation/index.js';
import { evaluateCode, executeRun, scoreCodes, type RunSample } from '../../main/runner/index.js';
import { localClient, openWorkbench, prepareDataset, type Workbench } from '../../main/service/index.js';
import { readFileInput, readSpecDir } from '../../main/cli/files.js';
import { sameOperations } from '../../main/openapi/match.js';
import { compareRequest } from '../../main/scoring/index.js';
import { hasWapiiBench, REPO_ROOT, tempDir } from '../support/paths.js';
import { loadWapiiBench } from '../support/wapiibench.js';

/** Our own small dataset in the benchmark's real-world format (scoring.md §1), with small specs of its APIs. */
const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'realworld');
const DATASET = path.join(FIXTURE, 'dataset.json');
const SPECS = path.join(FIXTURE, 'specs');
const unwrap = <T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T => {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe('the real-world dataset format, end to end', () => {
  let wb: Workbench;
  const executor = createExecutor({ workers: 1 });
  beforeAll(() => {
    wb = openWorkbench({ db: path.join(tempDir(), 'wapii.db') });
  });
  afterAll(async () => {
    wb.store.close();
    await executor[Symbol.asyncDispose]();
  });

  it('imports every field, checks the samples as any other, and a flat export is JSON-equal to the input', async () => {
    const client = localClient(wb.service);
    const input = JSON.parse(fs.readFileSync(DATASET, 'utf8')) as Record<string, JsonValue>[];
    const summary = await client.importDataset({ dataset: unwrap(readFileInput(DATASET)), specs: unwrap(readSpecDir(SPECS)) });
    expect(summary).toMatchObject({ sampleCount: input.length, flaggedCount: 0 });
    const samples = await client.listSamples({ datasetId: summary.id });
    expect(samples.map((s) => s.findings)).toEqual(input.map(() => []));
    // Kept: the starter, the definitions (nested), the template URL, the provenance, an unknown field.
    expect(samples[1]!.fields).toMatchObject({ starter_code: input[1]!['starter_code'], definitions: { owner: 'natsukagami', perPage: 5 }, template_url: input[1]!['template_url'], repo_name: 'example/release-watch', notes: { picked_by: 'fixture', reviewed: true } });
    const { files } = await client.exportDataset({ datasetId: summary.id, format: 'flat' });
    const exported = JSON.parse(Object.values(files)[0]!) as unknown[];
    exported.forEach((sample, i) => expect(sample, `sample ${i}`).toEqual(input[i]));
    expect(exported).toHaveLength(input.length);
  });

  it('keeps an edited starter and definitions, and undo restores them', async () => {
    const client = localClient(wb.service);
    const [dataset] = await client.listDatasets({});
    const [first] = await client.listSamples({ datasetId: dataset!.id });
    const fields = { ...first!.fields, starter_code: `${String(first!.fields!['starter_code'])}`.replace('getBio', 'getProfile'), definitions: { constants: {}, username: 'octocat' } };
    const edited = await client.editSample({ datasetId: dataset!.id, sampleId: first!.id, fields, config: { ...first!.config, url: 'https://api.github.com/users/octocat' }, reason: 'another user' });
    expect(edited.sample.fields).toEqual(fields);
    const undone = await client.undoEdit({ datasetId: dataset!.id, sampleId: first!.id });
    expect(undone.sample.fields).toEqual(first!.fields);
  });

  const combos = (['full', 'argument'] as CompletionMode[]).flatMap((mode) => (['single', 'double', 'backtick'] as Quote[]).map((quote) => [mode, quote] as const));
  it.each(combos)('the oracle (the starter with the task and the expected call) scores 100%% correct: %s completion, %s quotes', async (mode, quote) => {
    const prepared = unwrap(await prepareDataset(unwrap(readFileInput(DATASET)), unwrap(readSpecDir(SPECS))));
    const specs = new Map([...prepared.specs].map(([api, p]) => [api, p.spec]));
    const verdicts = [];
    for (const s of prepared.samples) {
      const { program } = oracleProgram(s, mode, quote, quote === 'double' ? 'await' : 'then');
      const setup = setupFor(setupSampleOf(s), mode);
      expect(program.startsWith(setup.starter)).toBe(true);
      const e = await evaluateCode(program, s.config, specs.get(s.api)!, executor, 'default', setup);
      verdicts.push({ api: s.api, verdict: e.verdict.sample_verdict, runs: 'runs' in e.extraction ? e.extraction.runs : e.extraction.error, error: e.execution?.error?.message });
    }
    expect(verdicts).toEqual(prepared.samples.map((s) => ({ api: s.api, verdict: 'correct', runs: 'own-starter', error: undefined })));
  });

  it('scores code files written inside the starter (wapii score): the definitions are in scope, the starter is not a syntax error', async () => {
    const prepared = unwrap(await prepareDataset(unwrap(readFileInput(DATASET)), unwrap(readSpecDir(SPECS))));
    const specs = new Map([...prepared.specs].map(([api, p]) => [api, p.spec]));
    // A model that uses the definitions, as the tasks ask.
    const byDefinitions = [
      "get(`https://api.github.com/users/${username}`)\n  }\n};\n",
      "get(`https://api.github.com/repos/${owner}/themis-web-interface/releases`, { params: { per_page: perPage } })\n  return res.data\n}\n",
      "get('https://api.frankerfacez.com/v1/emoticons', { params: { q: args.emoteName, page: 1, private: 'on' } });\n\t\t} catch (e) {}\n\t}\n}\n",
      "get('https://api.etherscan.io/api', { params: { module: 'account', action: 'balance', address, tag: 'latest', apikey: apiKey } })\n          .then(resolve, reject);\n      });\n    }\n  };\n};\n",
      "post('https://jsonplaceholder.typicode.com/posts', { title: post.title, body: post.body, userId: post.author.id })\n  return data\n}\n",
    ];
    const codes = new Map(prepared.samples.map((s, i) => [i, setupFor(setupSampleOf(s), 'full').starter + byDefinitions[i]!]));
    const scores = await scoreCodes({ samples: prepared.samples.map((s, index) => ({ index, api: s.api, config: s.config, task: s.task, ...(s.fields ? { fields: s.fields } : {}) })), codes, specs, executor });
    expect(scores.samples.map((s) => s.evaluation.verdict.sample_verdict)).toEqual(prepared.samples.map(() => 'correct'));
    expect(scores.statistics).toMatchObject({ samples_total: 5, samples_correct: 5 });
  });

  it.each(['full', 'argument'] as CompletionMode[])('a run hands each sample its setup: the prompt continues its own starter, the output scores correct (%s completion)', async (mode) => {
    const prepared = unwrap(await prepareDataset(unwrap(readFileInput(DATASET)), unwrap(readSpecDir(SPECS))));
    const specs = new Map([...prepared.specs].map(([api, p]) => [api, p.spec]));
    const store = wb.store;
    // A scripted model: for the prompt of each sample, the completion the oracle writes after that sample's starter.
    const byStarter = new Map(prepared.samples.map((s) => [oracleProgram(s, mode).starter, oracleProgram(s, mode).completion]));
    const prompts: string[] = [];
    const backend: GenerationBackend = {
      manifest: {},
      slots: 1,
      slot: () => ({
        generate: async ({ prompt }) => {
          prompts.push(prompt.text);
          const text = byStarter.get(prompt.starter);
          if (text === undefined) throw new Error(`no scripted answer for the starter ${JSON.stringify(prompt.starter.slice(-40))}`);
          return { text, tokens: 1, stop: 'eos', interventions: [], promptTokens: 1, reusedPromptTokens: 0, promptMs: 0, generateMs: 0, constraintMs: 0, batched: 1 };
        },
      }),
      [Symbol.asyncDispose]: async () => {},
    };
    const samples: RunSample[] = prepared.samples.map((s, index) => ({ index, api: s.api, task: s.task, config: s.config, ...(s.fields ? { fields: s.fields } : {}) }));
    const { runId, report } = await executeRun({ store, backend, executor, samples, specs, plan: { mode, n: 1, seed: 1, settings: { setup: mode }, manifest: {}, dataset: 'fixture' } });
    expect(report.statistics).toMatchObject({ samples_total: 5, samples_correct: 5 });
    expect(prompts.every((p, i) => p.includes(`// ${prepared.samples[i]!.task}`))).toBe(true);
    expect(store.getRun(runId)!.samples.map((r) => (r.extraction as { runs?: string }).runs)).toEqual(samples.map(() => 'own-starter'));
  });

  it('refuses a dataset with an API no spec describes, one line per API, and imports the rest when asked', async () => {
    const client = localClient(wb.service);
    const specs = unwrap(readSpecDir(SPECS)).filter((f) => !/github|etherscan/.test(f.filename));
    const dataset = unwrap(readFileInput(DATASET));
    await expect(client.importDataset({ dataset, specs })).rejects.toMatchObject({
      code: 'bad_input',
      message: expect.stringMatching(/API `github_v3` \(2 samples, first: sample 0\): no spec github_v3\.yaml or github_v3\.json was given\nAPI `etherscan_v1` \(1 sample, first: sample 3\): no spec/),
    });
    const partial = await client.importDataset({ dataset, specs, skipMissingSpecs: true, name: 'partial' });
    expect(partial).toMatchObject({ sampleCount: 2, skipped: [{ api: 'github_v3', samples: 2 }, { api: 'etherscan_v1', samples: 1 }] });
  });

  it('refuses a real-world field of the wrong type in one line', () => {
    const bad = JSON.stringify([{ api: 'a', task: 't', config: { url: 'https://x/y', method: 'get' }, starter_code: 42 }]);
    expect(parseDataset(bad, 'bad.json')).toMatchObject({ ok: false, error: { message: 'bad.json: sample 0: `starter_code` expected string, received number' } });
  });
});

describe.runIf(hasWapiiBench)('the extraction fallback scores as the reference does', () => {
  const executor = createExecutor({ workers: 1 });
  afterAll(() => executor[Symbol.asyncDispose]());

  // The ground-truth call of a sample, written where our own cut would leave a syntax error.
  const wrappers: Record<string, (call: string) => string> = {
    'a top-level try': (call) => `try {\n  const response = await axios.${call};\n  console.log(response.data);\n} catch (error) {\n  console.error(error);\n}\n`,
    'a helper function': (call) => `function send() {\n  return axios.${call};\n}\nsend();\n`,
    'an async IIFE': (call) => `(async () => {\n  const response = await axios.${call};\n  console.log(response.data);\n})();\n`,
    'a code fence': (call) => "```javascript\nconst axios = require('axios');\n\naxios." + `${call}\n  .then((r) => console.log(r.data));\n` + '```\n',
  };
  for (const [where, wrap] of Object.entries(wrappers)) {
    it(`a call inside ${where}: the same verdicts as --compat reference, all correct`, async () => {
      const { samples, specs } = await loadWapiiBench();
      // One sample per API, with a body, query or header argument each.
      const picked = [0, 170, 210, 230, 300].map((i) => samples[i]!);
      for (const s of picked) {
        const { starter, completion } = oracleProgram(s, 'full');
        const call = completion.slice(0, completion.indexOf('\n  .then'));
        const head = starter.slice(0, starter.lastIndexOf('axios.'));
        const text = where === 'a code fence' ? wrap(call) : head + wrap(call);
        const ours = await evaluateCode(text, s.config, specs.get(s.api)!, executor, 'default', setupFor(s, 'full'));
        const reference = await evaluateCode(text, s.config, specs.get(s.api)!, executor, 'reference', setupFor(s, 'full'));
        expect(ours.extraction).toMatchObject({ runs: 'call-alone' });
        expect(ours.verdict).toEqual(reference.verdict);
        expect(ours.verdict.sample_verdict).toBe('correct');
      }
    });
  }
});

describe('real-world samples scored as upstream scores them (issue 36 items 15, 16)', () => {
  const executor = createExecutor({ workers: 1 });
  afterAll(() => executor[Symbol.asyncDispose]());

  const TELEGRAM = `openapi: 3.0.3
info: { title: Telegram Bot API (fixture), version: '7.0' }
servers:
  - url: https://api.telegram.org/bot{token}
    variables: { token: { default: '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11' } }
paths:
  /sendMessage:
    post:
      requestBody:
        content:
          application/json:
            schema: { type: object, required: [chat_id, text], properties: { chat_id: { type: integer }, text: { type: string } } }
      responses: { '200': { description: ok } }
`;
  // FrankerFaceZ declares its emote search under two names, with identical operations (the operationId aside).
  const FRANKERFACEZ = `openapi: 3.0.3
info: { title: FrankerFaceZ v1 (fixture, both names), version: '1.0' }
servers: [{ url: https://api.frankerfacez.com }]
components:
  parameters:
    q: { name: q, in: query, schema: { type: string } }
    page: { name: page, in: query, schema: { type: integer } }
    private: { name: private, in: query, schema: { type: string, enum: ['on', 'off'] } }
  schemas:
    Emote: { type: object, properties: { id: { type: integer }, name: { type: string } } }
paths:
  /v1/emoticons:
    get:
      operationId: emoticons
      summary: Search emotes
      parameters: [{ $ref: '#/components/parameters/q' }, { $ref: '#/components/parameters/page' }, { $ref: '#/components/parameters/private' }]
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Emote' } } } } } }
  /v1/emotes:
    get:
      operationId: emotes
      summary: Search emotes
      parameters: [{ $ref: '#/components/parameters/q' }, { $ref: '#/components/parameters/page' }, { $ref: '#/components/parameters/private' }]
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Emote' } } } } } }
  /v1/badges:
    get:
      operationId: badges
      summary: Search emotes
      parameters: [{ $ref: '#/components/parameters/q' }, { $ref: '#/components/parameters/page' }, { $ref: '#/components/parameters/private' }]
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { type: string } } } } } }
`;
  const TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
  const samples = [
    {
      api: 'telegram',
      task: 'Send the text in `text` to the chat `chatId`. The bot token is in `apiKey`.',
      config: { url: `https://api.telegram.org/bot${TOKEN}/sendMessage`, method: 'post', data: { chat_id: 42, text: 'deploy finished' } },
      starter_code: "const axios = require('axios');\n\nasync function notify(text) {\n  // {task}\n  return axios.",
      template_url: 'https://api.telegram.org/bot${apiKey}/sendMessage',
      definitions: { apiKey: TOKEN, botName: 'relay_bot', chatId: 42, text: 'deploy finished' },
    },
    {
      api: 'frankerfacez',
      task: 'Search for emotes, including private ones (keyword \'on\'), matching `name`, and return page 1 of the results.',
      config: { url: 'https://api.frankerfacez.com/v1/emoticons', method: 'get', params: { q: 'fa4ab018', page: 1, private: 'on' } },
      starter_code: "const axios = require('axios');\n\nasync function search(name) {\n  // {task}\n  const res = await axios.",
      definitions: { name: 'fa4ab018' },
    },
  ];
  const prepare = async () => {
    const prepared = unwrap(await prepareDataset({ filename: 'upstream.json', content: JSON.stringify(samples) }, [{ filename: 'telegram.yaml', content: TELEGRAM }, { filename: 'frankerfacez.yaml', content: FRANKERFACEZ }]));
    const specs = new Map([...prepared.specs].map(([api, p]) => [api, p.spec]));
    const score = async (i: number, completion: string) => {
      const s = prepared.samples[i]!;
      const setup = setupFor(setupSampleOf(s), 'full');
      return (await evaluateCode(setup.starter + completion, s.config, specs.get(s.api)!, executor, 'default', setup)).verdict;
    };
    return { prepared, score };
  };

  it("Telegram's bot{token}: the token is an argument; another name's value is wrong, the task's is correct", async () => {
    const { prepared, score } = await prepare();
    const other = await score(0, 'post(`https://api.telegram.org/bot${botName}/sendMessage`, { chat_id: chatId, text })\n}\n');
    expect(other).toMatchObject({ sample_verdict: 'wrong', url_verdict: 'correct', arguments: { path_params: { token: { expected: TOKEN, actual: 'relay_bot', verdict: 'incorrect_value' } } } });
    const right = await score(0, 'post(`https://api.telegram.org/bot${apiKey}/sendMessage`, { chat_id: chatId, text })\n}\n');
    expect(right).toMatchObject({ sample_verdict: 'correct', arguments: { path_params: { token: { verdict: 'correct' } } } });
    const { program } = oracleProgram(prepared.samples[0]!, 'full');
    expect((await evaluateCode(program, prepared.samples[0]!.config, prepared.specs.get('telegram')!.spec, executor, 'default', setupFor(setupSampleOf(prepared.samples[0]!), 'full'))).verdict.sample_verdict).toBe('correct');
  });

  it("FrankerFaceZ's /v1/emotes for the expected /v1/emoticons is the same endpoint; a path alike but for its responses is not", async () => {
    const { score } = await prepare();
    const call = (path: string): string => `get('https://api.frankerfacez.com/v1/${path}', { params: { q: name, page: 1, private: 'on' } })\n  return res.data\n}\n`;
    expect(await score(1, call('emotes'))).toMatchObject({ sample_verdict: 'correct', url_verdict: 'correct', endpoint_verdict: 'correct' });
    expect(await score(1, call('emoticons'))).toMatchObject({ sample_verdict: 'correct' });
    expect(await score(1, call('badges'))).toMatchObject({ sample_verdict: 'wrong', url_verdict: 'wrong' });
  });
});

describe.runIf(hasWapiiBench)('the four WAPIIBench specs have no two paths of one operation', () => {
  it("so reference agreement cannot move; Slack's admin.inviteRequests.approve and .deny differ in their descriptions only, and stay two endpoints", async () => {
    const { specs } = await loadWapiiBench();
    const pairs: string[] = [];
    for (const [api, spec] of specs) {
      const paths = spec.paths.map((p) => p.path);
      for (let i = 0; i < paths.length; i++) for (let j = i + 1; j < paths.length; j++) if (sameOperations(spec, paths[i]!, paths[j]!)) pairs.push(`${api} ${paths[i]} ${paths[j]}`);
    }
    expect(pairs).toEqual([]);
    const slack = specs.get('slack')!;
    expect(compareRequest(slack, { url: 'https://slack.com/api/admin.inviteRequests.approve', method: 'post', data: { invite_request_id: 'I1' } }, { url: 'https://slack.com/api/admin.inviteRequests.deny', method: 'post', headers: {}, params: {}, data: { invite_request_id: 'I1' } })).toMatchObject({ url_verdict: 'wrong', sample_verdict: 'wrong' });
  });
});
