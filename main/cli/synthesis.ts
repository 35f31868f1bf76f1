import { Option, type Command } from 'commander';
import { WapiiError } from '../api/result.js';
import type { DatasetSummary } from '../api/schemas.js';
import { jobStatusText } from '../api/constants.js';
import type { SynthesisJob } from '../api/synthesis.js';
import { PROVIDER_NAMES, PROVIDERS } from '../providers/registry.js';

/** The providers whose answers can be held to a JSON Schema, as synthesis needs. */
const SYNTHESIS_PROVIDERS = PROVIDER_NAMES.filter((name) => PROVIDERS[name].capabilities.jsonSchema);
import { localClient, openWorkbench, type Workbench } from '../service/index.js';
import type { CliIo } from './io.js';
import { formatTable } from './table.js';
import { findStoredDataset } from './withService.js';

async function findDataset(wb: Workbench, ref: string): Promise<DatasetSummary> {
  const all = await localClient(wb.service).listDatasets({});
  const found = findStoredDataset(all, ref);
  if (!found) {
    const have = all.map((d) => `${d.id} "${d.name}"`).join(', ') || 'none; import one with `wapii import <file> --specs <dir>`';
    throw new WapiiError('not_found', `no dataset named or numbered "${ref}" (have: ${have})`);
  }
  return found;
}

const positiveInt = (name: string, value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new WapiiError('bad_input', `${name} must be an integer >= 1, not "${value}"`);
  return n;
};

/** `uncovered`, `all`, or `"PUT /a/{b}",GET /c` (commas split endpoints; a path holds none). */
function parseEndpoints(text: string): 'uncovered' | 'all' | string[] {
  const trimmed = text.trim();
  if (trimmed === 'uncovered' || trimmed === 'all') return trimmed;
  const list = trimmed.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = list.filter((s) => !/^[A-Za-z]+\s+\/\S*$/.test(s));
  if (list.length === 0 || bad.length > 0) throw new WapiiError('bad_input', `--endpoints takes uncovered, all, or "METHOD /path" entries separated by commas, not ${JSON.stringify(bad[0] ?? text)}`);
  return list;
}

export function describeJob(job: SynthesisJob): string {
  const { counts, usage } = job;
  const lines = [
    `synthesis job ${job.id} (${job.provider} ${job.model}) ${jobStatusText(job)}: ${counts.done} of ${counts.endpoints} ${job.settings.kind === 'chains' ? 'chains' : 'endpoints'} done, ${counts.samples} samples stored, ${counts.failed} failed${counts.pending ? `, ${counts.pending} not asked yet` : ''}`,
    `  ${usage.requests} requests, ${usage.retries} retries, ${usage.inputTokens} input + ${usage.outputTokens} output tokens, estimated cost $${job.costUsd.toFixed(4)}`,
  ];
  for (const e of job.endpoints.filter((x) => x.status === 'failed')) lines.push(`  failed ${e.api} ${e.endpoint}: ${e.failure}: ${e.message ?? ''}`);
  if (job.status === 'interrupted' || job.status === 'cancelled' || counts.failed > 0) lines.push(`  resume with: wapii synthesize --resume ${job.id}`);
  return lines.join('\n') + '\n';
}

/** `wapii coverage` and `wapii synthesize`: which endpoints a dataset covers, and filling the gaps. */
export function registerSynthesisCommands(program: Command, io: CliIo): void {
  const open = (): Workbench => openWorkbench({ db: program.opts<{ db?: string }>().db });

  program
    .command('coverage')
    .description('every endpoint of each API of a dataset with its number of samples; the uncovered ones listed')
    .argument('<dataset>', 'stored dataset name or id')
    .option('--api <api>', 'only this API')
    .option('--json', 'print {datasetId, apis: [{api, endpoints: [{method, path, key, samples}], covered, total, unmatched}]}')
    .action(async (ref: string, opts: { api?: string; json?: boolean }) => {
      using wb = open();
      const dataset = await findDataset(wb, ref);
      const coverage = await localClient(wb.service).getCoverage({ datasetId: dataset.id, ...(opts.api ? { api: opts.api } : {}) });
      if (opts.json) {
        io.stdout(JSON.stringify(coverage, null, 2) + '\n');
        return;
      }
      for (const api of coverage.apis) {
        io.stdout(`${api.api} (${api.specTitle}): ${api.covered} of ${api.total} endpoints covered${api.unmatched ? `, ${api.unmatched} samples match no endpoint` : ''}\n`);
        io.stdout(formatTable(['samples', 'endpoint', 'summary'], api.endpoints.map((e) => [e.samples, e.key, e.summary ?? ''])));
        const uncovered = api.endpoints.filter((e) => e.samples === 0);
        io.stdout(uncovered.length ? `uncovered: ${uncovered.map((e) => e.key).join(', ')}\n\n` : 'every endpoint has a sample\n\n');
      }
    });

  program
    .command('synthesize')
    .description('ask a model for samples of a dataset\'s endpoints (uncovered, all, or a list), or with --chains for multi-step samples; each is checked, run in the sandbox and stored as unreviewed')
    .option('--dataset <dataset>', 'stored dataset name or id')
    .option('--endpoints <which>', 'uncovered, all, or "METHOD /path" entries separated by commas (the spec\'s path template)', 'uncovered')
    .option('--api <api>', 'only endpoints of this API')
    .addOption(new Option('--provider <provider>', 'who writes the samples').choices([...SYNTHESIS_PROVIDERS]))
    .option('--model <model>', 'model name (gemini default: gemini-2.5-pro; a server: as it names the model); for local, the .gguf file')
    .option('--base-url <url>', 'the provider\'s endpoint, where it is not its own API (a server: e.g. http://127.0.0.1:8080; a proxy)')
    .option('--concurrency <n>', 'requests in flight at most', '4')
    .option('--batch-size <n>', 'endpoints asked for per request (default 8; local 1)')
    .option('--samples <n>', 'samples per endpoint (per chain with --chains)', '1')
    .option('--chains [n]', 'draft multi-step samples from chains (a field of one operation\'s response that is another\'s parameter): at most n per API, best first (default 10); --endpoints then picks the chains: uncovered (none of the dataset\'s multi-step samples follows it), all, or those with a named operation')
    .option('--resume <job>', 'continue a job that was cancelled, killed or had failures: ask again only for endpoints without stored samples')
    .option('--json', 'print the job as JSON')
    .action(async (opts: { dataset?: string; endpoints: string; api?: string; provider?: SynthesisJob['provider']; model?: string; baseUrl?: string; concurrency: string; batchSize?: string; samples: string; chains?: string | true; resume?: string; json?: boolean }) => {
      using wb = open();
      const client = localClient(wb.service);
      const unsubscribe = wb.service.onEvent((event) => {
        if (event.type === 'progress' && event.task.startsWith('synthesis job') && !opts.json) io.stderr(`${event.task}: ${event.done}/${event.total} requests\n`);
      });
      try {
        let job: SynthesisJob;
        if (opts.resume !== undefined) {
          job = await client.resumeSynthesis({ jobId: positiveInt('--resume', opts.resume) });
        } else {
          if (!opts.dataset) throw new WapiiError('bad_input', 'synthesize needs --dataset <name or id> (or --resume <job>)');
          if (!opts.provider) throw new WapiiError('bad_input', `synthesize needs --provider (${SYNTHESIS_PROVIDERS.join(', ')})`);
          const dataset = await findDataset(wb, opts.dataset);
          job = await client.synthesize({
            datasetId: dataset.id,
            endpoints: parseEndpoints(opts.endpoints),
            provider: opts.provider,
            ...(opts.api ? { api: opts.api } : {}),
            ...(opts.model ? { model: opts.model } : {}),
            ...(opts.baseUrl ? { baseUrl: opts.baseUrl } : {}),
            concurrency: positiveInt('--concurrency', opts.concurrency),
            ...(opts.batchSize ? { batchSize: positiveInt('--batch-size', opts.batchSize) } : {}),
            samplesPerEndpoint: positiveInt('--samples', opts.samples),
            ...(opts.chains !== undefined ? { kind: 'chains' as const, ...(opts.chains !== true ? { maxChains: positiveInt('--chains', opts.chains) } : {}) } : {}),
          });
        }
        if (!opts.json) io.stderr(`synthesis job ${job.id}: asking ${job.provider} ${job.model} for ${job.counts.pending + job.counts.failed} ${job.settings.kind === 'chains' ? 'chains' : 'endpoints'}\n`);
        // Ctrl-C: stop asking; what is stored stays, the rest is asked for by --resume.
        const cancel = (): void => void client.cancelSynthesis({ jobId: job.id }).catch(() => undefined);
        io.signal?.addEventListener('abort', cancel, { once: true });
        await wb.service.settle();
        io.signal?.removeEventListener('abort', cancel);
        const final = await client.getSynthesisJob({ jobId: job.id });
        io.stdout(opts.json ? JSON.stringify(final, null, 2) + '\n' : describeJob(final));
      } finally {
        unsubscribe();
      }
    });
}
