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

  it('stops a process that isolated-vm cannot interrupt at the deadline, answers timeout and goes on with a new one', async () => {
    await using executor = createExecutor({ workers: 1, timeoutMs: 200, marginMs: 300 });
    // isolated-vm reads an unhandled rejection's `message` on the host thread, outside the time limit.
    const stuck = await executor.run(`Promise.reject(Object.defineProperty(new Error('x'), 'message', { get() { for (;;) {} } }));`);
    expect(stuck.error).toMatchObject({ kind: 'timeout', message: expect.stringContaining('was stopped') });
    expect((await executor.run(`require('axios').get('https://x.test/after')`)).requests[0]?.url).toBe('https://x.test/after');
    expect(executor.supervisor.started).toBe(2);
  });

  it('stops a process past its memory ceiling and answers memory', async () => {
    // A ceiling below any Node process's footprint: the first poll during the program stops it.
    await using executor = createExecutor({ workers: 1, timeoutMs: 2000, memoryCeilingMb: 1 });
    const run = await executor.run(`const t = Date.now(); while (Date.now() - t < 500) {}`);
    expect(run.error).toMatchObject({ kind: 'memory', message: expect.stringContaining('passed 1 MB') });
    expect(executor.supervisor.started).toBeGreaterThanOrEqual(2);
  });
});
