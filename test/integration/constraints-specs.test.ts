import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Llama, LlamaModel } from 'node-llama-cpp';
import { unwrap } from '../../main/api/result.js';
import { readSpecFolder } from '../../main/cli/specFolder.js';
import { ConstraintMatcher, exportGbnf } from '../../main/constraints/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { oracleProgram, type Quote } from '../../main/prompt/index.js';
import { prepareDataset } from '../../main/service/index.js';
import { grammarAccepts, loadVocabModel } from '../support/llama.js';
import { REPO_ROOT } from '../support/paths.js';
import { hasVocabBundle, vocabFile } from '../support/vocab.js';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'openapi');

/** Ground truths written for the fixtures (test/fixtures/openapi), one folder per kind of description. */
const DATASETS: Record<string, { folder: string; samples: { api: string; task: string; config: Record<string, unknown> }[] }> = {
  'Swagger 2.0': {
    folder: 'swagger2',
    samples: [
      { api: 'petshop', task: 'List up to 10 dogs.', config: { url: 'https://api.petshop.example/v1/pets', method: 'get', params: { limit: 10, tag: 'dog' } } },
      { api: 'petshop', task: 'Add Rex.', config: { url: 'https://api.petshop.example/v1/pets', method: 'post', data: { name: 'Rex', owner: { email: 'r@x.example' } } } },
      { api: 'petshop', task: 'Get pet 7.', config: { url: 'https://api.petshop.example/v1/pets/7', method: 'get', headers: { 'X-Shop-Key': 'k' } } },
      { api: 'petshop', task: 'Caption a photo of pet 7.', config: { url: 'https://api.petshop.example/v1/pets/7/photos', method: 'post', data: { caption: 'At the beach', public: true } } },
    ],
  },
  'multi-file': {
    folder: 'multifile',
    samples: [
      { api: 'shop', task: 'Order two A.', config: { url: 'https://shop.example/api/orders', method: 'post', data: { items: [{ sku: 'A', quantity: 2 }], total: { amount: 10, currency: 'EUR' } } } },
      { api: 'shop', task: 'Get order ord_1, expanded.', config: { url: 'https://shop.example/api/orders/ord_1', method: 'get', params: { expand: true } } },
    ],
  },
  'OpenAPI 3.1': {
    folder: 'openapi31',
    samples: [
      { api: 'messenger', task: 'Say hi to chat 42.', config: { url: 'https://api.messenger.example/bot123456:AAH/sendMessage', method: 'post', data: { chat_id: 42, text: 'hi', parse_mode: null, silent: true } } },
      { api: 'messenger', task: 'Say hi to @news from the US.', config: { url: 'https://us.messenger.example/bot1/sendMessage', method: 'post', data: { chat_id: '@news', text: 'hi', reply_to: null } } },
      { api: 'messenger', task: 'Geocode Main St.', config: { url: 'https://maps.messenger.example/maps/api/geocode/json', method: 'get', params: { address: 'Main St' } } },
      { api: 'messenger', task: 'Upload a.txt.', config: { url: 'https://upload.messenger.example/uploads', method: 'post', data: { name: 'a.txt' } } },
      { api: 'messenger', task: 'Balance of 0x1.', config: { url: 'https://scan.messenger.example/api', method: 'get', params: { module: 'account', action: 'balance', address: '0x1', tag: 'latest' } } },
      { api: 'messenger', task: 'Transactions of 0x1, page 2.', config: { url: 'https://scan.messenger.example/api', method: 'get', params: { module: 'account', action: 'txlist', address: '0x1', page: 2 } } },
    ],
  },
};

interface Imported {
  readonly spec: ApiSpec;
  readonly samples: readonly { api: string; task: string; config: { url: string; method: string } }[];
}

/** Imports a fixture folder as `wapii import` reads it from disk: spec files bundled, Swagger converted, every sample checked. */
async function importFixture(name: string): Promise<Imported> {
  const { folder, samples } = DATASETS[name]!;
  const specs = unwrap(await readSpecFolder(path.join(FIXTURES, folder)));
  const prepared = unwrap(await prepareDataset({ filename: `${folder}.json`, content: JSON.stringify(samples) }, specs));
  for (const sample of prepared.samples) expect(sample.findings, `${name}: ${sample.task}`).toEqual([]);
  return { spec: [...prepared.specs.values()][0]!.spec, samples: prepared.samples };
}

const QUOTES: Quote[] = ['single', 'double', 'backtick'];

describe.each(Object.keys(DATASETS))('a %s description, imported and compiled', (name) => {
  let imported: Imported;
  beforeAll(async () => {
    imported = await importFixture(name);
  });

  it('accepts every ground truth in both setups and every quote style', () => {
    for (const sample of imported.samples) {
      for (const setup of ['full', 'argument'] as const) {
        for (const quote of QUOTES) {
          const { starter, program } = oracleProgram(sample, setup, quote);
          const { matcher, fed } = ConstraintMatcher.after(imported.spec, starter);
          expect(fed, `${setup} ${quote}: ${starter}`).toEqual({ ok: true });
          expect(matcher.feed(program.slice(starter.length)), `${setup} ${quote}: ${program}`).toEqual({ ok: true });
          expect(matcher.isComplete()).toBe(true);
        }
      }
    }
  });

  it('exports GBNF for it', () => {
    expect(exportGbnf(imported.spec)).toMatch(/^# GBNF for llama\.cpp/);
  });
});

describe('the server forms and query keys in the constraint language', () => {
  let spec: ApiSpec;
  beforeAll(async () => {
    spec = (await importFixture('OpenAPI 3.1')).spec;
  });
  const starter = "const axios = require('axios');\nconst token = process.env.BOT_TOKEN;\n";
  const feed = (completion: string): { ok: boolean; offset?: number; complete: boolean } => {
    const { matcher } = ConstraintMatcher.after(spec, starter);
    const fed = matcher.feed(completion);
    // Offsets count from the start of the starter.
    return fed.ok ? { ok: true, complete: matcher.isComplete() } : { ok: false, offset: fed.offset - starter.length, complete: false };
  };

  it.each([
    "axios.post(`https://api.messenger.example/bot${token}/sendMessage`, { chat_id: 1, text: 'x' });",
    "axios.post('https://api.messenger.example/bot<token>/sendMessage', { chat_id: '@a', text: 'x', parse_mode: 'HTML' });",
    "axios.post('https://eu.messenger.example/bot1:A/sendMessage', { chat_id: 1, text: 'x', silent: true, reply_to: null });",
    "axios.get('https://maps.messenger.example/maps/api/geocode/json', { params: { address: 'x' } });",
    "axios.post('https://upload.messenger.example/uploads', { name: 'a' });",
    "axios.get('https://scan.messenger.example/api', { params: { module: 'account', action: 'txlist', address: 'a', page: 2 } });",
    "axios.get('https://scan.messenger.example/api/', { params: { module: 'account', action: 'balance', address: 'a', tag: 'latest' } });",
    "axios.get('https://scan.messenger.example/api?module=account&action=balance', { params: { address: 'a' } });",
  ])('accepts %s', (completion) => {
    expect(feed(completion)).toEqual({ ok: true, complete: true });
  });

  it.each([
    ['a server variable left empty', "axios.post('https://api.messenger.example/bot|/sendMessage', { chat_id: 1, text: 'x' });"],
    ['a server variable outside its enum', "axios.post('https://|fr.messenger.example/bot1/sendMessage', { chat_id: 1, text: 'x' });"],
    ['an operation on a server of another path', "axios.get('https://|api.messenger.example/bot1/geocode/json', { params: { address: 'x' } });"],
    ['an operation on the document server when it has its own', "axios.post('https://api.messenger.example/bot1/|uploads', { name: 'a' });"],
    ['a const other than its value', "axios.get('https://scan.messenger.example/api', { params: { module: 'account', action: 'balance', address: 'a', tag: '|earliest' } });"],
    ['a query key value the path does not fix', "axios.get('https://scan.messenger.example/api', { params: { module: 'account', action: '|nope' } });"],
    ['a fixed query argument sent twice', "axios.get('https://scan.messenger.example/api?module=account&action=balance', { params: { |module: 'account', address: 'a' } });"],
  ])('rejects %s where it goes wrong', (_why, template) => {
    const result = feed(template.replace('|', ''));
    expect(result.ok).toBe(false);
    expect(result.offset).toBe(template.indexOf('|'));
  });
});

describe.runIf(hasVocabBundle)('the exported GBNF of the fixtures in node-llama-cpp', () => {
  let llama: Llama;
  let model: LlamaModel;
  beforeAll(async () => {
    ({ llama, model } = await loadVocabModel(vocabFile('qwen2')));
  });
  afterAll(async () => {
    await model?.dispose();
    await llama?.dispose();
  });

  it('accepts the ground truths the engine accepts', async () => {
    for (const name of Object.keys(DATASETS)) {
      const { spec, samples } = await importFixture(name);
      const grammar = await llama.createGrammar({ grammar: exportGbnf(spec) });
      for (const [i, sample] of samples.entries()) {
        const { starter, program } = oracleProgram(sample, 'full', QUOTES[i % 3]!);
        expect(grammarAccepts(llama, model, grammar, program.slice(starter.length)), `${name}: ${program}`).toBe(true);
      }
    }
  }, 120_000);
});

describe('basic auth where the spec has an http basic scheme', () => {
  it('takes `auth: {username, password}` in the config, both required, and nothing else there', async () => {
    const { spec } = await importFixture('Swagger 2.0');
    const starter = "const axios = require('axios');\nconst user = 'u';\n";
    const feed = (completion: string) => {
      const { matcher } = ConstraintMatcher.after(spec, starter);
      const fed = matcher.feed(completion);
      return fed.ok ? matcher.isComplete() : fed.offset - starter.length;
    };
    expect(feed("axios.get('https://api.petshop.example/v1/pets', { auth: { username: user, password: process.env.PASS } });")).toBe(true);
    expect(feed("axios.post('https://api.petshop.example/v1/pets', { name: 'Rex' }, { auth: { username: 'u', password: 'p' } });")).toBe(true);
    const missing = "axios.get('https://api.petshop.example/v1/pets', { auth: { username: 'u' |} });";
    expect(feed(missing.replace('|', ''))).toBe(missing.indexOf('|'));
    const other = "axios.get('https://api.petshop.example/v1/pets', { auth: { |token: 'u' } });";
    expect(feed(other.replace('|', ''))).toBe(other.indexOf('|'));
    // A spec without a basic scheme has no `auth`.
    const messenger = (await importFixture('OpenAPI 3.1')).spec;
    const { matcher } = ConstraintMatcher.after(messenger, starter);
    expect(matcher.feed("axios.get('https://maps.messenger.example/maps/api/geocode/json', { params: { address: 'x' }, auth: ").ok).toBe(false);
  });
});
