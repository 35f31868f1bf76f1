import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unwrap } from '../api/result.js';
import { oracleProgram } from '../prompt/index.js';
import { Store } from '../store/index.js';
import { cli } from '../../test/support/cli.js';
import { startHostedStandIn } from '../../test/support/hostedStandIn.js';
import { DEMO_DATASET, DEMO_SPECS, tempDir } from '../../test/support/paths.js';

const KEY = 'sk-cli-SECRET-77aa';

describe('wapii run --dataset <id> --provider', () => {
  let db: string;
  const saved = process.env['OPENAI_API_KEY'];
  beforeAll(async () => {
    db = path.join(tempDir(), 'w.db');
    expect((await cli('--db', db, 'import', DEMO_DATASET, '--specs', DEMO_SPECS)).code).toBe(0);
    process.env['OPENAI_API_KEY'] = KEY;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env['OPENAI_API_KEY'];
    else process.env['OPENAI_API_KEY'] = saved;
  });

  it('runs a hosted model on a stored dataset and prints the report as JSON; the key appears in no output', async () => {
    const store = unwrap(Store.open(db));
    const samples = store.listSamples(store.listDatasets()[0]!.id);
    store.close();
    const server = await startHostedStandIn({
      kind: 'openai',
      key: KEY,
      model: 'gpt-4o-mini',
      reply: (r) => {
        const sample = samples.find((s) => r.prompt.includes(s.task))!;
        const oracle = oracleProgram(sample, 'full');
        return { text: `\`\`\`javascript\n${oracle.starter}${oracle.completion.replace(/\n\n[\s\S]*$/, '')}\n\`\`\`` };
      },
    });
    try {
      const out = await cli('--db', db, 'run', '--dataset', '1', '--provider', 'openai', '--model', 'gpt-4o-mini', '--base-url', server.url, '--limit', '4', '--spending-cap', '5', '--json');
      expect(out.stderr).not.toContain(KEY);
      expect(out.code).toBe(0);
      const report = JSON.parse(out.stdout) as { run: number; statistics: Record<string, number> };
      expect(report.statistics).toMatchObject({ samples_total: 4, samples_correct: 4 });
      expect(out.stdout).not.toContain(KEY);
      for (const r of server.received) expect(r.problems).toEqual([]);
      const runs = JSON.parse((await cli('--db', db, 'runs', '--json')).stdout) as { id: number; model: string; status: string }[];
      expect(runs.find((r) => r.id === report.run)).toMatchObject({ model: 'openai:gpt-4o-mini', status: 'finished' });
    } finally {
      await server.close();
    }
  });

  it('a provider whose key is missing, or an endpoint that does not answer: one line, exit 1, no run', async () => {
    const missing = await cli('--db', db, 'run', '--dataset', '1', '--provider', 'anthropic', '--model', 'claude-haiku-4-5', '--limit', '2');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^wapii: no Anthropic API key: set ANTHROPIC_API_KEY \(or save one in the app\)\n$/);
    const nowhere = await cli('--db', db, 'run', '--dataset', '1', '--provider', 'openai-compatible', '--model', 'm', '--base-url', 'http://127.0.0.1:9', '--limit', '2');
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toMatch(/^wapii: openai-compatible m: cannot reach http:\/\/127\.0\.0\.1:9\/v1\/models/);
  });
});
