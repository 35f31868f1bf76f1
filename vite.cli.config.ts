import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

// The `wapii` command bundled for Node (`npm run build`), so that bin/wapii.mjs starts plain
// JavaScript instead of transpiling the TypeScript through tsx at every start. Packages stay
// outside the bundle (node_modules is read at run time: native modules, node-llama-cpp's binaries).
// The worker and child entries sit beside the CLI, where main/ looks for them once built:
// sandbox-child.js (execution/supervisor.ts), header-worker.js (generation/headerInWorker.ts),
// prepare-worker.js (service/prepareInWorker.ts). Every file lands in out/cli itself, two levels
// below the repository like main/cli/*.ts, so paths taken from import.meta.url still hold.
const OUT = 'out/cli';

/**
 * Writes out/cli/help.json last: the program's commands and options (bin/help.mjs prints help
 * from it without loading the engine) and when the build began (bin/built.mjs takes a source
 * changed since as a stale build).
 */
function helpManifest(): Plugin {
  let builtFrom = 0;
  return {
    name: 'wapii-help-manifest',
    buildStart() {
      builtFrom = Date.now();
    },
    closeBundle() {
      const read = `const { buildProgram } = await import(${JSON.stringify(resolve(OUT, 'program.js'))});
const { describeCommand } = await import(${JSON.stringify(resolve('bin/help.mjs'))});
process.stdout.write(JSON.stringify(describeCommand(buildProgram({ stdout: () => undefined, stderr: () => undefined }))));`;
      const program: unknown = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', read], { encoding: 'utf8' }));
      fs.writeFileSync(resolve(OUT, 'help.json'), JSON.stringify({ builtFrom, program }));
    },
  };
}

export default defineConfig({
  publicDir: false,
  plugins: [helpManifest()],
  build: {
    ssr: true,
    outDir: OUT,
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    reportCompressedSize: false,
    rollupOptions: {
      input: {
        index: resolve('main/cli/index.ts'),
        program: resolve('main/cli/program.ts'),
        'sandbox-child': resolve('main/execution/child.ts'),
        'header-worker': resolve('main/generation/header-worker.ts'),
        'prepare-worker': resolve('main/service/prepare-worker.ts'),
      },
      output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
    },
  },
});
