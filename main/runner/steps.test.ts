import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAPIIBENCH_SPECS } from '../../test/support/paths.js';
import { createExecutor, type Executor } from '../execution/index.js';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import type { Step } from '../scoring/index.js';
import { evaluateSteps } from './evaluate.js';

/**
 * Multi-step programs run whole in the real sandbox (scoring.md §7): each request answered by its
 * step's stubbed response, a request that matches no step by 404, every request captured in order
 * and scored against the steps. The programs are written by hand, one per failure kind of issue 37.
 */
const AUTH = { Authorization: 'Bearer <token>' };
const STEPS: readonly Step[] = [
  { config: { url: 'https://slack.com/api/conversations.list', method: 'get', headers: AUTH, params: { types: 'public_channel' } }, response: { status: 200, data: { ok: true, channels: [{ id: 'C0GENERAL', name: 'general' }, { id: 'C0DEPLOY1', name: 'deploys' }] } } },
  {
    config: { url: 'https://slack.com/api/chat.postMessage', method: 'post', headers: AUTH, data: { channel: 'C0DEPLOY1', text: 'Deploy finished' } },
    carried: { 'data.channel': '0:/data/channels/1/id' },
    response: { status: 200, data: { ok: true, ts: '1700000000.000100' } },
  },
];
const HEAD = "const axios = require('axios');\nconst headers = { Authorization: 'Bearer <token>' };\n";
const PROGRAMS = {
  planned: `${HEAD}axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'public_channel' } })
  .then((r) => axios.post('https://slack.com/api/chat.postMessage', { channel: r.data.channels.find((c) => c.name === 'deploys').id, text: 'Deploy finished' }, { headers }));`,
  plannedAwait: `${HEAD}(async () => {
  const r = await axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'public_channel' } });
  const channel = r.data.channels.find((c) => c.name === 'deploys').id;
  await axios.post('https://slack.com/api/chat.postMessage', { channel, text: 'Deploy finished' }, { headers });
})();`,
  plannedFetch: `const auth = { Authorization: 'Bearer <token>' };
fetch('https://slack.com/api/conversations.list?types=public_channel', { headers: auth })
  .then((r) => r.json())
  .then((body) => fetch('https://slack.com/api/chat.postMessage', { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ channel: body.channels.find((c) => c.name === 'deploys').id, text: 'Deploy finished' }) }));`,
  skippedLookup: `${HEAD}axios.post('https://slack.com/api/chat.postMessage', { channel: 'deploys', text: 'Deploy finished' }, { headers });`,
  hardCoded: `${HEAD}axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'public_channel' } })
  .then(() => axios.post('https://slack.com/api/chat.postMessage', { channel: 'C0DEPLOY9', text: 'Deploy finished' }, { headers }));`,
  dependentFirst: `${HEAD}axios.post('https://slack.com/api/chat.postMessage', { channel: 'C0DEPLOY1', text: 'Deploy finished' }, { headers })
  .then(() => axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'public_channel' } }));`,
  extraMutation: `${HEAD}axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'public_channel' } })
  .then((r) => r.data.channels.map((c) => axios.post('https://slack.com/api/chat.postMessage', { channel: c.id, text: 'Deploy finished' }, { headers })));`,
  illegalUrl: `${HEAD}axios.get('https://slack.com/api/channels.find', { headers, params: { name: 'deploys' } })
  .catch((e) => ({ data: { channel: { id: 'C0DEPLOY1' } } }))
  .then((r) => axios.post('https://slack.com/api/chat.postMessage', { channel: r.data.channel.id, text: 'Deploy finished' }, { headers }));`,
  wrongArgument: `${HEAD}axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'private_channel' } })
  .then((r) => axios.post('https://slack.com/api/chat.postMessage', { channel: r.data.channels[1].id, text: 'Deploy finished' }, { headers }));`,
  repeatedRead: `${HEAD}(async () => {
  await axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'public_channel' } });
  const r = await axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'public_channel' } });
  await axios.post('https://slack.com/api/chat.postMessage', { channel: r.data.channels[1].id, text: 'Deploy finished' }, { headers });
})();`,
  noRequest: `${HEAD}const channel = 'deploys';\nconsole.log('would post to', channel);`,
  // A repeated read with an argument the spec does not permit: an extra request illegal on its own.
  illegalExtra: `${HEAD}(async () => {
  const r = await axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'public_channel' } });
  await axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'public_channel', colour: 'red' } });
  await axios.post('https://slack.com/api/chat.postMessage', { channel: r.data.channels[1].id, text: 'Deploy finished' }, { headers });
})();`,
};

let spec: ApiSpec;
let executor: Executor;
beforeAll(async () => {
  const loaded = await loadSpec(fs.readFileSync(path.join(WAPIIBENCH_SPECS, 'slack.yaml'), 'utf8'), 'slack.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  spec = loaded.value;
  executor = createExecutor({ timeoutMs: 2000 });
});
afterAll(async () => {
  await executor[Symbol.asyncDispose]();
});

describe('a multi-step program in the sandbox, answered from its steps', () => {
  it.each([
    ['planned (then)', PROGRAMS.planned, { sample_verdict: 'correct', steps_correct: 2, steps_missing: 0, extra_requests: 0, first_failed_step: null, carried_correct: 1 }],
    ['planned (await)', PROGRAMS.plannedAwait, { sample_verdict: 'correct', steps_correct: 2, carried_correct: 1 }],
    ['planned (fetch)', PROGRAMS.plannedFetch, { sample_verdict: 'correct', steps_correct: 2, carried_correct: 1 }],
    ['a skipped lookup with a guessed literal', PROGRAMS.skippedLookup, { sample_verdict: 'wrong', steps_correct: 0, steps_missing: 1, first_failed_step: 0, carried_correct: 0 }],
    ['a hard-coded value that differs from the response', PROGRAMS.hardCoded, { sample_verdict: 'wrong', steps_correct: 1, first_failed_step: 1, carried_correct: 0 }],
    ['the dependent call made first', PROGRAMS.dependentFirst, { sample_verdict: 'wrong', steps_missing: 1, extra_requests: 1, first_failed_step: 1 }],
    ['an extra mutating call', PROGRAMS.extraMutation, { sample_verdict: 'wrong', steps_correct: 1, extra_requests: 1 }],
    ['an illegal URL in one step', PROGRAMS.illegalUrl, { sample_verdict: 'illegal', steps_missing: 1, extra_requests: 1, first_failed_step: 0 }],
    ['one wrong argument', PROGRAMS.wrongArgument, { sample_verdict: 'wrong', steps_correct: 1, first_failed_step: 0, carried_correct: 1 }],
    ['a repeated read', PROGRAMS.repeatedRead, { sample_verdict: 'correct', steps_correct: 2, extra_requests: 1, first_failed_step: null }],
    ['no request', PROGRAMS.noRequest, { sample_verdict: 'nonexecutable', error_verdict: 'no_request', steps_missing: 2 }],
    ['an extra read with an argument the spec does not permit', PROGRAMS.illegalExtra, { sample_verdict: 'illegal', steps_correct: 2, extra_requests: 1, first_failed_step: null }],
  ] as const)('%s', async (_name, program, expected) => {
    const evaluation = await evaluateSteps(program, STEPS, spec, executor);
    expect(evaluation.verdict, JSON.stringify(evaluation.execution)).toMatchObject(expected);
  });

  it('answers a request that matches no step with 404: Axios rejects it as it would', async () => {
    const program = `${HEAD}axios.get('https://slack.com/api/users.list', { headers }).then(() => console.log('ok'), (e) => console.log('status', e.response.status, JSON.stringify(e.response.data)));`;
    const evaluation = await evaluateSteps(program, STEPS, spec, executor);
    expect(evaluation.execution.console).toEqual(['log: status 404 {"error":"not_found"}']);
  });
});
