import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { demoSubset } from '../../test/support/demoSubset.js';
import { errorReply, startGeminiStandIn } from '../../test/support/geminiStandIn.js';
import { DEMO_SPECS, tempDir } from '../../test/support/paths.js';
import type { WorkbenchApi } from '../api/contract.js';
import { Store } from '../store/index.js';
import { environmentKeys } from './apiKeys.js';
import { localClient, readDemo, WorkbenchService } from './index.js';

const KEY = 'AIzaSyStandInKey-0123456789-RETRY';
const MODEL = 'gemini-2.5-pro';
const demo = readDemo(path.dirname(DEMO_SPECS));

/**
 * Issue 38 item 6: a job whose requests fail and wait for their retry says why while it waits,
 * not only once it has given up or been cancelled.
 */
describe('a synthesis job waiting for a retry', () => {
  let store: Store;
  let service: WorkbenchService;
  let client: WorkbenchApi;
  let standIn: Awaited<ReturnType<typeof startGeminiStandIn>>;

  beforeEach(async () => {
    const opened = Store.open(path.join(tempDir('wapii-synth-retry-'), 'wapii.db'));
    if (!opened.ok) throw new Error(opened.error.message);
    store = opened.value;
    // A long backoff: the job is still waiting for its first retry when the test looks.
    service = new WorkbenchService({ store, author: 'tester', apiKeys: environmentKeys({ GEMINI_API_KEY: KEY }), synthesisRetry: { retries: 5, minDelayMs: 60_000, maxDelayMs: 60_000, maxRetryAfterMs: 60_000 }, log: () => undefined });
    client = localClient(service);
    standIn = await startGeminiStandIn({ key: KEY, model: MODEL, respond: () => errorReply(503, 'The model is overloaded. Please try again later.') });
  });
  afterEach(async () => {
    await service.settle();
    await standIn.close();
    store.close();
  });

  it('shows the last error while the retry waits, and drops it once the job has stopped', async () => {
    const datasetId = (await client.importDataset({ name: 'subset', dataset: demoSubset(), specs: demo.specs })).id;
    const job = await client.synthesize({ datasetId, provider: 'gemini', baseUrl: standIn.url, concurrency: 1, wait: false });
    for (let i = 0; i < 500 && (await client.getSynthesisJob({ jobId: job.id })).usage.retries === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const waiting = await client.getSynthesisJob({ jobId: job.id });
    expect(waiting).toMatchObject({ status: 'running', usage: { retries: 1 } });
    expect(waiting.lastRetry?.message).toMatch(/503/);
    expect(waiting.lastRetry?.message).toContain('The model is overloaded');
    expect(Date.parse(waiting.lastRetry!.at)).not.toBeNaN();
    expect((await client.listSynthesisJobs({ datasetId })).find((j) => j.id === job.id)?.lastRetry).toEqual(waiting.lastRetry);
    await client.cancelSynthesis({ jobId: job.id });
    await service.settle();
    expect((await client.getSynthesisJob({ jobId: job.id })).lastRetry).toBeUndefined();
  }, 30_000);
});
