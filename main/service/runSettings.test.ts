import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEMO_DATASET, DEMO_SPECS, tempDir } from '../../test/support/paths.js';
import { readRunSettings, repairRoundsOf, StartRunInputSchema } from '../api/evaluation.js';
import { runCli } from '../cli/program.js';
import { localClient, openWorkbench, readDemo } from './index.js';
import { settingsOf } from './runPlan.js';

/** The cli's output and exit code, run in this process. */
async function cli(argv: readonly string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await runCli(argv, { stdout: () => {}, stderr: (t) => (stderr += t) });
  return { code, stderr };
}

describe('one run plan: typed settings and one set of rules (issue 35 item 2)', () => {
  it('reads back what the plan stored, typed; an older or hand-edited run takes the default of each field it lacks', () => {
    const input = StartRunInputSchema.parse({ datasetId: 1, model: { modelId: 1 }, setting: 'repair', repairRounds: 3, client: 'fetch', sampling: { temperature: 0.7, topK: 20, n: 2 } });
    const stored = JSON.parse(JSON.stringify(settingsOf(input, 12))) as Record<string, unknown>;
    expect(readRunSettings(stored)).toMatchObject({ setting: 'repair', repairRounds: 3, client: 'fetch', temperature: 0.7, topK: 20, topP: 0.95, maxTokens: 250, n: 2, seed: 1, limit: 12, knowledge: 'none' });
    expect(repairRoundsOf(readRunSettings(stored))).toBe(3);
    // A run stored before the client, knowledge and repair options; a value edited into the wrong kind.
    const old = readRunSettings({ setup: 'argument', prompt: 'chat', setting: 'constrained', n: 1, seed: 4, temperature: 0, topK: 'lots', topP: 0.9, maxTokens: 100, parallel: 2 });
    expect(old).toMatchObject({ setup: 'argument', prompt: 'chat', setting: 'constrained', client: 'axios', knowledge: 'none', seed: 4, topK: 40, topP: 0.9, maxTokens: 100, parallel: 2 });
    expect(repairRoundsOf(old)).toBe(0);
  });

  it('a dataset file is held to the rules a stored dataset is: the same line, before any model loads', async () => {
    const dir = tempDir('wapii-rules-');
    const db = path.join(dir, 'w.db');
    const workbench = openWorkbench({ db, author: 'tester', evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu' } });
    const seeded = await workbench.service.seedIfEmpty(readDemo(path.dirname(DEMO_SPECS)));
    if (!seeded.ok) throw new Error(seeded.error.message);
    const datasetId = (await localClient(workbench.service).listDatasets({}))[0]!.id;
    const cases = [
      { flags: ['--client', 'fetch', '--setting', 'constrained'], model: { remote: { url: 'http://127.0.0.1:9', model: 'm' } } },
      { flags: ['--setting', 'constrained', '--setup', 'argument'], model: { remote: { url: 'http://127.0.0.1:9', model: 'm' } } },
    ];
    for (const c of cases) {
      const input = { datasetId, model: c.model, ...(c.flags.includes('fetch') ? { client: 'fetch' as const } : {}), setting: 'constrained' as const, ...(c.flags.includes('argument') ? { setup: 'argument' as const } : {}) };
      const stored = await localClient(workbench.service).startRun(input).then(
        () => 'queued',
        (error: Error) => error.message,
      );
      const file = await cli(['--db', path.join(dir, 'other.db'), 'run', '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--remote', 'http://127.0.0.1:9', ...c.flags]);
      expect(file.code).not.toBe(0);
      expect(file.stderr).toBe(`wapii: ${stored}\n`);
    }
    await workbench.shutdown();
  });
});
