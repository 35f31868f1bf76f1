import path from 'node:path';
import type { Command } from 'commander';
import { unwrap } from '../api/result.js';
import { readFileInput } from './files.js';
import type { CliIo } from './io.js';
import { readSpecFile } from './specFolder.js';
import { withService } from './withService.js';

export function registerConstraintCommands(program: Command, io: CliIo): void {
  const constraints = program.command('constraints').description('the constraint language compiled from an OpenAPI spec');
  constraints
    .command('check')
    .description('is each file accepted by the spec\'s constraints? else the offset (0-based) after which no legal continuation exists')
    .requiredOption('--spec <file>', 'OpenAPI 3.0/3.1 or Swagger 2.0 spec (YAML or JSON; relative $refs to files beside it are bundled, as import does)')
    .option('--json', 'print [{file, accepted, offset?, reason?}]')
    .argument('<files...>', 'JavaScript files (starter code + completion; the task\'s call is checked, see constraints.md)')
    .action(async (files: string[], opts: { spec: string; json?: boolean }) => {
      const spec = unwrap(await readSpecFile(opts.spec));
      const programs = files.map((file) => unwrap(readFileInput(file)).content);
      const checked = await withService(null, (client) => client.checkConstraints({ spec, programs }));
      const results = checked.map((r, i) => ({ file: files[i]!, ...r }));
      if (opts.json) io.stdout(JSON.stringify(results, null, 2) + '\n');
      else for (const r of results) io.stdout(r.accepted ? `${path.basename(r.file)}: accepted\n` : `${path.basename(r.file)}: rejected at offset ${r.offset}: ${r.reason}\n`);
    });
  constraints
    .command('gbnf')
    .description('print the constraints as a GBNF grammar for llama.cpp (a relaxation: see its header)')
    .requiredOption('--spec <file>', 'OpenAPI 3.0/3.1 or Swagger 2.0 spec (YAML or JSON; relative $refs to files beside it are bundled)')
    .option('--names <names>', 'comma-separated names the code declares before the call, which values may reference (default: none, only process.env)')
    .action(async (opts: { spec: string; names?: string }) => {
      const names = (opts.names ?? '').split(',').map((n) => n.trim()).filter((n) => n !== '');
      const spec = unwrap(await readSpecFile(opts.spec));
      io.stdout((await withService(null, (client) => client.exportGbnf({ spec, names }))).grammar);
    });
}
