import { measureRecall, PLAIN_BM25, TUNED_BM25, type RecallReport } from '../main/retrieval/index.js';
import { loadWapiiBench } from '../test/support/wapiibench.js';
import { fmt } from './stats.js';

/**
 * Endpoint retrieval on WAPIIBench: recall@1/5/10 of the expected endpoint among its API's
 * endpoints, from the task text alone, for plain BM25 (MiniSearch's defaults, one unboosted
 * analyzer) and the workbench's tuned index, side by side, overall and per API.
 */
export async function benchRetrieval(): Promise<void> {
  const { samples, specs } = await loadWapiiBench();
  const input = samples.map((s, index) => ({ index, api: s.api, task: s.task, config: s.config }));
  const reports: { report: RecallReport; ms: number }[] = [PLAIN_BM25, TUNED_BM25].map((config) => {
    const t0 = performance.now();
    const report = measureRecall(input, specs, config);
    return { report, ms: performance.now() - t0 };
  });
  console.log(`\n## Endpoint retrieval (WAPIIBench, ${input.length} samples)\n`);
  console.log('| API | samples | retriever | recall@1 | recall@5 | recall@10 |');
  console.log('|---|---|---|---|---|---|');
  const apis = Object.keys(reports[0]?.report.per_api ?? {});
  for (const api of ['all', ...apis]) {
    for (const { report } of reports) {
      const r = api === 'all' ? { ...report.recall, samples: report.samples.length } : report.per_api[api];
      if (!r) continue;
      console.log(`| ${api} | ${r.samples} | ${report.retriever} | ${fmt(r['1'], 3)} | ${fmt(r['5'], 3)} | ${fmt(r['10'], 3)} |`);
    }
  }
  console.log(`\nindex build + ${input.length} queries: ${reports.map(({ report, ms }) => `${report.retriever} ${fmt(ms, 0)} ms`).join(', ')}`);
}
