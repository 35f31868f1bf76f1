import type { Sample } from '../api/schemas.js';
import { resolveEndpoint, type ApiSpec, type Endpoint } from '../openapi/index.js';

/** `GET /shipments/{shipment_id}`: how an endpoint is named in the UI, the CLI and filters. */
export const endpointKey = (endpoint: Pick<Endpoint, 'method' | 'path'>): string => `${endpoint.method.toUpperCase()} ${endpoint.path}`;

/** The key of the endpoint a sample's expected request resolves to, if it resolves. */
export function sampleEndpointKey(spec: ApiSpec | undefined, sample: Pick<Sample, 'config'>): string | undefined {
  const endpoint = spec ? resolveEndpoint(spec, sample.config.url, sample.config.method).endpoint : undefined;
  return endpoint ? endpointKey(endpoint) : undefined;
}

export interface EndpointCoverage {
  readonly method: string;
  readonly path: string;
  readonly key: string;
  readonly summary?: string;
  readonly operationId?: string;
  readonly samples: number;
}

export interface ApiCoverage {
  readonly api: string;
  readonly specTitle: string;
  readonly endpoints: EndpointCoverage[];
  readonly covered: number;
  readonly total: number;
  /** Samples whose expected request matches no endpoint of the spec (the checks flag them). */
  readonly unmatched: number;
}

/** Every endpoint of a spec with the number of samples whose expected request resolves to it, in spec order. */
export function apiCoverage(api: string, spec: ApiSpec, samples: readonly Pick<Sample, 'api' | 'config'>[]): ApiCoverage {
  const counts = new Map<string, number>();
  let unmatched = 0;
  for (const sample of samples) {
    if (sample.api !== api) continue;
    const key = sampleEndpointKey(spec, sample);
    if (key === undefined) unmatched++;
    else counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const endpoints = spec.endpoints.map((e) => {
    const key = endpointKey(e);
    return {
      method: e.method.toUpperCase(),
      path: e.path,
      key,
      ...(e.summary ? { summary: e.summary } : {}),
      ...(e.operationId ? { operationId: e.operationId } : {}),
      samples: counts.get(key) ?? 0,
    };
  });
  return { api, specTitle: spec.title, endpoints, covered: endpoints.filter((e) => e.samples > 0).length, total: endpoints.length, unmatched };
}
