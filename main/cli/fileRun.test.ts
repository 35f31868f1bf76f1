import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCompletionStandIn } from '../../test/support/completionStandIn.js';
import { DEMO_DATASET, DEMO_SPECS, tempDir } from '../../test/support/paths.js';
import { localClient, openWorkbench } from '../service/index.js';
import { runCli } from './program.js';

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/**
 * `wapii run --dataset <file> --specs <dir>` plans and queues the file as a stored dataset's run
 * (issue 35 item 2): the file is stored once, found again when it comes back unchanged, and kept
 * apart when a file of the same name holds other samples.
 */
describe('a run on a dataset file goes through the one run plan', () => {
  it('stores the file as a dataset once, runs it on the queue, and keeps a changed file of the same name apart', async () => {
    const dir = tempDir('wapii-filerun-');
    const db = path.join(dir, 'w.db');
    const server = await startCompletionStandIn(() => ({ text: "get('https://api.harbor.example/v2/me');" }));
    try {
      for (let i = 0; i < 2; i++) {
        const out = await cli('--db', db, 'run', '--remote', server.url, '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--limit', '1', '--json');
        expect(out.code, out.stderr).toBe(0);
        expect(out.stderr).toContain(`run ${i + 1}: 1 outputs to generate on dataset "demo"`);
      }
      const changed = path.join(dir, 'demo.json');
      const samples = JSON.parse(fs.readFileSync(DEMO_DATASET, 'utf8')) as { task: string }[];
      fs.writeFileSync(changed, JSON.stringify([{ ...samples[0]!, task: `${samples[0]!.task} (edited)` }, ...samples.slice(1)]));
      const third = await cli('--db', db, 'run', '--remote', server.url, '--dataset', changed, '--specs', DEMO_SPECS, '--limit', '1');
      expect(third.code, third.stderr).toBe(0);
      expect(third.stderr).toMatch(/run 3: 1 outputs to generate on dataset "demo-[0-9a-f]{8}"/);
      const wb = openWorkbench({ db });
      try {
        const datasets = await localClient(wb.service).listDatasets({});
        expect(datasets.map((d) => d.name)).toEqual(['demo', expect.stringMatching(/^demo-[0-9a-f]{8}$/)]);
        // Each run is a stored dataset's run: its snapshot and the Setup of each sample are kept.
        const runs = await localClient(wb.service).listRuns({});
        expect(runs.map((r) => r.datasetId)).toEqual(expect.arrayContaining([datasets[0]!.id, datasets[1]!.id]));
      } finally {
        await wb.shutdown();
      }
    } finally {
      await server.close();
    }
  });
});
