import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WapiiError } from '../../main/api/result.js';
import { localClient, openWorkbench, readDemo, type Workbench } from '../../main/service/index.js';
import { DEMO_SPECS, tempDir } from '../support/paths.js';

const demo = readDemo(path.dirname(DEMO_SPECS));

let opened: Workbench[] = [];
afterEach(() => {
  for (const wb of opened) wb.store.close();
  opened = [];
});

/** Two workbenches on one database file: two `serve` processes, or `serve` and the CLI. */
async function twoWorkbenches(): Promise<{ a: Workbench; b: Workbench; datasetId: number; sampleId: string }> {
  const db = path.join(tempDir(), 'wapii.db');
  const a = openWorkbench({ db, author: 'ana' });
  const b = openWorkbench({ db, author: 'ben' });
  opened.push(a, b);
  const dataset = await localClient(a.service).importDataset({ dataset: demo.dataset, specs: demo.specs });
  const [sample] = a.store.listSamples(dataset.id);
  return { a, b, datasetId: dataset.id, sampleId: sample!.id };
}

describe('edits from two processes on one sample', () => {
  it('keeps both when they change different fields at once (each computed from the row its transaction reads)', async () => {
    const { a, b, datasetId, sampleId } = await twoWorkbenches();
    const original = a.store.getSample(datasetId, sampleId)!;
    const config = { ...original.config, headers: { ...original.config.headers, 'X-Edited-By': 'ben' } };
    // Both start before either writes: each has read the sample and awaits its spec.
    await Promise.all([
      localClient(a.service).editSample({ datasetId, sampleId, task: 'task edited by ana', reason: 'wording' }),
      localClient(b.service).editSample({ datasetId, sampleId, config, reason: 'missing header' }),
    ]);
    const final = a.store.getSample(datasetId, sampleId)!;
    expect([final.task, final.config.headers?.['X-Edited-By']]).toEqual(['task edited by ana', 'ben']);
    const revisions = a.store.listRevisions(datasetId, sampleId);
    // Every revision starts where the one before it ended: none reverted another's change.
    for (let i = 1; i < revisions.length; i++) expect(revisions[i]!.before).toEqual(revisions[i - 1]!.after);
  });

  it('refuses an edit based on a revision another process has moved past ("changed by someone else"), and writes nothing', async () => {
    const { a, b, datasetId, sampleId } = await twoWorkbenches();
    const seen = await localClient(a.service).getSample({ datasetId, sampleId });
    const baseRevision = seen.revisions.filter((r) => !r.undone).at(-1)!.id;
    await localClient(b.service).editSample({ datasetId, sampleId, task: 'ben was here', reason: 'r', baseRevision });
    const stale = localClient(a.service).editSample({ datasetId, sampleId, task: 'ana was here', reason: 'r', baseRevision });
    await expect(stale).rejects.toThrow(WapiiError);
    await expect(stale).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/^sample \S+ was changed by someone else since revision \d+: edited by ben at /) as unknown });
    expect(a.store.getSample(datasetId, sampleId)!.task).toBe('ben was here');
    expect(a.store.listRevisions(datasetId, sampleId)).toHaveLength(2);
  });

  it('shows a sample and its revisions from one snapshot, so the newest revision is the state shown', async () => {
    const { a, b, datasetId, sampleId } = await twoWorkbenches();
    const bob = localClient(b.service);
    await bob.getSample({ datasetId, sampleId }); // b has its spec parsed; a's first look parses it, and b edits meanwhile
    const [seen] = await Promise.all([localClient(a.service).getSample({ datasetId, sampleId }), bob.editSample({ datasetId, sampleId, task: 'ben was here', reason: 'r' })]);
    expect(seen.revisions.filter((r) => !r.undone).at(-1)!.after.task).toBe(seen.sample.task);
  });

  it('two undos at once undo two edits, not one twice', async () => {
    const { a, b, datasetId, sampleId } = await twoWorkbenches();
    for (const task of ['first', 'second']) await localClient(a.service).editSample({ datasetId, sampleId, task, reason: task });
    await Promise.all([localClient(a.service).undoEdit({ datasetId, sampleId }), localClient(b.service).undoEdit({ datasetId, sampleId })]);
    const original = a.store.listRevisions(datasetId, sampleId)[0]!.after.task;
    expect(a.store.getSample(datasetId, sampleId)!.task).toBe(original);
    expect(a.store.listRevisions(datasetId, sampleId).map((r) => r.undone)).toEqual([false, true, true]);
  });
});
