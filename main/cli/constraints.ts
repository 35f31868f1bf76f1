import path from 'node:path';
import type { Command } from 'commander';
import { unwrap } from '../api/result.js';
import { ConstraintMatcher, exportGbnf } from '../constraints/index.js';
import { readFileInput } from './files.js';
import type { CliIo } from './io.js';
import { loadSpecFile } from './specFolder.js';

interface CheckedFile {
  readonly file: string;
  readonly accepted: boolean;
  readonly offset?: number;
  readonly reason?: string;
}

const CALL = /\baxios\./g;

/** Offsets of every `axios.` in the text, from `from` on. */
function callsFrom(text: string, from: number): number[] {
  CALL.lastIndex = from;
  return [...text.matchAll(CALL)].map((m) => m.index).filter((i) => i >= from);
}

/** Whether the nearest non-blank line before the line holding `offset` is a `//` comment. */
function followsComment(text: string, offset: number): boolean {
  const lines = text.slice(0, text.lastIndexOf('\n', offset - 1) + 1).split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line !== '') return line.startsWith('//');
  }
  return false;
}

/**
 * Where the task's call starts in a program of starter code and completion. A real-world starter
 * may call Axios before the task (`axios.all([...])`, a rate-limit probe), so not at its first
 * `axios.`: at the first one after the `{task}` comment line where the placeholder is still there,
 * else at the first one right below a `//` comment line (the task's comment, filled in, as every
 * starter writes it), else at the first one.
 */
export function taskCallStart(text: string): number {
  const placeholder = text.indexOf('{task}');
  if (placeholder >= 0) {
    const lineEnd = text.indexOf('\n', placeholder);
    const after = callsFrom(text, lineEnd < 0 ? text.length : lineEnd)[0];
    if (after !== undefined) return after;
  }
  const calls = callsFrom(text, 0);
  return calls.find((offset) => followsComment(text, offset)) ?? calls[0] ?? text.length;
}

export function registerConstraintCommands(program: Command, io: CliIo): void {
  const constraints = program.command('constraints').description('the constraint language compiled from an OpenAPI spec');
  constraints
    .command('check')
    .description('is each file accepted by the spec\'s constraints? else the offset (0-based) after which no legal continuation exists')
    .requiredOption('--spec <file>', 'OpenAPI 3.0/3.1 or Swagger 2.0 spec (YAML or JSON; relative $refs to files beside it are bundled, as import does)')
    .option('--json', 'print [{file, accepted, offset?, reason?}]')
    .argument('<files...>', 'JavaScript files (starter code + completion; the task\'s call is checked, see constraints.md)')
    .action(async (files: string[], opts: { spec: string; json?: boolean }) => {
      const { spec } = unwrap(await loadSpecFile(opts.spec));
      const results: CheckedFile[] = files.map((file) => {
        const text = unwrap(readFileInput(file)).content;
        // What the code declares in scope at the task's call is what values may reference; calls before it are context.
        const { matcher, fed } = ConstraintMatcher.forSetup(spec, { starter: text, callStart: taskCallStart(text), definitions: {} });
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
    .requiredOption('--spec <file>', 'OpenAPI 3.0/3.1 or Swagger 2.0 spec (YAML or JSON; relative $refs to files beside it are bundled)')
    .option('--names <names>', 'comma-separated names the code declares before the call, which values may reference (default: none, only process.env)')
    .action(async (opts: { spec: string; names?: string }) => {
      const names = (opts.names ?? '').split(',').map((n) => n.trim()).filter((n) => n !== '');
      io.stdout(exportGbnf(unwrap(await loadSpecFile(opts.spec)).spec, names));
    });
}
