import type { Finding, RequestConfig } from '../api/schemas.js';
import { endpointKey, resolveEndpoint, type ApiSpec, type SpecDiff } from '../openapi/index.js';
import { checkRequest } from './checks.js';

interface VersionedSample {
  readonly index: number;
  readonly api: string;
  readonly task: string;
  readonly config: RequestConfig;
}

export interface SampleRecheck {
  readonly index: number;
  /** The sample's endpoint under the new version (`GET /warehouses`), or null when its URL names none there. */
  readonly endpoint: string | null;
  /** Findings under the new version that the old one did not have: why the sample breaks. */
  readonly broken: readonly Finding[];
  /** Findings under the old version that the new one no longer has. */
  readonly fixed: readonly Finding[];
}

/**
 * Checks a dataset's samples of one API against two versions of its spec (the checks of
 * `wapii check`) and keeps the samples whose findings differ: those that break under the new
 * version, with the findings that say why, and those the new version fixes.
 */
export function recheckSamples(samples: readonly VersionedSample[], api: string, before: ApiSpec, after: ApiSpec): SampleRecheck[] {
  const out: SampleRecheck[] = [];
  for (const s of samples) {
    if (s.api !== api) continue;
    const old = checkRequest(before, s.config);
    const now = checkRequest(after, s.config);
    const messages = (list: readonly Finding[]): Set<string> => new Set(list.map((f) => f.message));
    const [oldMessages, newMessages] = [messages(old), messages(now)];
    const broken = now.filter((f) => !oldMessages.has(f.message));
    const fixed = old.filter((f) => !newMessages.has(f.message));
    if (broken.length === 0 && fixed.length === 0) continue;
    const endpoint = resolveEndpoint(after, s.config.url, s.config.method).endpoint;
    out.push({ index: s.index, endpoint: endpoint ? endpointKey(endpoint) : null, broken, fixed });
  }
  return out;
}

/**
 * The samples of one API on endpoints the new version adds or changes ("novel endpoints"): a
 * sample's endpoint is the one its request resolves to under the new version, else under the old.
 */
export function samplesOnNovelEndpoints<S extends VersionedSample>(samples: readonly S[], api: string, before: ApiSpec, after: ApiSpec, diff: SpecDiff): S[] {
  const novel = new Set([...diff.added, ...diff.changed.map((c) => c.endpoint)]);
  return samples.filter((s) => {
    if (s.api !== api) return false;
    const endpoint = resolveEndpoint(after, s.config.url, s.config.method).endpoint ?? resolveEndpoint(before, s.config.url, s.config.method).endpoint;
    return endpoint !== undefined && novel.has(endpointKey(endpoint));
  });
}
