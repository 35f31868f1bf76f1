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
  'form-encoded (OpenAPI 3.1)': {
    folder: 'forms',
    samples: [
      { api: 'relay', task: 'Text +15550001 from +15550002: hi, as MMS.', config: { url: 'https://api.relay.example/2010-04-01/Accounts/AC1/Messages.json', method: 'post', data: { To: '+15550001', From: '+15550002', Body: 'hi', SendAsMms: true, ValidityPeriod: 14400 } } },
      { api: 'relay', task: 'Text +15550001 once, ratio 1.5.', config: { url: 'https://api.relay.example/2010-04-01/Accounts/AC1/Messages.json', method: 'post', data: { To: '+15550001', Ratio: 1.5, Attempt: 10 } } },
      { api: 'relay', task: 'List 20 messages that are not archived.', config: { url: 'https://api.relay.example/2010-04-01/Accounts/AC1/Messages.json', method: 'get', params: { PageSize: 20, Archived: false } } },
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

  it('takes form wrappers and 3.1 constants as the engine does (relay fixture)', async () => {
    const { spec } = await importFixture('form-encoded (OpenAPI 3.1)');
    const url = "'https://api.relay.example/2010-04-01/Accounts/AC1/Messages.json'";
    const withQs = await llama.createGrammar({ grammar: exportGbnf(spec, ['qs', 'to']) });
    const withoutQs = await llama.createGrammar({ grammar: exportGbnf(spec, ['to']) });
    const accepts = (grammar: typeof withQs, completion: string): boolean => grammarAccepts(llama, model, grammar, completion);
    expect(accepts(withQs, `post(${url}, new URLSearchParams({ To: to, SendAsMms: true }));`)).toBe(true);
    expect(accepts(withQs, `post(${url}, qs.stringify( { To: '+1', ValidityPeriod: 14400, Ratio: 1.5, Attempt: 10 } ));`)).toBe(true);
    expect(accepts(withoutQs, `post(${url}, new URLSearchParams({ To: to, Attempt: false }));`)).toBe(true);
    expect(accepts(withoutQs, `post(${url}, qs.stringify({ To: to }));`)).toBe(false);
    expect(accepts(withQs, `post('https://api.relay.example/2010-04-01/Accounts/AC1/Notes.json', new URLSearchParams({ text: 'x' }));`)).toBe(false);
    for (const bad of ['SendAsMms: false', 'ValidityPeriod: 14401', 'Ratio: 2.5', 'Attempt: true', 'Attempt: 2']) {
      expect(accepts(withQs, `post(${url}, { To: to, ${bad} });`), bad).toBe(false);
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

describe('form-encoded bodies and 3.1 constants of booleans and numbers (the relay fixture)', () => {
  let spec: ApiSpec;
  beforeAll(async () => {
    spec = (await importFixture('form-encoded (OpenAPI 3.1)')).spec;
  });
  const URL = "'https://api.relay.example/2010-04-01/Accounts/AC1/Messages.json'";
  const NOTES = "'https://api.relay.example/2010-04-01/Accounts/AC1/Notes.json'";
  const WITH_QS = "const axios = require('axios');\nconst qs = require('qs');\nconst to = '+1555';\n";
  const WITHOUT_QS = "const axios = require('axios');\nconst to = '+1555';\n";
  /** True when accepted and complete, else the offset (from the completion's start) of the refused character. */
  const feed = (completion: string, starter = WITH_QS): true | number => {
    const { matcher } = ConstraintMatcher.after(spec, starter);
    const fed = matcher.feed(completion);
    if (!fed.ok) return fed.offset - starter.length;
    expect(matcher.isComplete(), completion).toBe(true);
    return true;
  };
  const refusedAt = (template: string, starter = WITH_QS): void => expect(feed(template.replace('|', ''), starter), template).toBe(template.indexOf('|'));

  it.each([
    `axios.post(${URL}, new URLSearchParams({ To: to, Body: 'hi' }), { auth: { username: 'AC1', password: process.env.RELAY_TOKEN } });`,
    `axios.post(${URL}, new URLSearchParams( {\n  To: '+1', SendAsMms: true,\n} ) );`,
    `axios.post(${URL}, qs.stringify({ To: to, ValidityPeriod: 14400, Ratio: 0.5, Attempt: false }));`,
    `axios.post(${URL}, { To: to, Attempt: 1 });`,
    `axios.post(${URL}, { To: to, Attempt: 10 }, { headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });`,
    `axios.get(${URL}, { params: { PageSize: 20, Archived: false } });`,
  ])('accepts %s', (completion) => {
    expect(feed(completion)).toBe(true);
  });

  it.each([
    ['qs.stringify when qs is not in scope', `axios.post(${URL}, |qs.stringify({ To: to }));`, WITHOUT_QS],
    ['a wrapper around a JSON body', `axios.post(${NOTES}, |new URLSearchParams({ text: 'x' }));`, WITH_QS],
    ['an unknown key inside the wrapper', `axios.post(${URL}, new URLSearchParams({ To|o: to }));`, WITH_QS],
    ['a wrapper closed before a required key', `axios.post(${URL}, new URLSearchParams({ Body: 'x' |}));`, WITH_QS],
    ['a wrapper left open', `axios.post(${URL}, new URLSearchParams({ To: to })|;`, WITH_QS],
    ['a qs call other than stringify (qs.parse is a reference, and no call)', `axios.post(${URL}, qs.parse|({ To: to }));`, WITH_QS],
    ['a boolean const other than its value', `axios.post(${URL}, { To: to, SendAsMms: |false });`, WITH_QS],
    ['an integer const other than its value', `axios.post(${URL}, { To: to, ValidityPeriod: 1440|1 });`, WITH_QS],
    ['an integer const cut short', `axios.post(${URL}, { To: to, ValidityPeriod: 144| });`, WITH_QS],
    ['a number outside its enum', `axios.post(${URL}, { To: to, Ratio: |2.5 });`, WITH_QS],
    ['a boolean outside an enum of numbers and false (`t` may begin the name `to`)', `axios.post(${URL}, { To: to, Attempt: t|rue });`, WITH_QS],
    ['a boolean const in params other than its value', `axios.get(${URL}, { params: { Archived: t|rue } });`, WITH_QS],
  ])('rejects %s where it goes wrong', (_why, template, starter) => {
    refusedAt(template, starter);
  });
});
