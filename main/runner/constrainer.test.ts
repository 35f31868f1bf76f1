import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConstraintMatcher, exportGbnf, hasBit, namesInScope, vocabularyFromGguf, type Vocabulary } from '../constraints/index.js';
import type { DecodingConstraint } from '../generation/index.js';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { setupFor, type SetupSample } from '../prompt/index.js';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { hasVocabBundle, vocabFile } from '../../test/support/vocab.js';
import { cli } from '../../test/support/cli.js';
import { constrainerFor } from './constrainer.js';

/**
 * Real-world samples (a repository's file up to the call, issue 35 item 3) whose ground truth
 * reads a name of an enclosing scope: a parameter or a block-scoped `const` of the function around
 * the call, or one of the sample's `definitions`; their starters also call Axios before the task.
 * The local decoder's constraint must start at the task's call with those names in scope, and its
 * masks must let the ground truth through token by token.
 */
const SAMPLES: { sample: SetupSample; completion: string }[] = [
  {
    // The URL reads the arrow function's parameter; the header a `let` of the block around the call.
    sample: {
      task: 'Get the user whose name is passed in.',
      config: { method: 'get', url: 'https://api.github.com/users/octocat' },
      starter_code:
        "const axios = require('axios');\n\naxios.all([axios.get('https://api.github.com/rate_limit')]).then(() => {});\n\nconst getUser = async (name) => {\n  if (name) {\n    let token = process.env.GH_TOKEN;\n    // {task}\n    return axios.",
      template_url: 'https://api.github.com/users/${name}',
      definitions: { name: 'octocat' },
    },
    completion: 'get(`https://api.github.com/users/${name}`, { headers: { Authorization: `Bearer ${token}` } });\n  }\n};\n',
  },
  {
    // A function declaration's parameters in the URL, and two of the sample's definitions as values.
    sample: {
      task: 'List the releases of the repository, a page of `perPage`.',
      config: { method: 'get', url: 'https://api.github.com/repos/o/r/releases' },
      starter_code: "const axios = require('axios');\n\nasync function releases(owner, repo) {\n  // {task}\n  const res = await axios.",
      template_url: 'https://api.github.com/repos/${owner}/${repo}/releases',
      definitions: { perPage: 5, accessToken: 'ghp_x' },
    },
    completion: 'get(`https://api.github.com/repos/${owner}/${repo}/releases`, { params: { per_page: perPage }, headers: { Authorization: `Bearer ${accessToken}` } });\n',
  },
];

let spec: ApiSpec;
beforeAll(async () => {
  const file = path.join(REPO_ROOT, 'test', 'fixtures', 'realworld', 'specs', 'github_v3.yaml');
  const loaded = await loadSpec(fs.readFileSync(file, 'utf8'), 'github_v3.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  spec = loaded.value;
});

describe('the constraint of a real-world sample starts at its call, with every enclosing scope and its definitions in scope', () => {
  it.each(SAMPLES.map((s, i) => [i, s] as const))('sample %i: the character matcher accepts the ground truth', (_i, { sample, completion }) => {
    const setup = setupFor(sample, 'full');
    const { matcher, fed } = ConstraintMatcher.forSetup(spec, setup);
    expect(fed).toEqual({ ok: true });
    expect(matcher.feed(completion)).toEqual({ ok: true });
    expect(matcher.isComplete()).toBe(true);
  });

  it('`wapii constraints check` accepts the program whose call reads an arrow parameter and a block-scoped `let`, starting at the task\'s call', async () => {
    const { sample, completion } = SAMPLES[0]!;
    const program = setupFor(sample, 'full').starter + completion;
    const file = path.join(tempDir(), 'program.js');
    fs.writeFileSync(file, program);
    const out = await cli('constraints', 'check', '--spec', path.join(REPO_ROOT, 'test', 'fixtures', 'realworld', 'specs', 'github_v3.yaml'), file);
    expect(out.stdout + out.stderr).toContain('program.js: accepted');
    expect(out.code).toBe(0);
  });

  describe.runIf(hasVocabBundle).each(['qwen2', 'llama-spm'] as const)('%s: the masks of a constrained run', (name) => {
    let vocabulary: Vocabulary;
    beforeAll(() => {
      vocabulary = vocabularyFromGguf(vocabFile(name));
    });

    /** The longest token the mask allows that spells the next part of `text`, step by step: every step must find one. */
    function walkThroughMasks(constraint: DecodingConstraint, text: string): string {
      let written = '';
      while (written.length < text.length) {
        const mask = constraint.mask();
        const rest = text.slice(written.length);
        let best = -1;
        let bestLength = 0;
        vocabulary.text.forEach((t, id) => {
          if (t && t.length > bestLength && rest.startsWith(t) && hasBit(mask, id)) {
            best = id;
            bestLength = t.length;
          }
        });
        if (best === -1) return written;
        expect(constraint.advance(best)).toBe(true);
        written += vocabulary.text[best]!;
      }
      return written;
    }

    it.each(SAMPLES.map((s, i) => [i, s] as const))('sample %i: every token of the ground truth is allowed where it comes', (_i, { sample, completion }) => {
      const constraint = constrainerFor(new Map([['github_v3', spec]])).tokens(vocabulary).atCall('github_v3', setupFor(sample, 'full'));
      expect(walkThroughMasks(constraint, completion)).toBe(completion);
      expect(constraint.state.isComplete()).toBe(true);
    });
  });
});

describe("the runner's constrainer, as generation takes it (constrainBy)", () => {
  const setup = () => setupFor(SAMPLES[1]!.sample, 'full');

  it('refuses an API it has no spec for, in one line', () => {
    const constrainer = constrainerFor(new Map([['github_v3', spec]]));
    expect(() => constrainer.grammar('slack', setup())).toThrow('no spec to constrain slack by');
    expect(() => constrainer.closing('slack', setup(), '')).toThrow('no spec to constrain slack by');
    expect(() => constrainer.cutWhereItParses('slack', setup(), '')).toThrow('no spec to constrain slack by');
  });

  it("gives the API's GBNF for the names in scope at the call, made once per API and names", () => {
    const constrainer = constrainerFor(new Map([['github_v3', spec]]));
    const grammar = constrainer.grammar('github_v3', setup());
    expect(grammar).toBe(exportGbnf(spec, namesInScope(setup())));
    expect(constrainer.grammar('github_v3', setup())).toBe(grammar);
  });

  it('closes an invocation a text left open, and leaves a complete one (or one outside the language) alone', () => {
    const constrainer = constrainerFor(new Map([['github_v3', spec]]));
    const { completion } = SAMPLES[1]!;
    const cut = completion.slice(0, completion.indexOf(' }, headers'));
    const closing = constrainer.closing('github_v3', setup(), cut);
    expect(closing).toMatch(/^\S/);
    const { matcher } = ConstraintMatcher.forSetup(spec, setup());
    expect(matcher.feed(cut + closing!)).toEqual({ ok: true });
    expect(matcher.isComplete()).toBe(true);
    expect(constrainer.closing('github_v3', setup(), completion)).toBeUndefined();
    expect(constrainer.closing('github_v3', setup(), "fetch('https://elsewhere.example/x'")).toBeUndefined();
  });
});

/**
 * A multi-step program under constraint (issue 37 item 4): every call it writes is held to the
 * spec, not only the first; between calls the code is free, and the names it declares there join
 * the language at the next statement's end, as the local decoder retargets (generate.ts).
 */
describe.runIf(hasVocabBundle)('constrained multi-step programs: every call, with the names declared between calls', () => {
  let slack: ApiSpec;
  let vocabulary: Vocabulary;
  beforeAll(async () => {
    const loaded = await loadSpec(fs.readFileSync(path.join(REPO_ROOT, '..', 'shared', 'wapiibench', 'specs', 'slack.yaml'), 'utf8'), 'slack.yaml');
    if (!loaded.ok) throw new Error(loaded.error.message);
    slack = loaded.value;
    vocabulary = vocabularyFromGguf(vocabFile('qwen2'));
  });
  const sample: SetupSample & { steps: number } = { task: 'Post to the channel named deploys.', config: { method: 'post', url: 'https://slack.com/api/chat.postMessage' }, steps: 2 };
  const LOOKUP = "get('https://slack.com/api/conversations.list', { params: { types: 'public_channel' } });\n";
  const BIND = '  const channel = response.data.channels.find((c) => c.name === \'deploys\').id;\n';
  const post = (url: string, channel: string): string => `  await axios.post('${url}', { channel: ${channel}, text: 'Deploy finished' }, { headers: { Authorization: 'Bearer <token>' } });\n`;

  /** Feeds `text` a token at a time (the longest the mask allows), retargeting at each statement's end between calls; how much was accepted. */
  function feed(text: string): string {
    const setup = setupFor(sample, 'full');
    const tokens = constrainerFor(new Map([['slack', slack]])).tokens(vocabulary);
    let constraint = tokens.atCall('slack', setup);
    const between = tokens.betweenCalls('slack', setup, constraint);
    let written = '';
    while (written.length < text.length) {
      const mask = constraint.mask();
      const rest = text.slice(written.length);
      let best = -1;
      vocabulary.text.forEach((t, id) => {
        if (t && rest.startsWith(t) && hasBit(mask, id) && (best === -1 || t.length > vocabulary.text[best]!.length)) best = id;
      });
      if (best === -1) return written;
      constraint.advance(best);
      written += vocabulary.text[best]!;
      if (constraint.state.isComplete() && /[;\n]/.test(vocabulary.text[best]!)) constraint = between(written);
    }
    return written;
  }

  it('accepts a planned program: the lookup, a name bound from its response, the second call reading it', () => {
    const program = LOOKUP + BIND + post('https://slack.com/api/chat.postMessage', 'channel');
    expect(feed(program)).toBe(program);
  });

  it('holds the second call to the spec: an undefined path, or a name never declared, is refused there', () => {
    const badPath = LOOKUP + BIND + post('https://slack.com/api/chat.postMessages', 'channel');
    expect(feed(badPath).length).toBeLessThan(badPath.indexOf('chat.postMessages') + 'chat.postMessages'.length);
    expect(feed(badPath).length).toBeGreaterThan(LOOKUP.length + BIND.length);
    const undeclared = LOOKUP + post('https://slack.com/api/chat.postMessage', 'channel');
    expect(feed(undeclared).length).toBeLessThan(undeclared.indexOf('channel:') + 'channel: channel'.length);
  });
});
