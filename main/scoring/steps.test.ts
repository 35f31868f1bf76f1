import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { WAPIIBENCH_SPECS } from '../../test/support/paths.js';
import type { CapturedRequest, JsonValue } from '../api/schemas.js';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { scoreSteps, type Step } from './steps.js';

/**
 * Multi-step scoring (scoring.md §7) on §7's own example over Slack's real description: each
 * failure kind of issue 37 as the requests a program would send, with its verdicts and counts.
 */
const AUTH = { Authorization: 'Bearer <token>' };
const STEPS: readonly Step[] = [
  { config: { url: 'https://slack.com/api/conversations.list', method: 'get', headers: AUTH, params: { types: 'public_channel' } }, response: { status: 200, data: { ok: true, channels: [{ id: 'C0DEPLOY1', name: 'deploys' }] } } },
  {
    config: { url: 'https://slack.com/api/chat.postMessage', method: 'post', headers: AUTH, data: { channel: 'C0DEPLOY1', text: 'Deploy finished' } },
    carried: { 'data.channel': '0:/data/channels/0/id' },
    response: { status: 200, data: { ok: true, ts: '1700000000.000100' } },
  },
];
const list = (params: Record<string, JsonValue> = { types: 'public_channel' }): CapturedRequest => ({ method: 'get', url: 'https://slack.com/api/conversations.list', headers: AUTH, params });
const post = (channel: string, text = 'Deploy finished'): CapturedRequest => ({ method: 'post', url: 'https://slack.com/api/chat.postMessage', headers: AUTH, params: {}, data: { channel, text } });

let spec: ApiSpec;
beforeAll(async () => {
  const loaded = await loadSpec(fs.readFileSync(path.join(WAPIIBENCH_SPECS, 'slack.yaml'), 'utf8'), 'slack.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  spec = loaded.value;
});

describe('scoring a multi-step sample (scoring.md §7)', () => {
  it('the planned program: both steps correct, the carried channel sent as the response held it', () => {
    const v = scoreSteps(spec, STEPS, [list(), post('C0DEPLOY1')]);
    expect(v).toMatchObject({ sample_verdict: 'correct', steps_total: 2, steps_correct: 2, steps_missing: 0, extra_requests: 0, first_failed_step: null, carried_correct: 1, carried_total: 1 });
  });

  it('a skipped lookup with a guessed literal: the lookup is missing, the post is wrong', () => {
    const v = scoreSteps(spec, STEPS, [post('deploys')]);
    expect(v).toMatchObject({ sample_verdict: 'wrong', steps_correct: 0, steps_missing: 1, first_failed_step: 0, carried_correct: 0, carried_total: 1 });
    expect(v.steps[1]!.verdict.arguments.data?.['channel']).toMatchObject({ verdict: 'incorrect_value', actual: 'deploys' });
  });

  it('a hard-coded value that differs from the response: both requests made, the carried one wrong', () => {
    const v = scoreSteps(spec, STEPS, [list(), post('C0GENERAL')]);
    expect(v).toMatchObject({ sample_verdict: 'wrong', steps_correct: 1, steps_missing: 0, first_failed_step: 1, carried_correct: 0 });
  });

  it('the dependent call made first: the post comes before the lookup, so the post step finds nothing after it', () => {
    const v = scoreSteps(spec, STEPS, [post('C0DEPLOY1'), list()]);
    expect(v).toMatchObject({ sample_verdict: 'wrong', steps_missing: 1, extra_requests: 1, first_failed_step: 1 });
    expect(v.steps.map((s) => s.request)).toEqual([1, null]);
    expect(v.extra).toEqual([0]);
  });

  it('an extra mutating call makes an otherwise correct sample wrong; its first failed step stays null', () => {
    const v = scoreSteps(spec, STEPS, [list(), post('C0DEPLOY1'), post('C0DEPLOY1', 'again')]);
    expect(v).toMatchObject({ sample_verdict: 'wrong', steps_correct: 2, extra_requests: 1, first_failed_step: null });
  });

  it('an illegal URL in one step: the request takes no step, and the sample is illegal', () => {
    const v = scoreSteps(spec, STEPS, [{ ...list(), url: 'https://slack.com/api/channels.lookup' }, post('C0DEPLOY1')]);
    expect(v).toMatchObject({ sample_verdict: 'illegal', steps_missing: 1, extra_requests: 1, first_failed_step: 0 });
  });

  it('one wrong argument: that step is wrong, the other correct', () => {
    const v = scoreSteps(spec, STEPS, [list({ types: 'private_channel' }), post('C0DEPLOY1')]);
    expect(v).toMatchObject({ sample_verdict: 'wrong', steps_correct: 1, first_failed_step: 0, carried_correct: 1 });
    expect(v.steps[0]!.verdict.arguments.params?.['types']).toMatchObject({ verdict: 'incorrect_value' });
  });

  it('a repeated read is still correct', () => {
    const v = scoreSteps(spec, STEPS, [list(), list(), post('C0DEPLOY1')]);
    expect(v).toMatchObject({ sample_verdict: 'correct', steps_correct: 2, extra_requests: 1, first_failed_step: null });
  });

  it('no request: nonexecutable, every step missing; a program that failed before sending keeps its error', () => {
    expect(scoreSteps(spec, STEPS, [])).toMatchObject({ sample_verdict: 'nonexecutable', error_verdict: 'no_request', steps_missing: 2, first_failed_step: 0 });
    expect(scoreSteps(spec, STEPS, [], 'runtime_error')).toMatchObject({ sample_verdict: 'nonexecutable', error_verdict: 'runtime_error' });
    // Once something was captured, an error afterwards does not make the sample nonexecutable.
    expect(scoreSteps(spec, STEPS, [list()], 'runtime_error')).toMatchObject({ sample_verdict: 'wrong', error_verdict: null, steps_missing: 1 });
  });
});
