import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAPIIBENCH_SPECS } from '../../test/support/paths.js';
import { HTTP_CLIENTS } from '../api/clients.js';
import { createExecutor, type Executor } from '../execution/index.js';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { QUOTES, stepsOracleProgram, type Quote } from '../prompt/index.js';
import type { Step } from '../scoring/index.js';
import { evaluateSteps } from './evaluate.js';

/**
 * The multi-step oracle (scoring.md §7): each step awaited in order, each carried value read from
 * the earlier response it points into. Run in the sandbox against its own stubs, it must score
 * correct with every carried value right, in every client, quote style and call style.
 */
const JSON_AUTH = { Authorization: 'Bearer <token>', 'Content-Type': 'application/json' };
const SAMPLES: readonly { api: string; task: string; steps: readonly Step[] }[] = [
  {
    api: 'slack',
    task: "Post 'Deploy finished' to the public channel named deploys (look its ID up first).",
    steps: [
      { config: { url: 'https://slack.com/api/conversations.list', method: 'get', headers: { Authorization: 'Bearer <token>' }, params: { types: 'public_channel' } }, response: { status: 200, data: { ok: true, channels: [{ id: 'C0GENERAL', name: 'general' }, { id: 'C0DEPLOY1', name: 'deploys' }] } } },
      { config: { url: 'https://slack.com/api/chat.postMessage', method: 'post', headers: JSON_AUTH, data: { channel: 'C0DEPLOY1', text: 'Deploy finished' } }, carried: { 'data.channel': '0:/data/channels/1/id' }, response: { status: 200, data: { ok: true, ts: '1700000000.000100' } } },
    ],
  },
  {
    api: 'asana',
    task: 'List the projects of my first workspace.',
    steps: [
      { config: { url: 'https://app.asana.com/api/1.0/workspaces', method: 'get', headers: { Authorization: 'Bearer <token>' } }, response: { status: 200, data: { data: [{ gid: '1200001', name: 'Acme', resource_type: 'workspace' }] } } },
      { config: { url: 'https://app.asana.com/api/1.0/projects', method: 'get', headers: { Authorization: 'Bearer <token>' }, params: { workspace: '1200001' } }, carried: { 'params.workspace': '0:/data/data/0/gid' }, response: { status: 200, data: { data: [] } } },
    ],
  },
  {
    api: 'asana',
    task: 'Mark the first task of project 1200042 as completed.',
    steps: [
      { config: { url: 'https://app.asana.com/api/1.0/tasks', method: 'get', headers: { Authorization: 'Bearer <token>' }, params: { project: '1200042' } }, response: { status: 200, data: { data: [{ gid: '1209000', name: 'Ship it', resource_type: 'task' }] } } },
      { config: { url: 'https://app.asana.com/api/1.0/tasks/1209000', method: 'put', headers: JSON_AUTH, data: { data: { completed: true } } }, carried: { 'path_params.task_gid': '0:/data/data/0/gid' }, response: { status: 200, data: { data: { gid: '1209000', completed: true } } } },
    ],
  },
  // The shapes the seed dataset first met as engine defects: two carried values in one URL, an
  // integer carried into a path, a value before a `:verb` suffix, one inside a request's array.
  {
    api: 'google_calendar_v3',
    task: 'Delete the first event of my first calendar.',
    steps: [
      { config: { url: 'https://www.googleapis.com/calendar/v3/users/me/calendarList', method: 'get', headers: { Authorization: 'Bearer <token>' } }, response: { status: 200, data: { items: [{ id: 'team@group.calendar.google.com' }] } } },
      { config: { url: 'https://www.googleapis.com/calendar/v3/calendars/team%40group.calendar.google.com/events', method: 'get', headers: { Authorization: 'Bearer <token>' } }, carried: { 'path_params.calendarId': '0:/data/items/0/id' }, response: { status: 200, data: { items: [{ id: 'evt01' }] } } },
      {
        config: { url: 'https://www.googleapis.com/calendar/v3/calendars/team%40group.calendar.google.com/events/evt01', method: 'delete', headers: { Authorization: 'Bearer <token>' } },
        carried: { 'path_params.calendarId': '0:/data/items/0/id', 'path_params.eventId': '1:/data/items/0/id' },
        response: { status: 204 },
      },
    ],
  },
  {
    api: 'google_sheet_v4',
    task: 'Copy the first sheet of spreadsheet abc123 into spreadsheet def456, then delete the original sheet.',
    steps: [
      { config: { url: 'https://sheets.googleapis.com/v4/spreadsheets/abc123', method: 'get', headers: { Authorization: 'Bearer <token>' } }, response: { status: 200, data: { spreadsheetId: 'abc123', sheets: [{ properties: { sheetId: 77, title: 'Q1' } }] } } },
      {
        config: { url: 'https://sheets.googleapis.com/v4/spreadsheets/abc123/sheets/77:copyTo', method: 'post', headers: JSON_AUTH, data: { destinationSpreadsheetId: 'def456' } },
        carried: { 'path_params.sheetId': '0:/data/sheets/0/properties/sheetId' },
        response: { status: 200, data: { sheetId: 91, title: 'Copy of Q1' } },
      },
      {
        config: { url: 'https://sheets.googleapis.com/v4/spreadsheets/abc123:batchUpdate', method: 'post', headers: JSON_AUTH, data: { requests: [{ deleteSheet: { sheetId: 77 } }] } },
        carried: { 'data.requests.0.deleteSheet.sheetId': '0:/data/sheets/0/properties/sheetId' },
        response: { status: 200, data: { spreadsheetId: 'abc123', replies: [{}] } },
      },
    ],
  },
];

const specs = new Map<string, ApiSpec>();
let executor: Executor;
beforeAll(async () => {
  for (const api of ['slack', 'asana', 'google_calendar_v3', 'google_sheet_v4']) {
    const loaded = await loadSpec(fs.readFileSync(path.join(WAPIIBENCH_SPECS, `${api}.yaml`), 'utf8'), `${api}.yaml`);
    if (!loaded.ok) throw new Error(loaded.error.message);
    specs.set(api, loaded.value);
  }
  executor = createExecutor({ timeoutMs: 2000 });
});
afterAll(async () => {
  await executor[Symbol.asyncDispose]();
});

describe('the multi-step oracle scores correct in every style', () => {
  const cases = SAMPLES.flatMap((sample, s) => HTTP_CLIENTS.flatMap((client) => (Object.keys(QUOTES) as Quote[]).flatMap((quote) => (['then', 'await'] as const).map((style) => ({ s, sample, client, quote, style })))));
  it.each(cases)('sample $s, $client, $quote quotes, $style', async ({ sample, client, quote, style }) => {
    const program = stepsOracleProgram(sample, client, quote, style);
    const evaluation = await evaluateSteps(program, sample.steps, specs.get(sample.api)!, executor);
    expect(evaluation.verdict, `${program}\n${JSON.stringify(evaluation.execution)}`).toMatchObject({ sample_verdict: 'correct', steps_correct: sample.steps.length, extra_requests: 0 });
    expect(evaluation.verdict.carried_correct).toBe(evaluation.verdict.carried_total);
    // The carried values are read from the responses, never copied from the stubs.
    for (const step of sample.steps) for (const pointer of Object.values(step.carried ?? {})) expect(program).toContain(pointer.startsWith('0:/data/') ? (client === 'axios' ? 'r0.data' : 'b0') : 'r0');
  });
});
