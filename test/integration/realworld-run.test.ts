import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unwrap } from '../../main/api/result.js';
import { cachedTestModel } from '../../main/generation/index.js';
import { Store } from '../../main/store/index.js';
import { cli } from '../support/cli.js';
import { REPO_ROOT, tempDir } from '../support/paths.js';
import { hasVocabBundle } from '../support/vocab.js';

const DATASET = path.join(REPO_ROOT, 'test', 'fixtures', 'realworld', 'dataset.json');
const SPECS = path.join(REPO_ROOT, 'test', 'fixtures', 'realworld', 'specs');

/**
 * Issue 35 item 2: a real-world dataset file run with `--specs` is planned as the same dataset
 * once imported: each sample is prompted with its own starter code and definitions, and the two
 * runs, greedy on one model, write the same outputs.
 */
describe.runIf(hasVocabBundle)('`wapii run --dataset <real-world file> --specs <dir>`', () => {
  it("prompts each sample with its own starter, and writes what the same run on the imported dataset writes", async () => {
    const db = path.join(tempDir(), 'wapii.db');
    const model = cachedTestModel('qwen2');
    const common = ['--model', model, '--max-tokens', '12', '--gpu', 'cpu', '--seed', '3', '--json'];
    const fromFile = await cli('--db', db, 'run', '--dataset', DATASET, '--specs', SPECS, ...common);
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const imported = await cli('--db', db, 'import', DATASET, '--specs', SPECS, '--name', 'rw');
    expect(imported.code, imported.stderr).toBe(0);
    const fromStore = await cli('--db', db, 'run', '--dataset', 'rw', ...common);
    expect(fromStore.code, fromStore.stderr).toBe(0);
    const [fileRun, storedRun] = [JSON.parse(fromFile.stdout) as { run: number }, JSON.parse(fromStore.stdout) as { run: number }];
    const store = unwrap(Store.open(db));
    try {
      const a = store.getRun(fileRun.run)!;
      const b = store.getRun(storedRun.run)!;
      expect(a.samples).toHaveLength(5);
      // Every prompt carries its sample's own code, the task in place of `{task}`, and never the generic starter.
      const dataset = (await import(DATASET, { with: { type: 'json' } })).default as { task: string; starter_code: string }[];
      for (const s of a.samples) {
        const own = dataset[s.index]!;
        const lastLine = own.starter_code.split('\n').slice(-3, -1).join('\n');
        expect(s.prompt).toContain(lastLine.replace('{task}', own.task));
        expect(s.prompt).not.toContain("// " + own.task + "\nconst axios = require('axios');\naxios.");
      }
      const byIndex = (run: typeof a) => run.samples.map((s) => [s.index, s.prompt, s.code]).sort((x, y) => Number(x[0]) - Number(y[0]));
      expect(byIndex(a)).toEqual(byIndex(b));
    } finally {
      store.close();
    }
  });
});
