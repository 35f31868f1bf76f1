import { describe, expect, it } from 'vitest';
import { createExecutor } from './index.js';

describe('createExecutor', () => {
  it('runs programs in sandbox processes, a stuck one not holding up the others', async () => {
    await using executor = createExecutor({ workers: 2, timeoutMs: 400 });
    expect(executor.size).toBe(2);
    const programs = [`while (true) {}`, ...Array.from({ length: 8 }, (_, i) => `require('axios').get('https://x.test/${i}');`)];
    const runs = await Promise.all(programs.map((p) => executor.run(p)));
    expect(runs[0]?.error?.kind).toBe('timeout');
    expect(runs.slice(1).map((r) => r.requests[0]?.url)).toEqual(Array.from({ length: 8 }, (_, i) => `https://x.test/${i}`));
  });

  it('runs in one sandbox process when one is all there is', async () => {
    await using executor = createExecutor({ workers: 1 });
    expect(executor.size).toBe(1);
    expect((await executor.run(`require('axios').post('https://x.test/p', { a: 1 })`)).requests).toHaveLength(1);
  });
});
