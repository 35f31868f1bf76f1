import fs from 'node:fs';
import path from 'node:path';
import { createExecutor } from '../../main/execution/index.js';
import { loadSpec, type ApiSpec } from '../../main/openapi/index.js';
import { evaluateStepsCode } from '../../main/runner/evaluate.js';
import { classifyFailure, type Step } from '../../main/scoring/index.js';
import { localClient, type Workbench } from '../../main/service/index.js';
import { inputManifest, snapshotOf } from '../../main/service/runPlan.js';
import { WAPIIBENCH_SPECS } from './paths.js';

/**
 * Runs on multi-step samples (scoring.md §7) stored as the runner stores them: each program run
 * whole in the real sandbox against its sample's steps (evaluateStepsCode), its verdict, captured
 * requests and failure classes written with store.addRunSample. Three runs on one dataset of four
 * samples, the programs swapped between them, for the inspector, Results and Compare.
 */
const AUTH = { Authorization: 'Bearer <token>' };
const POSTED = (text: string) => ({ ok: true, channel: 'C0DEPLOY1', ts: '1700000000.000100', message: { type: 'message', text, ts: '1700000000.000100', user: 'U0DEPLOYBOT', team: 'T0TEAM0001' } });
const slackSteps = (text: string) => [
  { config: { url: 'https://slack.com/api/conversations.list', method: 'get', headers: AUTH, params: { types: 'public_channel' } }, response: { status: 200, data: { ok: true, channels: [{ id: 'C0GENERAL', name: 'general' }, { id: 'C0DEPLOY1', name: 'deploys' }] } } },
  { config: { url: 'https://slack.com/api/chat.postMessage', method: 'post', headers: AUTH, data: { channel: 'C0DEPLOY1', text } }, carried: { 'data.channel': '0:/data/channels/1/id' }, response: { status: 200, data: POSTED(text) } },
];
const ASANA_STEPS = [
  { config: { url: 'https://app.asana.com/api/1.0/tasks', method: 'get', headers: AUTH, params: { project: '1200042' } }, response: { status: 200, data: { data: [{ gid: '1209000', name: 'Ship it' }] } } },
  { config: { url: 'https://app.asana.com/api/1.0/tasks/1209000', method: 'put', headers: AUTH, data: { data: { completed: true } } }, carried: { 'path_params.task_gid': '0:/data/data/0/gid' }, response: { status: 200, data: { data: { gid: '1209000', completed: true } } } },
];
export const MULTI_STEP_SAMPLES = [
  { api: 'slack', task: "Post 'Deploy finished' to the public channel named deploys (look its ID up first).", steps: slackSteps('Deploy finished') },
  { api: 'slack', task: "Post 'Rollback started' to the public channel named deploys (look its ID up first).", steps: slackSteps('Rollback started') },
  { api: 'slack', task: "Post 'Release 2.4 is out' to the public channel named deploys (look its ID up first).", steps: slackSteps('Release 2.4 is out') },
  { api: 'asana', task: 'Mark the first task of project 1200042 as completed.', steps: ASANA_STEPS },
];

const HEAD = "const axios = require('axios');\nconst headers = { Authorization: 'Bearer <token>' };\n";
const planned = (text: string): string => `${HEAD}axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'public_channel' } })
  .then((r) => axios.post('https://slack.com/api/chat.postMessage', { channel: r.data.channels.find((c) => c.name === 'deploys').id, text: '${text}' }, { headers }));`;
/** The lookup skipped: the channel's name sent where its ID belongs. */
const skippedLookup = (text: string): string => `${HEAD}axios.post('https://slack.com/api/chat.postMessage', { channel: 'deploys', text: '${text}' }, { headers });`;
/** The message posted to every channel the lookup returned: one post too many, and it writes. */
const extraMutation = (text: string): string => `${HEAD}(async () => {
  const r = await axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'public_channel' } });
  await axios.post('https://slack.com/api/chat.postMessage', { channel: r.data.channels[1].id, text: '${text}' }, { headers });
  await axios.post('https://slack.com/api/chat.postMessage', { channel: r.data.channels[0].id, text: '${text}' }, { headers });
})();`;
/** The lookup made, its answer ignored: a channel ID guessed. */
const hardCoded = (text: string): string => `${HEAD}axios.get('https://slack.com/api/conversations.list', { headers, params: { types: 'public_channel' } })
  .then(() => axios.post('https://slack.com/api/chat.postMessage', { channel: 'C0DEPLOY9', text: '${text}' }, { headers }));`;
const asanaPlanned = `${HEAD}axios.get('https://app.asana.com/api/1.0/tasks', { headers, params: { project: '1200042' } })
  .then((r) => axios.put(\`https://app.asana.com/api/1.0/tasks/\${r.data.data[0].gid}\`, { data: { completed: true } }, { headers }));`;
const asanaGuessed = `${HEAD}axios.get('https://app.asana.com/api/1.0/tasks', { headers, params: { project: '1200042' } })
  .then(() => axios.put('https://app.asana.com/api/1.0/tasks/1200042', { data: { completed: true } }, { headers }));`;

/** Run A: correct, skipped lookup, extra mutating call, correct (path parameter carried). */
export const RUN_A = [planned('Deploy finished'), skippedLookup('Rollback started'), extraMutation('Release 2.4 is out'), asanaPlanned];
/** Run B: the lookup skipped where A planned, planned where A did not, a guessed task ID. */
export const RUN_B = [skippedLookup('Deploy finished'), planned('Rollback started'), planned('Release 2.4 is out'), asanaGuessed];
/** Run C: A's, but sample 1 makes the lookup and guesses the ID: still wrong, now at its second step. */
export const RUN_C = [RUN_A[0]!, hardCoded('Rollback started'), RUN_A[2]!, RUN_A[3]!];

const specFile = (api: string) => ({ filename: `${api}.yaml`, content: fs.readFileSync(path.join(WAPIIBENCH_SPECS, `${api}.yaml`), 'utf8') });

/** Imports the four samples and stores runs A, B and C on them, finished, with their statistics. */
export async function seedMultiStepRuns(workbench: Workbench): Promise<{ datasetId: number; runA: number; runB: number; runC: number }> {
  const { store, service } = workbench;
  const { runs, results } = service.evaluation;
  const dataset = await localClient(service).importDataset({ name: 'multi-step', dataset: { filename: 'multi-step.json', content: JSON.stringify(MULTI_STEP_SAMPLES) }, specs: [specFile('slack'), specFile('asana')] });
  const datasetId = dataset.id;
  const samples = store.listSamples(datasetId);
  const specHashes = store.datasetApis(datasetId);
  const specs = new Map<string, ApiSpec>();
  for (const [api, hash] of specHashes) {
    const stored = store.getSpec(hash)!;
    const loaded = await loadSpec(stored.content, stored.filename);
    if (!loaded.ok) throw new Error(loaded.error.message);
    specs.set(api, loaded.value);
  }
  await using executor = createExecutor({ timeoutMs: 2000 });
  const seed = async (name: string, programs: readonly string[]): Promise<number> => {
    const inputs = snapshotOf(samples, specHashes);
    const runId = runs.create({ kind: 'imported codes', status: 'running', dataset: 'multi-step', datasetId, settings: { model: name, compat: 'default' }, manifest: inputManifest(inputs, specHashes), model: { name }, subset: null, total: samples.length, ownerPid: process.pid, inputs });
    for (const sample of samples) {
      const steps = sample.fields!['steps'] as unknown as Step[];
      const spec = specs.get(sample.api)!;
      const e = await evaluateStepsCode(programs[sample.position]!, steps, spec, executor);
      // As the runner classifies a multi-step output: by its first step that is not correct.
      const first = e.verdict.first_failed_step;
      const failed = first === null || first === undefined ? undefined : e.verdict.steps?.[first];
      const failures = classifyFailure({ verdict: failed?.verdict ?? e.verdict, spec, expected: failed ? steps[first!]!.config : sample.config, executionError: e.execution?.error?.kind });
      store.addRunSample(runId, { index: sample.position, api: sample.api, code: programs[sample.position]!, request: e.request, verdict: e.verdict, extraction: e.extraction, execution: e.execution, durationMs: e.execution?.durationMs, failures });
    }
    runs.setStatus(runId, 'finished', { finished: true, ownerPid: null });
    await results.storeStatistics(runId);
    return runId;
  };
  return { datasetId, runA: await seed('multi-step-a', RUN_A), runB: await seed('multi-step-b', RUN_B), runC: await seed('multi-step-c', RUN_C) };
}
