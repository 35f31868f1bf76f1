import { createHash } from 'node:crypto';
import path from 'node:path';
import type { Command } from 'commander';
import type { FileInput } from '../api/contract.js';
import type { SpecDiffValue } from '../api/fileTools.js';
import { unwrap, WapiiError } from '../api/result.js';
import { datasetSource, isDatasetFile } from './datasetInput.js';
import { writeFiles } from './files.js';
import type { CliIo } from './io.js';
import { readSpecFile } from './specFolder.js';
import { formatTable } from './table.js';
import { withService } from './withService.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A spec file through the reader every command uses (readSpecFile: multi-file, bundled); the service loads it (Swagger 2.0 and 3.1 alike). The hash is of what is loaded. */
async function readSpec(file: string): Promise<{ spec: FileInput; sha256: string; file: string }> {
  const read = unwrap(await readSpecFile(file));
  return { spec: read, sha256: sha256(read.content), file: path.resolve(file) };
}

export function diffText(diff: SpecDiffValue): string {
  const lines = [
    ...diff.added.map((e) => `+ ${e}`),
    ...diff.removed.map((e) => `- ${e}`),
    ...diff.changed.flatMap((c) => [`~ ${c.endpoint}`, ...c.changes.map((x) => `    ${x.text}`)]),
  ];
  const summary = `${diff.added.length} endpoints added, ${diff.removed.length} removed, ${diff.changed.length} changed\n`;
  return lines.length > 0 ? `${lines.join('\n')}\n${summary}` : 'no difference in endpoints, parameters or body properties\n';
}

export function registerSpecVersionCommands(program: Command, io: CliIo): void {
  // A command on a dataset file opens no database.
  const db = (dataset: string): string | undefined | null => (isDatasetFile(dataset) ? null : program.opts<{ db?: string }>().db);

  program
    .command('spec-diff')
    .description('endpoints, parameters, body properties and types added, removed or changed from one version of a spec to the next')
    .argument('<old>', 'the earlier spec file')
    .argument('<new>', 'the later spec file')
    .option('--json', 'print {added, removed, changed: [{endpoint, changes: [{kind, location, name, before?, after?}]}]}')
    .action(async (oldFile: string, newFile: string, opts: { json?: boolean }) => {
      const [before, after] = [(await readSpec(oldFile)).spec, (await readSpec(newFile)).spec];
      const diff = await withService(null, (client) => client.diffSpecs({ before, after }));
      // `--json` has always printed the changes without their line of text.
      const json = { added: diff.added, removed: diff.removed, changed: diff.changed.map((c) => ({ endpoint: c.endpoint, changes: c.changes.map(({ text: _text, ...change }) => change) })) };
      io.stdout(opts.json ? JSON.stringify(json, null, 2) + '\n' : diffText(diff));
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
      const { api, samples, rechecked } = await withService(db(opts.dataset), async (client) => {
        const source = await datasetSource(opts.dataset, opts.specs, client);
        return client.recheckSpecVersion({ source, spec: (await readSpec(opts.spec)).spec, ...(opts.api !== undefined ? { api: opts.api } : {}) });
      });
      if (opts.json) {
        io.stdout(JSON.stringify(rechecked, null, 2) + '\n');
        return;
      }
      const rows = rechecked.flatMap((r) => [
        ...r.broken.map((f) => [r.index, r.endpoint ?? '-', 'breaks', f.message]),
        ...r.fixed.map((f) => [r.index, r.endpoint ?? '-', 'fixed', f.message]),
      ]);
      if (rows.length > 0) io.stdout(formatTable(['#', 'endpoint (new)', '', 'finding'], rows, 100));
      io.stdout(`${rechecked.filter((r) => r.broken.length > 0).length} of ${samples} ${api} samples break under ${path.basename(opts.spec)}; it fixes ${rechecked.filter((r) => r.fixed.length > 0).length}\n`);
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
      const { derived, next } = await withService(db(opts.dataset), async (client) => {
        const source = await datasetSource(opts.dataset, opts.specs, client);
        const read = await readSpec(opts.spec);
        return { derived: await client.deriveSpecVersion({ source, spec: read.spec, ...(opts.api !== undefined ? { api: opts.api } : {}) }), next: read };
      });
      const provenance = {
        rule: 'samples on endpoints the new spec version adds or changes',
        source: { dataset: datasetRef(opts.dataset), api: derived.api, samples: derived.samples },
        specs: { before: `${derived.before.title} ${derived.before.version}`, after: { file: next.file, sha256: next.sha256, version: `${derived.after.title} ${derived.after.version}` } },
        diff: derived.diff,
      };
      const provenanceFile = opts.out.replace(/\.json$/, '.provenance.json');
      unwrap(writeFiles(opts.out, { [path.basename(opts.out)]: derived.dataset }));
      unwrap(writeFiles(provenanceFile, { [path.basename(provenanceFile)]: JSON.stringify(provenance, null, 2) + '\n' }));
      io.stdout(opts.json ? JSON.stringify(provenance, null, 2) + '\n' : `wrote ${derived.samples.length} samples on added or changed endpoints to ${opts.out} (provenance: ${provenanceFile})\n`);
    });
}

/** A dataset file's absolute path; a stored dataset's id or name as given. */
const datasetRef = (ref: string): string => (/\.json$/i.test(ref) ? path.resolve(ref) : ref);
