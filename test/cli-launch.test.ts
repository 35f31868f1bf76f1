import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { builtCli } from '../bin/built.mjs';
import { describeCommand, helpTarget, restoreCommand } from '../bin/help.mjs';
import { buildProgram } from '../main/cli/program.js';
import { REPO_ROOT, tempDir } from './support/paths.js';

const run = promisify(execFile);
const quiet = { stdout: () => undefined, stderr: () => undefined };

function everyCommand(command: Command, trail: string[] = []): { trail: string[]; command: Command }[] {
  return [{ trail, command }, ...command.commands.flatMap((c) => everyCommand(c, [...trail, c.name()]))];
}

function helpAt(command: Command, width: number): string {
  command.configureOutput({ getOutHelpWidth: () => width });
  return command.helpInformation();
}

describe('wapii --help from the build manifest (bin/help.mjs)', () => {
  it('prints the same help as the real program for every command, at any width', () => {
    const live = buildProgram(quiet);
    // Through JSON, as the build writes it to out/cli/help.json.
    const restored = restoreCommand(JSON.parse(JSON.stringify(describeCommand(live))));
    const commands = everyCommand(live);
    expect(commands.length).toBeGreaterThan(20);
    for (const { trail, command } of commands) {
      const twin = helpTarget(restored, [...trail, '--help']);
      expect(twin, trail.join(' ')).toBeDefined();
      for (const width of [80, 200]) expect(helpAt(twin as Command, width), `${trail.join(' ')} at ${width}`).toBe(helpAt(command, width));
    }
  });

  it('answers only requests for help alone; anything else goes to the real CLI', () => {
    const root = restoreCommand(describeCommand(buildProgram(quiet)));
    expect(helpTarget(root, ['--help'])?.name()).toBe('wapii');
    expect(helpTarget(root, ['-h'])?.name()).toBe('wapii');
    expect(helpTarget(root, ['help'])?.name()).toBe('wapii');
    expect(helpTarget(root, ['help', 'import'])?.name()).toBe('import');
    expect(helpTarget(root, ['constraints', 'check', '--help'])?.name()).toBe('check');
    expect(helpTarget(root, ['import', 'x.json', '--help'])).toBeUndefined();
    expect(helpTarget(root, ['--db', 'x.db', '--help'])).toBeUndefined();
    expect(helpTarget(root, ['nonsense', '--help'])).toBeUndefined();
    expect(helpTarget(root, ['list'])).toBeUndefined();
    expect(helpTarget(root, [])).toBeUndefined();
  });

  it('bin/wapii.mjs prints that help, built or not', async () => {
    const { stdout } = await run(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), 'constraints', '--help']);
    const live = helpTarget(buildProgram(quiet), ['constraints', '--help']) as Command;
    expect(stdout).toBe(helpAt(live, 80));
  });
});

describe('which CLI bin/wapii.mjs starts (bin/built.mjs)', () => {
  function fakeRepo(builtFrom: number): string {
    const root = tempDir('wapii-built-');
    fs.mkdirSync(path.join(root, 'out', 'cli'), { recursive: true });
    fs.mkdirSync(path.join(root, 'main', 'cli'), { recursive: true });
    fs.writeFileSync(path.join(root, 'out', 'cli', 'index.js'), '');
    fs.writeFileSync(path.join(root, 'out', 'cli', 'help.json'), JSON.stringify({ builtFrom, program: {} }));
    fs.writeFileSync(path.join(root, 'main', 'cli', 'index.ts'), '');
    fs.writeFileSync(path.join(root, 'main', 'cli', 'index.test.ts'), '');
    return root;
  }
  const touch = (file: string, ms: number): void => fs.utimesSync(file, ms / 1000, ms / 1000);

  it('takes the build when no source is newer than its start', () => {
    const start = Date.now();
    const root = fakeRepo(start);
    touch(path.join(root, 'main', 'cli', 'index.ts'), start - 60_000);
    touch(path.join(root, 'main', 'cli', 'index.test.ts'), start + 60_000);
    for (const dir of ['main', 'main/cli']) touch(path.join(root, dir), start - 60_000);
    expect(builtCli(root)?.entry).toBe(path.join(root, 'out', 'cli', 'index.js'));
  });

  it('falls back to the sources when one changed after the build began, or the build is incomplete', () => {
    const start = Date.now();
    const root = fakeRepo(start);
    touch(path.join(root, 'main', 'cli', 'index.ts'), start + 1_000);
    expect(builtCli(root)).toBeUndefined();
    touch(path.join(root, 'main', 'cli', 'index.ts'), start - 60_000);
    for (const dir of ['main', 'main/cli']) touch(path.join(root, dir), start - 60_000);
    expect(builtCli(root)).toBeDefined();
    // A source removed after the build leaves no newer file, only its folder's time.
    fs.rmSync(path.join(root, 'main', 'cli', 'index.test.ts'));
    expect(builtCli(root)).toBeUndefined();
    touch(path.join(root, 'main', 'cli'), start - 60_000);
    expect(builtCli(root)).toBeDefined();
    fs.rmSync(path.join(root, 'out', 'cli', 'help.json'));
    expect(builtCli(root)).toBeUndefined();
  });
});
