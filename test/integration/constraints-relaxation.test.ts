import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Llama, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import { unwrap } from '../../main/api/result.js';
import { readSpecFolder } from '../../main/cli/specFolder.js';
import { ConstraintMatcher, exportGbnf } from '../../main/constraints/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { oracleProgram, type CompletionMode } from '../../main/prompt/index.js';
import { prepareDataset } from '../../main/service/index.js';
import { grammarBinding, grammarState, loadVocabModel } from '../support/llama.js';
import { hasWapiiBench, REPO_ROOT } from '../support/paths.js';
import { seededRandom } from '../support/random.js';
import { hasVocabBundle, vocabFile } from '../support/vocab.js';
import { loadWapiiBench } from '../support/wapiibench.js';

/** Names in scope before the call, so walks take references (and `qs` for form bodies). */
const DECLARATIONS = "const qs = require('qs');\nconst token = process.env.API_TOKEN, userId = 42;\nconst ids = [1, 2];\n";
const WALKS = Number(process.env['WAPII_RELAXATION_WALKS'] ?? 30);
// Two characters past ASCII, the last one a header value may hold (U+00FF), so the header strings' bound is walked too.
const ALPHABET = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\n', '\t', '\r', 'é', '\u00ff'];

const classOf = (c: string): string => (/[a-z]/.test(c) ? 'a' : /[A-Z]/.test(c) ? 'A' : /[0-9]/.test(c) ? '0' : c === ' ' ? ' ' : c);

type Call = { api: string; task: string; config: { url: string; method: string } & Record<string, unknown> };
/** One call per fixture folder (test/fixtures/openapi), to start argument completions from. */
const FIXTURES: Record<string, Call[]> = {
  swagger2: [{ api: 'petshop', task: 'Add Rex.', config: { url: 'https://api.petshop.example/v1/pets', method: 'post', data: { name: 'Rex' } } }],
  multifile: [{ api: 'shop', task: 'Get order ord_1.', config: { url: 'https://shop.example/api/orders/ord_1', method: 'get' } }],
  openapi31: [{ api: 'messenger', task: 'Say hi to chat 42.', config: { url: 'https://api.messenger.example/bot1/sendMessage', method: 'post', data: { chat_id: 42, text: 'hi' } } }],
  forms: [{ api: 'relay', task: 'Text +1.', config: { url: 'https://api.relay.example/2010-04-01/Accounts/AC1/Messages.json', method: 'post', data: { To: '+1' } } }],
};

/**
 * A random walk through the engine's language from a starter: at each step one of the
 * characters the matcher allows next, more and more often the next character of its shortest
 * completion, until the statement ends. Returns the text after the starter.
 */
function walk(spec: ApiSpec, starter: string, rand: () => number): string {
  const { matcher, fed } = ConstraintMatcher.after(spec, starter);
  expect(fed).toEqual({ ok: true });
  let text = '';
  for (let step = 0; !(step > 0 && matcher.isComplete()); step++) {
    const finish = rand() < Math.min(0.95, step / 400);
    const completion = finish ? matcher.completion() : undefined;
    let pick = completion?.[0];
    if (pick === undefined) {
      // A class of the allowed characters first, then one of it: punctuation and control characters
      // (a backslash, `$`, `?`, a tab after a backslash) come up as often as a letter does.
      const allowed = ALPHABET.filter((c) => matcher.clone().push(c));
      const classes = [...new Set(allowed.map(classOf))];
      const cls = classes[Math.floor(rand() * classes.length)]!;
      const members = allowed.filter((c) => classOf(c) === cls);
      pick = members[Math.floor(rand() * members.length)]!;
    }
    expect(matcher.push(pick)).toBe(true);
    text += pick;
  }
  return text;
}

describe.runIf(hasWapiiBench && hasVocabBundle)('the exported GBNF is a relaxation of the engine: it accepts every program sampled from the engine', () => {
  let llama: Llama;
  let model: LlamaModel;
  const specs = new Map<string, ApiSpec>();
  const starters: { api: string; setup: CompletionMode; starter: string }[] = [];
  beforeAll(async () => {
    ({ llama, model } = await loadVocabModel(vocabFile('qwen2')));
    const bench = await loadWapiiBench();
    for (const [api, spec] of bench.specs) specs.set(api, spec);
    for (const setup of ['full', 'argument'] as CompletionMode[]) {
      // A few samples per API, their oracle starters (argument completion: after `axios.<method>('<url>',`).
      for (const api of bench.specs.keys()) {
        bench.samples.filter((s) => s.api === api).filter((_, i) => i % 7 === 0).slice(0, 6).forEach((sample) => starters.push({ api, setup, starter: DECLARATIONS + oracleProgram(sample, setup, 'single').starter }));
      }
    }
    for (const [folder, calls] of Object.entries(FIXTURES)) {
      const files = unwrap(await readSpecFolder(path.join(REPO_ROOT, 'test', 'fixtures', 'openapi', folder)));
      const prepared = unwrap(await prepareDataset({ filename: `${folder}.json`, content: JSON.stringify(calls) }, files));
      for (const [api, entry] of prepared.specs) specs.set(api, entry.spec);
      for (const setup of ['full', 'argument'] as CompletionMode[]) for (const sample of prepared.samples) starters.push({ api: sample.api, setup, starter: DECLARATIONS + oracleProgram(sample, setup, 'single').starter });
    }
  }, 300_000);
  afterAll(async () => {
    await model?.dispose();
    await llama?.dispose();
  });

  it('random walks, both setups, the four WAPIIBench specs and the fixtures', async () => {
    const rand = seededRandom(20261126);
    const grammars = new Map<string, LlamaGrammar>();
    const binding = grammarBinding(llama);
    /** The offset of the first character the grammar refuses, or -1; fed one character's tokens at a time. */
    const firstRefused = (grammar: LlamaGrammar, text: string): number => {
      const state = grammarState(model, grammar);
      for (let i = 0; i < text.length; i++) {
        for (const token of model.tokenize(text[i]!, true)) {
          if (!binding.canBeNextTokenForGrammarEvaluationState(state, token)) return i;
          binding.acceptGrammarEvaluationStateToken(state, token);
        }
      }
      return -1;
    };
    const refused: string[] = [];
    let walks = 0;
    let characters = 0;
    for (const { api, setup, starter } of starters) {
      const spec = specs.get(api)!;
      const names = [...ConstraintMatcher.after(spec, starter).matcher.language.scope.declared];
      const key = `${api} ${names.join(',')}`;
      let grammar = grammars.get(key);
      if (!grammar) {
        grammars.set(key, (grammar = await llama.createGrammar({ grammar: exportGbnf(spec, names) })));
        // The check refuses what the grammar refuses, at its character.
        expect(firstRefused(grammar, 'fetch(')).toBe(0);
      }
      for (let n = 0; n < WALKS; n++) {
        const sampled = walk(spec, starter, rand);
        // The GBNF takes the completion after `axios.` (argument completion: the starter's own call first).
        const text = starter.slice(starter.lastIndexOf('axios.') + 'axios.'.length) + sampled;
        const at = firstRefused(grammar, text);
        walks++;
        characters += sampled.length;
        if (at >= 0) refused.push(`${api} ${setup}: ${JSON.stringify(text.slice(Math.max(0, at - 50), at))} then ${JSON.stringify(text[at])}`);
      }
    }
    console.log(`${walks} walks, ${characters} sampled characters, ${refused.length} refused by the GBNF`);
    expect(refused).toEqual([]);
  }, 900_000);
});
