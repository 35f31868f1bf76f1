import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/paths.js';
import type { GenerationBackend } from '../generation/index.js';
import { Store } from '../store/index.js';
import { executeRun, type RunSample } from './run.js';

describe('executeRun', () => {
  it('stops every slot when one cannot store its output, and fails only once they have stopped', async () => {
    const opened = Store.open(path.join(tempDir(), 'run.db'));
    if (!opened.ok) throw new Error(opened.error.message);
    const store = opened.value;
    const add = store.addRunSample.bind(store);
    let writes = 0;
    store.addRunSample = (...args: Parameters<Store['addRunSample']>) => {
      if (++writes === 3) throw new Error('disk full');
      return add(...args);
    };
    // The API has no spec: each output is recorded as an error without generating, and every slot writes in turn.
    const backend: GenerationBackend = {
      manifest: {},
      slots: 3,
      slot: () => ({ generate: () => Promise.reject(new Error('not reached')) }),
      [Symbol.asyncDispose]: async () => {},
    };
    const samples: RunSample[] = Array.from({ length: 30 }, (_, index) => ({ index, api: 'nowhere', task: `task ${index}`, config: { method: 'get', url: 'https://x.test/' } }));
    const run = executeRun({
      store,
      backend,
      executor: { run: () => Promise.reject(new Error('not reached')) },
      samples,
      specs: new Map(),
      plan: { mode: 'full', n: 1, seed: 0, settings: {}, manifest: {}, dataset: 'd' },
    });
    await expect(run).rejects.toThrow('disk full');
    const after = writes;
    await new Promise((r) => setTimeout(r, 50));
    expect(writes).toBe(after);
    expect(writes).toBeLessThanOrEqual(3 + 2);
    store.close();
  });
});
