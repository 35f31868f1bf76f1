import { describe, expect, it } from 'vitest';
import { PAIRED_STATISTIC, pairedComparison } from './paired.js';
import type { Verdict } from './verdicts.js';

const v = (sample: Verdict['sample_verdict'], url: Verdict['url_verdict'] = 'correct'): Verdict => ({
  sample_verdict: sample,
  error_verdict: sample === 'nonexecutable' ? 'runtime_error' : null,
  url_verdict: sample === 'nonexecutable' ? null : url,
  method_verdict: sample === 'nonexecutable' ? null : 'correct',
  endpoint_verdict: sample === 'nonexecutable' ? null : sample === 'illegal' ? 'illegal' : 'correct',
  arguments: {},
});

describe('paired tests of the (e) metrics', () => {
  it('pair only the samples executable in both runs, as the rates they test divide by them', () => {
    // Ten samples the baseline executes with a correct URL and the other run cannot execute,
    // two both execute with different URL verdicts: over all samples they were 10 + 1 discordant pairs.
    const pairs = [
      ...Array.from({ length: 10 }, () => [v('correct'), v('nonexecutable')] as const),
      [v('wrong', 'wrong'), v('correct')] as const,
      [v('correct'), v('wrong', 'wrong')] as const,
      [v('illegal', 'illegal'), v('correct')] as const,
    ];
    const t = pairedComparison(pairs);
    expect(t.urls_correct).toMatchObject({ both: 0, a_only: 1, b_only: 2, neither: 0 });
    expect(t.methods_correct).toMatchObject({ both: 3, a_only: 0, b_only: 0, neither: 0 });
    expect(t.samples_illegal).toMatchObject({ both: 0, a_only: 1, b_only: 0, neither: 2 });
    // The (t) outcomes still pair every shared sample.
    expect(t.samples_executable).toMatchObject({ both: 3, a_only: 10 });
    expect(t.samples_correct.a_only + t.samples_correct.b_only + t.samples_correct.both + t.samples_correct.neither).toBe(13);
    expect(PAIRED_STATISTIC.urls_correct).toBe('urls_correct_wrt_executable');
  });
});
