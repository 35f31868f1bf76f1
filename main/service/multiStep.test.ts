import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, WAPIIBENCH_SPECS } from '../../test/support/paths.js';
import type { WorkbenchApi } from '../api/contract.js';
import type { JsonValue, SampleFields } from '../api/schemas.js';
import { checkSample } from '../dataset/index.js';
import { loadSpec } from '../openapi/index.js';
import { localClient, openWorkbench, type Workbench } from './index.js';

/**
 * Multi-step samples in a dataset (scoring.md §7; issue 37 item 1, its format and checks): a file
 * may mix them with single-request samples; they import, check, list and export JSON-equal;
 * their steps are edited as their fields; runs refuse what they cannot take, in one line.
 */
const AUTH = { Authorization: 'Bearer <token>' };
const JSON_AUTH = { ...AUTH, 'Content-Type': 'application/json' };
/** chat.postMessage's answer as Slack's description requires it. */
const POSTED = { ok: true, channel: 'C0DEPLOY1', ts: '1700000000.000100', message: { type: 'message', text: 'Deploy finished', ts: '1700000000.000100', user: 'U0DEPLOYBOT', team: 'T0TEAM0001' } };
const SLACK_STEPS = {
  api: 'slack',
  task: "Post 'Deploy finished' to the public channel named deploys (look its ID up first).",
  steps: [
    { config: { url: 'https://slack.com/api/conversations.list', method: 'get', headers: AUTH, params: { types: 'public_channel' } }, response: { status: 200, data: { ok: true, channels: [{ id: 'C0DEPLOY1', name: 'deploys' }] } } },
    { config: { url: 'https://slack.com/api/chat.postMessage', method: 'post', headers: JSON_AUTH, data: { channel: 'C0DEPLOY1', text: 'Deploy finished' } }, carried: { 'data.channel': '0:/data/channels/0/id' }, response: { status: 200, data: POSTED } },
  ],
};
const ASANA_STEPS = {
  api: 'asana',
  task: 'Mark the first task of project 1200042 as completed.',
  steps: [
    { config: { url: 'https://app.asana.com/api/1.0/tasks', method: 'get', headers: AUTH, params: { project: '1200042' } }, response: { status: 200, data: { data: [{ gid: '1209000', name: 'Ship it' }] } } },
    { config: { url: 'https://app.asana.com/api/1.0/tasks/1209000', method: 'put', headers: JSON_AUTH, data: { data: { completed: true } } }, carried: { 'path_params.task_gid': '0:/data/data/0/gid' }, response: { status: 200, data: { data: { gid: '1209000', completed: true } } } },
  ],
};
const SINGLE = { api: 'slack', task: 'List the public channels.', config: { url: 'https://slack.com/api/conversations.list', method: 'get', headers: AUTH, params: { types: 'public_channel' } } };
const BROKEN = {
  api: 'slack',
  task: 'Post to deploys.',
  steps: [
    SLACK_STEPS.steps[0],
    { ...SLACK_STEPS.steps[1], config: { ...SLACK_STEPS.steps[1]!.config, data: { channel: 'C0GUESSED', text: 'x' } }, carried: { 'data.channel': '0:/data/channels/0/id', 'data.text': '1:/data/ts', 'params.none': '0:/data/nowhere' } },
  ],
};
const FILE = [SINGLE, SLACK_STEPS, ASANA_STEPS, BROKEN];

let workbench: Workbench;
let client: WorkbenchApi;
let datasetId: number;
const spec = (api: string) => ({ filename: `${api}.yaml`, content: fs.readFileSync(path.join(WAPIIBENCH_SPECS, `${api}.yaml`), 'utf8') });
beforeAll(async () => {
  const dir = tempDir('wapii-steps-');
  workbench = openWorkbench({ db: path.join(dir, 'w.db'), author: 'tester', evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu' } });
  client = localClient(workbench.service);
  datasetId = (await client.importDataset({ name: 'steps', dataset: { filename: 'steps.json', content: JSON.stringify(FILE) }, specs: [spec('slack'), spec('asana')] })).id;
});
afterAll(() => workbench.shutdown());

describe('multi-step samples in a dataset', () => {
  it('imports a file mixing both kinds, checks each step and each carried value, and exports it JSON-equal', async () => {
    const samples = await client.listSamples({ datasetId, filter: {} });
    expect(samples.map((s) => [s.task, s.config.url, s.findings.length])).toEqual([
      [SINGLE.task, SINGLE.config.url, 0],
      [SLACK_STEPS.task, 'https://slack.com/api/chat.postMessage', 0],
      [ASANA_STEPS.task, 'https://app.asana.com/api/1.0/tasks/1209000', 0],
      [BROKEN.task, 'https://slack.com/api/chat.postMessage', 3],
    ]);
    expect(samples[3]!.findings.map((f) => [f.rule, f.step, f.message])).toEqual([
      ['carried', 1, 'step 1: carried data.channel ← 0:/data/channels/0/id: the request sends "C0GUESSED" there, the response holds "C0DEPLOY1"'],
      ['carried', 1, 'step 1: carried data.text ← 1:/data/ts: it must point into an earlier step'],
      ['carried', 1, "step 1: carried params.none ← 0:/data/nowhere: step 0's response holds nothing there"],
    ]);
    const flat = await client.exportDataset({ datasetId, format: 'flat' });
    const exported = JSON.parse(Object.values(flat.files)[0]!) as unknown[];
    // Each multi-step sample is written as it came (its steps, no config); the single one with its index and checks.
    expect(exported.slice(1)).toEqual(FILE.slice(1));
    // Import → export is JSON-equal from then on.
    const again = await client.importDataset({ name: 'steps-again', dataset: { filename: 'steps-again.json', content: Object.values(flat.files)[0]! }, specs: [spec('slack'), spec('asana')] });
    const twice = await client.exportDataset({ datasetId: again.id, format: 'flat' });
    expect(JSON.parse(Object.values(twice.files)[0]!)).toEqual(exported);
    const perApi = await client.exportDataset({ datasetId, format: 'per-api' });
    const slack = JSON.parse(perApi.files['slack.json']!) as { samples: Record<string, unknown>[] };
    expect(slack.samples[1]).toEqual({ task: SLACK_STEPS.task, steps: SLACK_STEPS.steps });
  });

  it("checks each stubbed response against the operation's response schema for its status", async () => {
    const loaded = await loadSpec(spec('slack').content, 'slack.yaml');
    if (!loaded.ok) throw new Error(loaded.error.message);
    const steps = [SLACK_STEPS.steps[0], { ...SLACK_STEPS.steps[1], response: { status: 200, data: { ok: true, ts: '1700000000.000100' } } }];
    expect(checkSample(loaded.value, { api: 'slack', config: SLACK_STEPS.steps[1]!.config, source: {}, fields: { steps } as unknown as SampleFields })).toEqual([
      { rule: 'response', step: 1, message: "step 1: the response's data lacks required key `channel` (the POST /chat.postMessage response schema for 200)" },
    ]);
  });

  it('lists and filters them: by how many requests, by any step\'s method, by text in any step', async () => {
    const list = async (filter: Record<string, string>) => (await client.listSamples({ datasetId, filter })).map((s) => s.position);
    expect(await list({ requests: 'several' })).toEqual([1, 2, 3]);
    expect(await list({ requests: 'one' })).toEqual([0]);
    // The Asana task looks its task up with GET before it PUTs: a GET filter finds it by its first step.
    expect(await list({ method: 'put' })).toEqual([2]);
    expect(await list({ method: 'get', api: 'asana' })).toEqual([2]);
    expect(await list({ text: 'conversations.list', requests: 'several' })).toEqual([1, 3]);
    await expect(client.listSamples({ datasetId, filter: { requests: 'many' } as never })).rejects.toThrow(/requests/);
  });

  it('refuses a sample with both config and steps, or with one step, in one line', async () => {
    const both = client.importDataset({ name: 'both', dataset: { filename: 'both.json', content: JSON.stringify([{ ...SLACK_STEPS, config: SINGLE.config }]) }, specs: [spec('slack')] });
    await expect(both).rejects.toThrow('both.json: sample 0: has both `config` and `steps`: a sample makes one request or several, not both');
    const one = client.importDataset({ name: 'one', dataset: { filename: 'one.json', content: JSON.stringify([{ ...SLACK_STEPS, steps: SLACK_STEPS.steps.slice(0, 1) }]) }, specs: [spec('slack')] });
    await expect(one).rejects.toThrow(/one\.json: sample 0: `steps` Too small/);
    // A carried key path naming a prototype would be walked into every object's prototype (review fixes, the oracle): refused.
    const polluting = [{ ...SLACK_STEPS, steps: [SLACK_STEPS.steps[0], { ...SLACK_STEPS.steps[1], carried: { 'data.__proto__.isAdmin': '0:/data/ok' } }] }];
    await expect(client.importDataset({ name: 'proto', dataset: { filename: 'proto.json', content: JSON.stringify(polluting) }, specs: [spec('slack')] })).rejects.toThrow(/__proto__, prototype or constructor/);
    expect(({} as Record<string, unknown>)['isAdmin']).toBeUndefined();
    // Steps given in the fields are held to what steps are, never stored as they come.
    const [, slack] = await client.listSamples({ datasetId, filter: {} });
    await expect(client.editSample({ datasetId, sampleId: slack!.id, fields: { steps: [{ config: { url: 5 } }] as unknown as JsonValue }, reason: 'bad' })).rejects.toMatchObject({ code: 'bad_input' });
  });

  it('edits steps as the sample’s fields (its config follows the last step) and refuses a config edit on it', async () => {
    const [, slack] = await client.listSamples({ datasetId, filter: {} });
    await expect(client.editSample({ datasetId, sampleId: slack!.id, config: SINGLE.config, reason: 'try' })).rejects.toThrow("a multi-step sample's requests are its steps");
    const steps = JSON.parse(JSON.stringify(SLACK_STEPS.steps).replace('"text":"Deploy finished"', '"text":"Deploy done"')) as JsonValue;
    const { sample: edited, revisions } = await client.editSample({ datasetId, sampleId: slack!.id, fields: { steps }, reason: 'reword' });
    expect(edited.config.data).toEqual({ channel: 'C0DEPLOY1', text: 'Deploy done' });
    expect(edited.reviewState).toBe('fixed');
    expect(edited.findings).toEqual([]);
    // The edit is kept with its history.
    expect(revisions.at(-1)).toMatchObject({ reason: 'reword' });
  });

  it('a run refuses, in one line, what multi-step samples cannot take: argument completion and a server\'s grammar', async () => {
    const remote = { remote: { url: 'http://127.0.0.1:9', model: 'm' } };
    await expect(client.startRun({ datasetId, model: remote, setup: 'argument' })).rejects.toThrow('3 of the 4 chosen samples make several requests (steps): argument completion opens one call; run them in the full setup');
    await expect(client.startRun({ datasetId, model: remote, setting: 'constrained' })).rejects.toThrow("3 of the 4 chosen samples make several requests (steps): a server's grammar constrains one call, not a program of several");
  });
});
