import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Llama, LlamaModel } from 'node-llama-cpp';
import { exportGbnf } from '../../main/constraints/index.js';
import type { SampleDraft } from '../../main/dataset/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { oracleProgram } from '../../main/prompt/index.js';
import { grammarAccepts, loadVocabModel } from '../support/llama.js';
import { hasWapiiBench } from '../support/paths.js';
import { hasVocabBundle, vocabFile } from '../support/vocab.js';
import { loadWapiiBench } from '../support/wapiibench.js';

/** The samples whose values contradict their spec in a way GBNF can express (#7's missing required key it cannot). */
const CONTRADICTING = [15, 22, 26, 27, 57, 62, 65, 109, 161, 295, 323, 384];

describe.runIf(hasWapiiBench && hasVocabBundle)('the exported GBNF in node-llama-cpp', () => {
  let samples: SampleDraft[];
  let specs: Map<string, ApiSpec>;
  let llama: Llama;
  let model: LlamaModel;
  beforeAll(async () => {
    ({ samples, specs } = await loadWapiiBench());
    ({ llama, model } = await loadVocabModel(vocabFile('qwen2')));
  });
  afterAll(async () => {
    await model?.dispose();
    await llama?.dispose();
  });

  it('loads for every spec and accepts the ground truths (full completion)', async () => {
    const rejected: number[] = [];
    for (const [api, spec] of specs) {
      const text = exportGbnf(spec);
      expect(text).toMatch(/^# GBNF for llama\.cpp/);
      const grammar = await llama.createGrammar({ grammar: text });
      samples.forEach((sample, index) => {
        if (sample.api !== api) return;
        const { starter, program } = oracleProgram(sample, 'full', index % 2 === 0 ? 'single' : 'backtick');
        if (!grammarAccepts(llama, model, grammar, program.slice(starter.length))) rejected.push(index);
      });
    }
    expect(rejected.sort((a, b) => a - b)).toEqual(CONTRADICTING);
  }, 300_000);

  it('rejects what the spec forbids', async () => {
    const grammar = await llama.createGrammar({ grammar: exportGbnf(specs.get('slack')!) });
    expect(grammarAccepts(llama, model, grammar, "post('https://slack.com/api/chat.postMessage', { channel: 'C1' });")).toBe(true);
    expect(grammarAccepts(llama, model, grammar, "post('https://slack.com/api/chat.postMessagez', { channel: 'C1' });")).toBe(false);
    expect(grammarAccepts(llama, model, grammar, "post('https://slack.com/api/chat.postMessage', { chanel: 'C1' });")).toBe(false);
    expect(grammarAccepts(llama, model, grammar, "fetch('https://slack.com/api/chat.postMessage');")).toBe(false);
  });

  it('lets values reference only the names it was exported for, and process.env', async () => {
    const grammar = await llama.createGrammar({ grammar: exportGbnf(specs.get('slack')!, ['axios', 'channelId']) });
    const call = (value: string): string => `post('https://slack.com/api/chat.postMessage', { channel: ${value} });`;
    for (const ok of ['channelId', 'process.env.SLACK_CHANNEL', 'channelId.length', '`#${channelId}`', 'axios.defaults', "axios[ 'x' ]", 'axios[process.env.A]']) {
      expect(grammarAccepts(llama, model, grammar, call(ok)), ok).toBe(true);
    }
    // One accessor and no call (constrained code must run), as the matcher.
    for (const bad of ['channel', 'process.argv', '`#${channel}`', 'channelId.trim()', 'channelId()', 'axios.defaults.headers', 'process.env.A.length', '`$${x}`']) {
      expect(grammarAccepts(llama, model, grammar, call(bad)), bad).toBe(false);
    }
    // A name in scope may stand for the whole body (constraints.md: upstream's `axios.post(url, requestBody)`); a name out of scope may not.
    expect(grammarAccepts(llama, model, grammar, "post('https://slack.com/api/chat.postMessage', channelId);")).toBe(true);
    expect(grammarAccepts(llama, model, grammar, "post('https://slack.com/api/chat.postMessage', channel);")).toBe(false);
  });

  it('bounds whitespace between tokens as the engine does: one line break, runs of at most 16 spaces or tabs', async () => {
    const grammar = await llama.createGrammar({ grammar: exportGbnf(specs.get('slack')!) });
    const call = (ws: string): string => `post('https://slack.com/api/chat.postMessage',${ws}{${ws}channel${ws}:${ws}'C1'${ws}}${ws});`;
    for (const ok of [' '.repeat(16), '\t'.repeat(16), `${' '.repeat(16)}\n${' '.repeat(16)}`, '  \r\n\t']) expect(grammarAccepts(llama, model, grammar, call(ok)), JSON.stringify(ok)).toBe(true);
    for (const bad of [' '.repeat(17), '\n\n', ' \n \n', `\n${'\t'.repeat(17)}`]) expect(grammarAccepts(llama, model, grammar, call(bad)), JSON.stringify(bad)).toBe(false);
    // Inside a string, whitespace is content.
    expect(grammarAccepts(llama, model, grammar, `post('https://slack.com/api/chat.postMessage', { channel: '${' '.repeat(40)}' });`)).toBe(true);
  });
});
