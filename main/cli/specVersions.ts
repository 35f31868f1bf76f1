import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Command } from 'commander';
import { unwrap, WapiiError } from '../api/result.js';
import { exportFlat, recheckSamples, samplesOnNovelEndpoints } from '../dataset/index.js';
import { describeChange, diffSpecs, type ApiSpec, type SpecDiff } from '../openapi/index.js';
import { loadDatasetInput, type DatasetInput } from './datasetInput.js';
import { writeFiles } from './files.js';
import type { CliIo } from './io.js';
import { loadSpecFile } from './specFolder.js';
import { formatTable } from './table.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A spec file through the loader every command uses (loadSpecFile: multi-file, Swagger 2.0 and 3.1 alike); the hash is of what was loaded. */
async function readSpec(file: string): Promise<{ spec: ApiSpec; sha256: string; file: string }> {
  const loaded = unwrap(await loadSpecFile(file));
  return { spec: loaded.spec, sha256: sha256(loaded.content), file: path.resolve(file) };
}

export function diffText(diff: SpecDiff): string {
  const lines = [
    ...diff.added.map((e) => `+ ${e}`),
    ...diff.removed.map((e) => `- ${e}`),
    ...diff.changed.flatMap((c) => [`~ ${c.endpoint}`, ...c.changes.map((x) => `    ${describeChange(x)}`)]),
  ];
  const summary = `${diff.added.length} endpoints added, ${diff.removed.length} removed, ${diff.changed.length} changed\n`;
  return lines.length > 0 ? `${lines.join('\n')}\n${summary}` : 'no difference in endpoints, parameters or body properties\n';
}

/** The API a new spec version is for: `--api`, else the dataset's only API. */
function apiOf(input: DatasetInput, api: string | undefined): string {
  const apis = [...input.specs.keys()];
  if (api !== undefined) {
    if (!input.specs.has(api)) throw new WapiiError('bad_input', `the dataset has no API \`${api}\` (it has: ${apis.join(', ')})`);
    return api;
  }
  if (apis.length !== 1) throw new WapiiError('bad_input', `the dataset covers ${apis.length} APIs (${apis.join(', ')}): name the one the new spec is for with --api`);
  return apis[0]!;
}

export function registerSpecVersionCommands(program: Command, io: CliIo): void {
  const db = (): string | undefined => program.opts<{ db?: string }>().db;

  program
    .command('spec-diff')
    .description('endpoints, parameters, body properties and types added, removed or changed from one version of a spec to the next')
    .argument('<old>', 'the earlier spec file')
    .argument('<new>', 'the later spec file')
    .option('--json', 'print {added, removed, changed: [{endpoint, changes: [{kind, location, name, before?, after?}]}]}')
    .action(async (oldFile: string, newFile: string, opts: { json?: boolean }) => {
      const diff = diffSpecs((await readSpec(oldFile)).spec, (await readSpec(newFile)).spec);
      io.stdout(opts.json ? JSON.stringify(diff, null, 2) + '\n' : diffText(diff));
    });

  program
    .command('spec-recheck')
    .description("check a dataset's samples against a new version of their API's spec: which break, and why")
    .requiredOption('--dataset <file|id|name>', 'a dataset file (with --specs) or a stored dataset')
    .option('--specs <dir>', 'spec folder for a dataset file (the version the dataset was written for)')
    .requiredOption('--spec <file>', 'the new version of the spec')
    .option('--api <api>', 'the API the new spec is for (default: the dataset\'s only API)')
    .option('--json', 'print [{index, endpoint, broken: [finding], fixed: [finding]}]')
    .action(async (opts: { dataset: string; specs?: string; spec: string; api?: string; json?: boolean }) => {
      const input = await loadDatasetInput(opts.dataset, opts.specs, db());
      const api = apiOf(input, opts.api);
      const next = await readSpec(opts.spec);
      const rechecked = recheckSamples(input.samples, api, input.specs.get(api)!, next.spec);
      if (opts.json) {
        io.stdout(JSON.stringify(rechecked, null, 2) + '\n');
        return;
      }
      const rows = rechecked.flatMap((r) => [
        ...r.broken.map((f) => [r.index, r.endpoint ?? '-', 'breaks', f.message]),
        ...r.fixed.map((f) => [r.index, r.endpoint ?? '-', 'fixed', f.message]),
      ]);
      const total = input.samples.filter((s) => s.api === api).length;
      if (rows.length > 0) io.stdout(formatTable(['#', 'endpoint (new)', '', 'finding'], rows, 100));
      io.stdout(`${rechecked.filter((r) => r.broken.length > 0).length} of ${total} ${api} samples break under ${path.basename(opts.spec)}; it fixes ${rechecked.filter((r) => r.fixed.length > 0).length}\n`);
    });

  program
    .command('spec-derive')
    .description('write a dataset of the samples on endpoints a new spec version adds or changes ("novel endpoints"), with its provenance')
    .requiredOption('--dataset <file|id|name>', 'a dataset file (with --specs) or a stored dataset')
    .option('--specs <dir>', 'spec folder for a dataset file (the version the dataset was written for)')
    .requiredOption('--spec <file>', 'the new version of the spec')
    .option('--api <api>', 'the API the new spec is for (default: the dataset\'s only API)')
    .requiredOption('--out <file.json>', 'the derived dataset (flat WAPIIBench list); its provenance goes beside it as <name>.provenance.json')
    .option('--json', 'print the provenance')
    .action(async (opts: { dataset: string; specs?: string; spec: string; api?: string; out: string; json?: boolean }) => {
      if (!opts.out.endsWith('.json')) throw new WapiiError('bad_input', `--out must name a .json file, not "${opts.out}"`);
      const input = await loadDatasetInput(opts.dataset, opts.specs, db());
      const api = apiOf(input, opts.api);
      const before = input.specs.get(api)!;
      const next = await readSpec(opts.spec);
      const diff = diffSpecs(before, next.spec);
      const derived = samplesOnNovelEndpoints(input.samples, api, before, next.spec, diff);
      const provenance = {
        rule: 'samples on endpoints the new spec version adds or changes',
        source: { dataset: datasetRef(opts.dataset), api, samples: derived.map((s) => s.index) },
        specs: { before: `${before.title} ${before.version}`, after: { file: next.file, sha256: next.sha256, version: `${next.spec.title} ${next.spec.version}` } },
        diff: { added: diff.added, changed: diff.changed.map((c) => c.endpoint) },
      };
      const provenanceFile = opts.out.replace(/\.json$/, '.provenance.json');
      unwrap(writeFiles(opts.out, { [path.basename(opts.out)]: exportFlat(derived.map((s) => ({ ...s, source: {} }))) }));
      unwrap(writeFiles(provenanceFile, { [path.basename(provenanceFile)]: JSON.stringify(provenance, null, 2) + '\n' }));
      io.stdout(opts.json ? JSON.stringify(provenance, null, 2) + '\n' : `wrote ${derived.length} samples on added or changed endpoints to ${opts.out} (provenance: ${provenanceFile})\n`);
    });
}

/** A dataset file's absolute path; a stored dataset's id or name as given. */
const datasetRef = (ref: string): string => (/\.json$/i.test(ref) ? path.resolve(ref) : ref);
