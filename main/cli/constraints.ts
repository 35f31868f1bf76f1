import path from 'node:path';
import type { Command } from 'commander';
import { unwrap } from '../api/result.js';
import { ConstraintMatcher, declaredNames, exportGbnf } from '../constraints/index.js';
import { loadSpec } from '../openapi/index.js';
import { readFileInput } from './files.js';
import type { CliIo } from './io.js';

interface CheckedFile {
  readonly file: string;
  readonly accepted: boolean;
  readonly offset?: number;
  readonly reason?: string;
}

export function registerConstraintCommands(program: Command, io: CliIo): void {
  const constraints = program.command('constraints').description('the constraint language compiled from an OpenAPI spec');
  constraints
    .command('check')
    .description('is each file accepted by the spec\'s constraints? else the offset (0-based) after which no legal continuation exists')
    .requiredOption('--spec <file>', 'OpenAPI spec (YAML or JSON)')
    .option('--json', 'print [{file, accepted, offset?, reason?}]')
    .argument('<files...>', 'JavaScript files (starter code + completion)')
    .action(async (files: string[], opts: { spec: string; json?: boolean }) => {
      const specFile = unwrap(readFileInput(opts.spec));
      const spec = unwrap(await loadSpec(specFile.content, specFile.filename));
      const results: CheckedFile[] = files.map((file) => {
        const text = unwrap(readFileInput(file)).content;
        // Values may reference what the code declares before its first call.
        const first = text.indexOf('axios.');
        const matcher = ConstraintMatcher.create(spec, declaredNames(first < 0 ? text : text.slice(0, first)));
        const fed = matcher.feed(text);
        if (!fed.ok) return { file, accepted: false, offset: fed.offset, reason: fed.reason };
        if (!matcher.isComplete()) return { file, accepted: false, offset: text.length, reason: 'the file ends inside an invocation' };
        return { file, accepted: true };
      });
      if (opts.json) io.stdout(JSON.stringify(results, null, 2) + '\n');
      else for (const r of results) io.stdout(r.accepted ? `${path.basename(r.file)}: accepted\n` : `${path.basename(r.file)}: rejected at offset ${r.offset}: ${r.reason}\n`);
    });
  constraints
    .command('gbnf')
    .description('print the constraints as a GBNF grammar for llama.cpp (a relaxation: see its header)')
    .requiredOption('--spec <file>', 'OpenAPI spec (YAML or JSON)')
    .option('--names <names>', 'comma-separated names the code declares before the call, which values may reference (default: none, only process.env)')
    .action(async (opts: { spec: string; names?: string }) => {
      const specFile = unwrap(readFileInput(opts.spec));
      const names = (opts.names ?? '').split(',').map((n) => n.trim()).filter((n) => n !== '');
      io.stdout(exportGbnf(unwrap(await loadSpec(specFile.content, specFile.filename)), names));
    });
}
