import { describe, expect, it } from 'vitest';
import { runStatusText } from '../../main/api/constants.js';
import { pageWording } from '../../renderer/src/pages/runs/errorWording.js';

describe('a run error as its pages word it (issue 38 item 3)', () => {
  it('names New run’s fields, not the CLI’s flags', () => {
    const stored = 'the prompt (918 tokens) and 250 new tokens do not fit a context of 1024; raise --context or lower --max-tokens';
    expect(pageWording(stored)).toBe('the prompt (918 tokens) and 250 new tokens do not fit a context of 1024; queue it again from New run with a larger Context or fewer Max tokens');
    expect(pageWording(stored)).not.toMatch(/--/);
  });

  it('a finished run with failed outputs reads "finished with N errors"; others read their status', () => {
    expect(runStatusText({ status: 'finished', error: 'finished with 5 errors; the first: the prompt (918 tokens) …' })).toBe('finished with 5 errors');
    expect(runStatusText({ status: 'finished', error: 'finished with 1 errors; the first: x' })).toBe('finished with 1 error');
    expect(runStatusText({ status: 'finished', error: null })).toBe('finished');
    expect(runStatusText({ status: 'failed', error: 'finished with 2 errors' })).toBe('failed');
  });
});
