import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../../main/api/result.js';
import type { RequestConfig } from '../../main/api/schemas.js';
import { readFileInput, readSpecDir } from '../../main/cli/files.js';
import { parseDataset } from '../../main/dataset/index.js';
import { localClient, openWorkbench, type Workbench } from '../../main/service/index.js';
import { hasWapiiBench, tempDir, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';

type Entry = { api: string; index: number; task: string; config: RequestConfig; checks: string; vetted: boolean };

/**
 * The dataset export (issue 26 item 3) on WAPIIBench's 395 samples: each sample keeps the index
 * it came with, in a subset and in the per-API files too, and the checks are run again on what
 * is written — a request changed since import gets its `checks` recomputed, the others keep the
 * text WAPIIBench's checker wrote, so import -> export still equals the input.
 */
describe.runIf(hasWapiiBench)('exporting WAPIIBench from the workbench', () => {
  const dir = tempDir();
  let wb: Workbench;
  let input: Entry[];
  let datasetId: number;

  beforeAll(async () => {
    wb = openWorkbench({ db: path.join(dir, 'w.db'), author: 'tester' });
    input = JSON.parse(fs.readFileSync(WAPIIBENCH_ALL, 'utf8')) as Entry[];
    datasetId = (await localClient(wb.service).importDataset({ dataset: unwrap(readFileInput(WAPIIBENCH_ALL)), specs: unwrap(readSpecDir(WAPIIBENCH_SPECS)) })).id;
  }, 180_000);
  afterAll(async () => {
    await wb?.shutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('round-trips: the flat export is JSON-equal to all.json, and the recomputed checks flag what the workbench flags', async () => {
    const client = localClient(wb.service);
    const { files, checks } = await client.exportDataset({ datasetId, format: 'flat' });
    const exported = JSON.parse(Object.values(files)[0]!) as Entry[];
    expect(exported).toHaveLength(395);
    exported.forEach((sample, i) => expect(sample, `sample ${i}`).toEqual(input[i]));
    // The spec check flags 16 of the requests as written. The dataset shows 20 flagged: its four
    // others carry WAPIIBench's own `checks` text, which names a problem the vetted request no
    // longer has (`limit` on GET /teams/12345/users, whose config has no params): kept, as written.
    const dataset = (await client.listDatasets({})).find((d) => d.id === datasetId)!;
    expect(checks).toEqual({ samples: 395, flagged: 16, recomputed: 0 });
    expect(dataset.flaggedCount).toBe(20);
  }, 120_000);

  it('a subset keeps its indices and the per-API files carry them; a fixed request gets its checks recomputed', async () => {
    const client = localClient(wb.service);
    const samples = await client.listSamples({ datasetId });
    // WAPIIBench's `checks` names `limit` on GET /teams/12345/users (asana 133), a request without
    // it; edited (another team), the text no longer describes what is written and is recomputed.
    const flaggedUpstream = samples.find((s) => s.source.checks?.includes('teams/12345/users'))!;
    await client.editSample({ datasetId, sampleId: flaggedUpstream.id, config: { ...flaggedUpstream.config, url: flaggedUpstream.config.url.replace('12345', '67890') }, reason: 'the team of the task' });
    // Another request broken on purpose: its checks name what the spec check finds.
    const slack = samples.filter((s) => s.api === 'slack')[40]!;
    await client.editSample({ datasetId, sampleId: slack.id, config: { ...slack.config, url: `${slack.config.url}.nowhere` }, reason: 'broken on purpose' });
    const accepted = [samples[3]!, samples[200]!, samples.filter((s) => s.api === 'google_sheet_v4')[5]!];
    await client.reviewSamples({ datasetId, sampleIds: accepted.map((s) => s.id), reviewState: 'accepted' });

    const { files, checks } = await client.exportDataset({ datasetId, format: 'flat', reviewStates: ['accepted', 'fixed'] });
    const exported = JSON.parse(Object.values(files)[0]!) as Entry[];
    const chosen = samples.filter((s) => [...accepted, flaggedUpstream, slack].some((c) => c.id === s.id));
    // Each keeps its own index (not 0, 1, 2, … of the subset): it lines up with all.json and with runs.
    expect(exported.map((e) => [e.api, e.index])).toEqual(chosen.map((s) => [s.api, input[s.position]!.index]));
    const byTask = (s: { task: string }): Entry => exported.find((e) => e.task === s.task)!;
    expect(byTask(flaggedUpstream).checks).toBe('OK');
    expect(byTask(slack).checks).toMatch(/^URL path \/[\w.]+\.nowhere matches no endpoint of the spec\n$/);
    for (const s of accepted) expect(byTask(s).checks).toBe(input[s.position]!.checks);
    expect(checks).toEqual({ samples: 5, flagged: 1, recomputed: 2 });

    // Per API: every sample with its index; read back, the index is the sample's, not a field of its own.
    const perApi = await client.exportDataset({ datasetId, format: 'per-api', reviewStates: ['accepted', 'fixed'] });
    expect(perApi.checks).toEqual({ samples: 5, flagged: 1, recomputed: 0 });
    const asana = JSON.parse(perApi.files['asana.json']!) as { samples: { index: number; task: string }[] };
    expect(asana.samples.map((s) => s.index)).toEqual(chosen.filter((s) => s.api === 'asana').map((s) => input[s.position]!.index));
    const again = unwrap(parseDataset(perApi.files['asana.json']!, 'asana.json'));
    expect(again.map((d) => [d.source.index, d.fields])).toEqual(asana.samples.map((s) => [s.index, undefined]));
  }, 120_000);
});
