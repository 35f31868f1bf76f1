import fs from 'node:fs';
import type { FileInput } from '../../main/api/contract.js';
import { DEMO_DATASET } from './paths.js';

/** The endpoints the demo's first 21 samples leave without a sample (spec order). */
export const UNCOVERED_BY_SUBSET = [
  'GET /carriers',
  'GET /carriers/{carrier_code}/rates',
  'GET /webhooks',
  'POST /webhooks',
  'DELETE /webhooks/{webhook_id}',
  'POST /reports',
  'GET /reports/{report_id}',
];

/** The demo dataset cut to its first 21 samples: 15 of the 22 endpoints of the Harbor spec covered. */
export function demoSubset(): FileInput {
  const all = JSON.parse(fs.readFileSync(DEMO_DATASET, 'utf8')) as unknown[];
  return { filename: 'subset.json', content: JSON.stringify(all.slice(0, 21)) };
}

/**
 * A sample per uncovered endpoint, as a good model would write it: the demo's own samples 21–27
 * without the `Accept` header Axios adds (the workbench adds it back when storing).
 */
export function answersForUncovered(): Map<string, { task: string; config: Record<string, unknown> }> {
  const all = JSON.parse(fs.readFileSync(DEMO_DATASET, 'utf8')) as { task: string; config: { headers?: Record<string, string> } & Record<string, unknown> }[];
  return new Map(
    all.slice(21, 28).map((s, i) => {
      const { Accept: _accept, ...headers } = s.config.headers ?? {};
      return [UNCOVERED_BY_SUBSET[i] ?? '', { task: s.task, config: { ...s.config, headers } }];
    }),
  );
}
