import type { Sample, SampleFilter } from '../api/schemas.js';

/** Samples matching every given criterion; `text` searches the task and the expected request, case-insensitively. */
export function filterSamples<S extends Pick<Sample, 'api' | 'task' | 'config' | 'reviewState' | 'checkStatus'>>(samples: readonly S[], filter: SampleFilter): S[] {
  const text = filter.text?.trim().toLowerCase();
  const method = filter.method?.toLowerCase();
  return samples.filter(
    (s) =>
      (!filter.api || s.api === filter.api) &&
      (!method || s.config.method.toLowerCase() === method) &&
      (!filter.reviewState || s.reviewState === filter.reviewState) &&
      (!filter.checkStatus || s.checkStatus === filter.checkStatus) &&
      (!text || s.task.toLowerCase().includes(text) || JSON.stringify(s.config).toLowerCase().includes(text)),
  );
}
