import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';

export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    // sandbox-child: the sandbox process the execution supervisor forks (main/execution/supervisor.ts);
    // header-worker: the thread that reads untrusted GGUF headers (main/generation/headerInWorker.ts).
    build: { rollupOptions: { input: { index: resolve('main/app/index.ts'), 'sandbox-child': resolve('main/execution/child.ts'), 'header-worker': resolve('main/generation/header-worker.ts') } } },
  },
  preload: {
    plugins: [externalizeDepsPlugin()],
    // Sandboxed preload scripts must be CommonJS with no imports but `electron`.
    build: { rollupOptions: { input: { index: resolve('preload/index.ts') }, output: { format: 'cjs', entryFileNames: '[name].cjs' } } },
  },
  renderer: {
    root: 'renderer',
    base: './',
    plugins: [react()],
    build: { rollupOptions: { input: resolve('renderer/index.html') } },
  },
});
