import { describe, expect, it } from 'vitest';
import type { Sample } from '../api/schemas.js';
import { StartRunInputSchema } from '../api/evaluation.js';
import { assertRunnable, CHARS_PER_TOKEN, contextFit, estimateLine, longestPrompt, measuredRate, paceKey, randomSample, selectSubset, type RunPace } from './runPlan.js';

/** 100 items: 70 of API a, 20 of b, 10 of c, interleaved as a real dataset's per-API blocks are not. */
const items = Array.from({ length: 100 }, (_, i) => ({ id: `s${i}`, api: i % 10 < 7 ? 'a' : i % 10 < 9 ? 'b' : 'c' }));
const countBy = (list: readonly { api: string }[]): Record<string, number> => list.reduce<Record<string, number>>((acc, x) => ({ ...acc, [x.api]: (acc[x.api] ?? 0) + 1 }), {});

describe('randomSample', () => {
  it('is deterministic per seed, differs across seeds, and keeps dataset order without repeats', () => {
    const one = randomSample(items, { size: 10, seed: 7, stratify: 'none' });
    expect(randomSample(items, { size: 10, seed: 7, stratify: 'none' })).toEqual(one);
    expect(one).toHaveLength(10);
    expect(new Set(one.map((x) => x.id)).size).toBe(10);
    const idx = one.map((x) => Number(x.id.slice(1)));
    expect(idx).toEqual([...idx].sort((a, b) => a - b));
    expect(randomSample(items, { size: 10, seed: 8, stratify: 'none' }).map((x) => x.id)).not.toEqual(one.map((x) => x.id));
    // Not simply the first ten.
    expect(one.map((x) => x.id)).not.toEqual(items.slice(0, 10).map((x) => x.id));
  });

  it('stratified keeps each API share by largest remainder', () => {
    // 10 of 100 → 7, 2, 1 exactly.
    expect(countBy(randomSample(items, { size: 10, seed: 3, stratify: 'api' }))).toEqual({ a: 7, b: 2, c: 1 });
    // 5 of 100 → 3.5, 1.0, 0.5: floors 3, 1, 0 leave one; remainders a .5 and c .5 tie, the first-seen API (a) takes it.
    expect(countBy(randomSample(items, { size: 5, seed: 3, stratify: 'api' }))).toEqual({ a: 4, b: 1 });
    // 13 of 100 → 9.1, 2.6, 1.3: floors 9, 2, 1 leave one, b has the largest remainder.
    expect(countBy(randomSample(items, { size: 13, seed: 11, stratify: 'api' }))).toEqual({ a: 9, b: 3, c: 1 });
    for (const seed of [1, 2, 3, 4, 5]) expect(countBy(randomSample(items, { size: 20, seed, stratify: 'api' }))).toEqual({ a: 14, b: 4, c: 2 });
    expect(randomSample(items, { size: 13, seed: 11, stratify: 'api' })).toEqual(randomSample(items, { size: 13, seed: 11, stratify: 'api' }));
  });

  it('takes everything when the size reaches the count', () => {
    expect(randomSample(items, { size: 100, seed: 1, stratify: 'api' })).toEqual(items);
    expect(randomSample(items, { size: 500, seed: 1, stratify: 'none' })).toEqual(items);
  });
});

describe('selectSubset with a sample', () => {
  const samples = items.map((x, i) => ({ ...x, position: i, reviewState: i % 2 === 0 ? 'accepted' : 'unreviewed' })) as unknown as Sample[];
  it('samples after the filters and cuts to the limit after the sample', () => {
    const picked = selectSubset(samples, { apis: ['a', 'b'], reviewStates: ['accepted'], sample: { size: 9, seed: 5, stratify: 'api' } });
    expect(picked).toHaveLength(9);
    expect(picked.every((s) => s.api !== 'c' && s.reviewState === 'accepted')).toBe(true);
    // Of the 45 accepted a/b samples, 35 are a and 10 b: 9 × 35/45 = 7, 9 × 10/45 = 2.
    expect(countBy(picked)).toEqual({ a: 7, b: 2 });
    expect(selectSubset(samples, { apis: ['a', 'b'], reviewStates: ['accepted'], sample: { size: 9, seed: 5, stratify: 'api' }, limit: 3 })).toEqual(picked.slice(0, 3));
  });
});

describe('the measured rate behind the New run estimate', () => {
  const local = { modelId: 1, name: 'qwen', path: '/models/qwen.gguf' };
  const server = { name: 'default', remote: 'http://127.0.0.1:8080/v1' };
  const pace = (model: RunPace['model'], setting: string, outputs: number, tokens: number, wallMs: number): RunPace => ({ model, settings: { setting }, outputs, tokens, wallMs });
  const paces = [
    pace(local, 'unconstrained', 100, 8000, 200_000), // 40 tok/s
    pace(local, 'unconstrained', 20, 2000, 40_000), // 50 tok/s
    pace(local, 'constrained', 50, 1000, 100_000), // 10 tok/s: a setting of its own
    pace(server, 'unconstrained', 10, 500, 10_000),
  ];

  it('is the tokens over the time of earlier outputs of the same model and setting', () => {
    // (8000 + 2000) tokens over 240 s: 41.7 tok/s over 120 outputs.
    expect(measuredRate(paces, local, 'unconstrained')).toEqual({ tokensPerSecond: expect.closeTo(10_000 / 240, 9), outputs: 120, streams: 1 });
    expect(measuredRate(paces, local, 'constrained')).toEqual({ tokensPerSecond: 10, outputs: 50, streams: 1 });
    // No repair run yet: every setting of the model, said so.
    expect(measuredRate(paces, local, 'repair')).toEqual({ tokensPerSecond: expect.closeTo(11_000 / 340, 9), outputs: 170, streams: 1, otherSetting: true });
    expect(measuredRate(paces, { ...local, path: '/models/other.gguf' }, 'unconstrained')).toBeUndefined();
    expect(measuredRate(paces, server, 'unconstrained', 4)).toEqual({ tokensPerSecond: 50, outputs: 10, streams: 4 });
  });

  it('never measures a batch run (its outputs wait in a queue) and tells providers and endpoints apart', () => {
    const hosted = { name: 'openai:gpt-4o', provider: { name: 'openai', model: 'gpt-4o' } };
    expect(paceKey({ ...hosted, provider: { ...hosted.provider, batch: true } })).toBeUndefined();
    expect(paceKey(hosted)).not.toEqual(paceKey({ ...hosted, provider: { ...hosted.provider, baseUrl: 'http://127.0.0.1:9' } }));
    expect(measuredRate([pace({ ...hosted, provider: { ...hosted.provider, batch: true } }, 'unconstrained', 5, 500, 1000)], hosted, 'unconstrained')).toBeUndefined();
  });

  it('says where its rate comes from: measured over so many outputs, or a guess', () => {
    expect(estimateLine(120, 250, measuredRate(paces, local, 'unconstrained'))).toBe('120 outputs, up to 30,000 generated tokens: at most about 12 min at 42 tok/s measured over 120 outputs of earlier runs');
    expect(estimateLine(10, 100, { tokensPerSecond: 10, outputs: 0, streams: 1 })).toBe('10 outputs, up to 1,000 generated tokens: at most about 2 min at a typical 10 tok/s (a guess: no earlier run of this model measured one)');
    expect(estimateLine(40, 100, measuredRate(paces, server, 'unconstrained', 4))).toBe('40 outputs, up to 4,000 generated tokens: at most about 20 s at 50 tok/s per request, 4 at once measured over 10 outputs of earlier runs');
    expect(estimateLine(6, 250, measuredRate(paces, local, 'repair'))).toMatch(/measured over 170 outputs of earlier runs in other settings$/);
    expect(estimateLine(6, 250, 'batch')).toBe('6 outputs, up to 1,500 generated tokens: OpenAI answers a batch within 24 h');
  });
});

describe('the context New run checks (issue 38 item 3)', () => {
  const long = { sampleId: 's7', position: 7, tokens: 918 };
  it('warns when the longest prompt and max tokens exceed the context given, naming the page’s fields, and suggests what fits', () => {
    const fit = contextFit(long, 250, 1024, 32768);
    expect(fit).toMatchObject({ needed: 1168, suggested: 1280, trainedContext: 32768 });
    expect(fit.warning).toBe('the longest prompt (sample #7, about 918 tokens) and 250 max tokens need a context of about 1,168; Context is 1,024: raise Context to 1,280 (or leave it blank) or lower Max tokens, or the longest prompts’ outputs fail'.replace('’', "'"));
    expect(fit.warning).not.toMatch(/--/);
  });
  it('a blank field (no context given) takes the suggestion, which fits, at least 1024', () => {
    expect(contextFit(long, 250, undefined, 32768)).toEqual({ longestPromptTokens: 918, sampleId: 's7', needed: 1168, trainedContext: 32768, suggested: 1280 });
    expect(contextFit({ ...long, tokens: 100 }, 250, undefined, null).suggested).toBe(1024);
  });
  it('caps the suggestion at the trained context, and says when even that cannot fit', () => {
    const fit = contextFit(long, 4000, undefined, 4096);
    expect(fit.suggested).toBe(4096);
    expect(fit.warning).toMatch(/more than the model was trained on \(4,096\): lower Max tokens or leave that sample out/);
  });
  it('counts the longest prompt of the subset', () => {
    const samples = [0, 1].map((i) => ({ id: `s${i}`, position: i, api: 'harbor', task: i === 1 ? 'x'.repeat(3000) : 'short', config: { url: 'https://api.harbor.example/v2/me', method: 'get' } })) as unknown as Sample[];
    const longest = longestPrompt(samples, { prompt: 'completion', setup: 'full' });
    expect(longest?.sampleId).toBe('s1');
    expect(longest!.tokens).toBeGreaterThanOrEqual(3000 / CHARS_PER_TOKEN);
  });
});

describe('cells a model cannot run (issue 38 item 2)', () => {
  const input = (setting: string, name: string) => StartRunInputSchema.parse({ datasetId: 1, model: { provider: { name, model: 'm', ...(name === 'openai-compatible' ? { baseUrl: 'http://127.0.0.1:8080/v1' } : {}) } }, setting });
  it('a hosted model constrained is refused with why and what would do', () => {
    expect(() => assertRunnable(input('constrained', 'openai'))).toThrow('openai exposes no logits: constrained needs a local model or a grammar server');
    expect(() => assertRunnable(input('unconstrained', 'openai'))).not.toThrow();
    expect(() => assertRunnable(input('constrained', 'openai-compatible'))).not.toThrow();
  });
});
