import type { RequestConfig, Sample, SampleFilter } from '../api/schemas.js';

/** The requests a sample expects: a multi-step sample's every step, else its one config. */
function requestsOf(s: Pick<Sample, 'config' | 'fields'>): readonly Pick<RequestConfig, 'method'>[] {
  const steps = s.fields?.['steps'];
  return Array.isArray(steps) ? steps.flatMap((step) => (step && typeof step === 'object' && !Array.isArray(step) && step['config'] && typeof step['config'] === 'object' && !Array.isArray(step['config']) ? [step['config'] as unknown as Pick<RequestConfig, 'method'>] : [])) : [s.config];
}

/**
 * Samples matching every given criterion; `text` searches the task and the expected requests,
 * case-insensitively; `method` matches any of a multi-step sample's steps; `requests` keeps the
 * single-request or the multi-step samples.
 */
export function filterSamples<S extends Pick<Sample, 'api' | 'task' | 'config' | 'reviewState' | 'checkStatus' | 'fields'>>(samples: readonly S[], filter: SampleFilter): S[] {
  const text = filter.text?.trim().toLowerCase();
  const method = filter.method?.toLowerCase();
  return samples.filter((s) => {
    const multi = s.fields?.['steps'] !== undefined;
    return (
      (!filter.api || s.api === filter.api) &&
      (!method || requestsOf(s).some((r) => String(r.method).toLowerCase() === method)) &&
      (!filter.reviewState || s.reviewState === filter.reviewState) &&
      (!filter.checkStatus || s.checkStatus === filter.checkStatus) &&
      (!filter.requests || (filter.requests === 'several') === multi) &&
      (!text || s.task.toLowerCase().includes(text) || JSON.stringify(multi ? s.fields?.['steps'] : s.config).toLowerCase().includes(text))
    );
  });
}
