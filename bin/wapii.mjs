#!/usr/bin/env node
// The `wapii` command. After `npm run build` it starts the bundled JavaScript in out/cli, and
// answers a request for help from the manifest beside it without loading the engine at all.
// Without a build, or once a source is newer than the build, it runs the TypeScript through tsx
// (development), so the command always matches the source it ships with; WAPII_CLI_SOURCE=1 asks
// for the sources even beside a fresh build.
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { builtCli } from './built.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = process.env['WAPII_CLI_SOURCE'] === '1' ? undefined : builtCli(root);
const argv = process.argv.slice(2);

const asksHelp = argv[0] === 'help' || argv.includes('--help') || argv.includes('-h');

if (built) {
  const help = asksHelp ? await import('./help.mjs') : undefined;
  const target = help?.helpTarget(help.restoreCommand(built.manifest.program), argv);
  if (target) target.outputHelp();
  else await import(pathToFileURL(built.entry).href);
} else {
  const tsx = await import('tsx/esm/api').catch(() => undefined);
  if (!tsx) {
    process.stderr.write('wapii: out/cli holds no build as new as the sources, and tsx (which runs the sources) is not installed: run `npm run build`\n');
    process.exit(1);
  }
  tsx.register();
  await import('../main/cli/index.ts');
}
