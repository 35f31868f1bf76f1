import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasWapiiBench, REPO_ROOT, tempDir, WAPIIBENCH_SPECS } from '../../test/support/paths.js';
import type { SampleDetail, WorkbenchApi } from '../api/contract.js';
import type { SampleStep } from '../api/schemas.js';
import { addStep, moveStep, removeStep, setStepRequest, setStepResponse, type StepEdit } from '../api/stepEdits.js';
import { localClient, openWorkbench, type Workbench } from './index.js';

/**
 * Review edits of a multi-step sample's steps (issue 37 item 1, the review page) through the
 * service on a real database: add, remove, move, a step's request and its response, each kept
 * as a revision and re-checked; one-click fixes on the step their finding is about; what is
 * written exports and imports JSON-equal.
 */
const FIXTURE = path.join(REPO_ROOT, 'test', 'fixtures', 'multistep', 'slack-review.json');
const slackSpec = (): { filename: string; content: string } => ({ filename: 'slack.yaml', content: fs.readFileSync(path.join(WAPIIBENCH_SPECS, 'slack.yaml'), 'utf8') });
const stepsOf = (detail: SampleDetail): SampleStep[] => detail.sample.fields?.['steps'] as unknown as SampleStep[];
const edited = (edit: StepEdit): SampleStep[] & { note: string } => {
  if (!edit.ok) throw new Error(edit.reason);
  return Object.assign(edit.steps, { note: edit.note });
};

describe.runIf(hasWapiiBench)("review edits of a multi-step sample's steps", () => {
  let workbench: Workbench;
  let client: WorkbenchApi;
  let datasetId: number;
  let sampleId: string;
  let singleId: string;
  const dir = tempDir('wapii-review-steps-');

  beforeAll(async () => {
    workbench = openWorkbench({ db: path.join(dir, 'w.db'), author: 'tester', evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu' } });
    client = localClient(workbench.service);
    datasetId = (await client.importDataset({ name: 'steps', dataset: { filename: 'slack-review.json', content: fs.readFileSync(FIXTURE, 'utf8') }, specs: [slackSpec()] })).id;
    [sampleId, singleId] = (await client.listSamples({ datasetId, filter: {} })).map((s) => s.id) as [string, string];
  });
  afterAll(async () => {
    await workbench.shutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const save = (steps: SampleStep[] & { note?: string }, extra: { baseRevision?: number } = {}): Promise<SampleDetail> =>
    client.editSample({ datasetId, sampleId, steps, reason: `fixed: ${steps.note ?? 'edited'}`, ...extra });

  it('a per-step one-click fix fixes the step its finding is about, not the last request', async () => {
    const before = await client.getSample({ datasetId, sampleId });
    expect(before.sample.findings.map((f) => [f.rule, f.step, f.key])).toEqual([['value', 1, 'unfurl_links']]);
    const aid = await client.getReviewAid({ datasetId, sampleId });
    expect(aid.stepExcerpts?.map((e) => e && `${e.method} ${e.path}`)).toEqual(['GET /conversations.list', 'POST /chat.postMessage']);
    expect(aid.fixes).toEqual([expect.objectContaining({ finding: 0, step: 1, kind: 'coerce', label: 'step 1: data.unfurl_links: "false" → false' })]);
    const [fix] = aid.fixes;
    const steps = edited(setStepRequest(stepsOf(before), fix!.step!, fix!.config));
    const after = await save(Object.assign(steps, { note: fix!.label }), { baseRevision: before.revisions.at(-1)!.id });
    expect(after.sample.findings).toEqual([]);
    expect(stepsOf(after)[1]!.config.data).toEqual({ channel: 'C0DEPLOY1', text: 'Deploy finished', unfurl_links: false });
    expect(stepsOf(after)[0]).toEqual(stepsOf(before)[0]);
    // The sample's config is the last step's.
    expect(after.sample.config).toEqual(stepsOf(after)[1]!.config);
    expect(after.revisions.at(-1)).toMatchObject({ reason: 'fixed: step 1: data.unfurl_links: "false" → false', after: { reviewState: 'fixed' } });
  });

  it("an edited response is re-checked: the carried value it no longer holds is flagged, and its fix sets the request's value", async () => {
    const start = stepsOf(await client.getSample({ datasetId, sampleId }));
    const response = { status: 200, data: { ok: true, channels: [{ id: 'C0RELEASE', name: 'deploys' }] } };
    const detail = await save(edited(setStepResponse(start, 0, response)));
    expect(detail.sample.findings.map((f) => [f.rule, f.step, f.message])).toEqual([
      ['carried', 1, 'step 1: carried data.channel ← 0:/data/channels/0/id: the request sends "C0DEPLOY1" there, the response holds "C0RELEASE"'],
    ]);
    const [fix] = (await client.getReviewAid({ datasetId, sampleId })).fixes;
    expect(fix).toMatchObject({ step: 1, kind: 'carry', label: 'step 1: set data.channel to "C0RELEASE" (what step 0\'s response holds)' });
    const fixed = await save(Object.assign(edited(setStepRequest(stepsOf(detail), 1, fix!.config)), { note: fix!.label }));
    expect(fixed.sample.findings).toEqual([]);
    expect(stepsOf(fixed)[1]!.config.data).toMatchObject({ channel: 'C0RELEASE' });
    expect(stepsOf(fixed)[0]!.response).toEqual(response);

    // A string where the response schema wants a boolean: its fix converts it in that step's response.
    const loose = await save(edited(setStepResponse(stepsOf(fixed), 0, { ...response, data: { ...response.data, ok: 'true' } })));
    expect(loose.sample.findings.map((f) => [f.rule, f.step])).toEqual([['response', 0]]);
    const [coerce] = (await client.getReviewAid({ datasetId, sampleId })).fixes;
    expect(coerce).toMatchObject({ step: 0, kind: 'coerce', label: 'step 0: response.data.ok: "true" → true', response: { status: 200, data: { ok: true } } });
    const back = await save(edited(setStepResponse(stepsOf(loose), 0, coerce!.response!)));
    expect(back.sample.findings).toEqual([]);
    expect(stepsOf(back)[0]!.response).toEqual(response);
  });

  it('adds a step (a copy of the last), moves it, removes it; refuses a move past the step it carries from, and fewer than two steps', async () => {
    const two = stepsOf(await client.getSample({ datasetId, sampleId }));
    const added = edited(addStep(two));
    expect(added.note).toBe('added step 2 (a copy of step 1)');
    let detail = await save(added);
    expect(stepsOf(detail)).toHaveLength(3);
    expect(stepsOf(detail)[2]).toEqual(two[1]);
    // The copy posts the same message: edit its request so the order is visible.
    const third = { ...two[1]!.config, data: { ...(two[1]!.config.data as object), text: 'Deploy verified' } };
    detail = await save(edited(setStepRequest(stepsOf(detail), 2, third)));
    expect(detail.sample.config).toEqual(third);

    // Step 1 carries the channel from step 0: it cannot go before it.
    expect(moveStep(stepsOf(detail), 1, -1)).toEqual({ ok: false, reason: 'step 1 cannot move up: step 0 would carry data.channel from step 1, which no longer comes before it' });
    const moved = edited(moveStep(stepsOf(detail), 2, -1));
    expect(moved.note).toBe('moved step 2 up');
    detail = await save(moved);
    expect(stepsOf(detail).map((s) => (s.config.data as { text?: string } | undefined)?.text)).toEqual([undefined, 'Deploy verified', 'Deploy finished']);
    // The config follows the new last step; both posts still carry the channel from step 0.
    expect(detail.sample.config.data).toMatchObject({ text: 'Deploy finished' });
    expect(stepsOf(detail).map((s) => s.carried)).toEqual([undefined, { 'data.channel': '0:/data/channels/0/id' }, { 'data.channel': '0:/data/channels/0/id' }]);
    expect(detail.sample.findings).toEqual([]);

    const removed = edited(removeStep(stepsOf(detail), 1));
    expect(removed.note).toBe('removed step 1');
    detail = await save(removed);
    expect(stepsOf(detail)).toEqual(stepsOf(await client.getSample({ datasetId, sampleId })));
    expect(stepsOf(detail)).toHaveLength(2);
    expect(detail.sample.findings).toEqual([]);

    // Below two steps: the edit refuses, and the service refuses such steps in one line.
    expect(removeStep(stepsOf(detail), 1)).toEqual({ ok: false, reason: 'a multi-step sample keeps 2 or more steps: step 1 cannot be removed from 2' });
    expect(removeStep([...stepsOf(detail), stepsOf(detail)[1]!], 0)).toEqual({ ok: false, reason: 'step 1 carries data.channel from step 0: drop that carried value first' });
    await expect(client.editSample({ datasetId, sampleId, steps: stepsOf(detail).slice(0, 1), reason: 'one step' })).rejects.toThrow(
      'editSample: steps: a multi-step sample keeps 2 or more steps: remove a step only while more remain (or reject the sample)',
    );
    await expect(client.editSample({ datasetId, sampleId: singleId, steps: stepsOf(detail), reason: 'x' })).rejects.toThrow('a single-request sample has no steps: edit its config');
    await expect(client.editSample({ datasetId, sampleId, steps: stepsOf(detail), config: detail.sample.config, reason: 'x' })).rejects.toThrow("a multi-step sample's requests are its steps");
    expect((await client.getSample({ datasetId, sampleId })).revisions).toHaveLength(detail.revisions.length);
  });

  it('keeps every edit in the history with the steps before and after; undo restores the steps and their findings', async () => {
    const { revisions } = await client.getSample({ datasetId, sampleId });
    expect(revisions.map((r) => r.reason)).toEqual([
      'imported from slack-review.json',
      'fixed: step 1: data.unfurl_links: "false" → false',
      "fixed: edited step 0's response",
      'fixed: step 1: set data.channel to "C0RELEASE" (what step 0\'s response holds)',
      "fixed: edited step 0's response",
      "fixed: edited step 0's response",
      'fixed: added step 2 (a copy of step 1)',
      "fixed: edited step 2's request",
      'fixed: moved step 2 up',
      'fixed: removed step 1',
    ]);
    const count = (r: (typeof revisions)[number], side: 'before' | 'after'): number | undefined => (r[side]?.fields?.['steps'] as unknown[] | undefined)?.length;
    expect(revisions.slice(1).map((r) => [count(r, 'before'), count(r, 'after')])).toEqual([[2, 2], [2, 2], [2, 2], [2, 2], [2, 2], [2, 3], [3, 3], [3, 3], [3, 2]]);
    for (const r of revisions.slice(1)) expect(r.after.config).toEqual((r.after.fields!['steps'] as unknown as SampleStep[]).at(-1)!.config);

    // Undo the removal: three steps again, re-checked as steps (not as the last request alone).
    const undone = await client.undoEdit({ datasetId, sampleId });
    expect(stepsOf(undone)).toHaveLength(3);
    expect(undone.sample.config.data).toMatchObject({ text: 'Deploy finished' });
    expect(undone.sample.findings).toEqual([]);
    // An accept (no fields) undone keeps the steps and checks them as steps: a finding on step 0 stays.
    const [first] = stepsOf(undone);
    const flagged = await save(edited(setStepResponse(stepsOf(undone), 0, { ...first!.response, data: { ok: 'yes', channels: [{ id: 'C0RELEASE', name: 'deploys' }] } })));
    expect(flagged.sample.findings.map((f) => [f.rule, f.step])).toEqual([['response', 0]]);
    await client.editSample({ datasetId, sampleId, reviewState: 'accepted', reason: 'marked accepted' });
    const unaccepted = await client.undoEdit({ datasetId, sampleId });
    expect(stepsOf(unaccepted)).toEqual(stepsOf(flagged));
    expect(unaccepted.sample.findings).toEqual(flagged.sample.findings);
    expect(unaccepted.sample.reviewState).toBe('fixed');
    const restored = await client.undoEdit({ datasetId, sampleId });
    expect(stepsOf(restored)).toEqual(stepsOf(undone));
    expect(restored.sample.findings).toEqual([]);
  });

  it('what the edits wrote exports, imports and exports again JSON-equal', async () => {
    const current = await client.getSample({ datasetId, sampleId });
    const flat = await client.exportDataset({ datasetId, format: 'flat' });
    const content = Object.values(flat.files)[0]!;
    const exported = JSON.parse(content) as { task: string; steps?: SampleStep[]; config?: unknown }[];
    expect(exported[0]).toEqual({ api: 'slack', task: current.sample.task, steps: stepsOf(current) });
    expect(exported[0]).not.toHaveProperty('config');
    const again = await client.importDataset({ name: 'steps-again', dataset: { filename: 'steps-again.json', content }, specs: [slackSpec()] });
    const [copy] = await client.listSamples({ datasetId: again.id, filter: {} });
    expect(copy!.fields?.['steps']).toEqual(stepsOf(current));
    expect(copy!.findings).toEqual([]);
    const twice = await client.exportDataset({ datasetId: again.id, format: 'flat' });
    expect(JSON.parse(Object.values(twice.files)[0]!)).toEqual(exported);
  });
});
