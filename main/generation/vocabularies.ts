import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** The real tokenizers that ship inside node-llama-cpp's copy of the llama.cpp source. */
export const BUNDLED_VOCABULARIES = ['qwen2', 'llama-spm', 'deepseek-coder', 'starcoder'] as const;
export type BundledVocabulary = (typeof BUNDLED_VOCABULARIES)[number];

/** node-llama-cpp's package folder (its exports map hides package.json, so go up from the entry point). */
export function nodeLlamaCppRoot(): string {
  const entry = createRequire(import.meta.url).resolve('node-llama-cpp');
  return path.resolve(path.dirname(entry), '..');
}

/** Where extracted vocabularies and generated test models are kept: node_modules/.cache/wapii. */
export function cacheDir(kind: 'vocab' | 'models'): string {
  return path.join(nodeLlamaCppRoot(), '..', '.cache', 'wapii', kind);
}

export function bundledVocabularyAvailable(): boolean {
  return fs.existsSync(path.join(nodeLlamaCppRoot(), 'llama', 'gitRelease.bundle'));
}

/**
 * `models/ggml-vocab-<name>.gguf` from the llama.cpp source node-llama-cpp ships as a git
 * bundle (`llama/gitRelease.bundle`), extracted once with git and cached. A temporary name and
 * a rename keep a half-written file from ever being read.
 */
export function bundledVocabulary(name: BundledVocabulary): string {
  const dir = cacheDir('vocab');
  const file = path.join(dir, `ggml-vocab-${name}.gguf`);
  if (fs.existsSync(file)) return file;
  const bundle = path.join(nodeLlamaCppRoot(), 'llama', 'gitRelease.bundle');
  if (!fs.existsSync(bundle)) throw new Error(`node-llama-cpp's llama.cpp source bundle is missing (${bundle}); reinstall node-llama-cpp`);
  fs.mkdirSync(dir, { recursive: true });
  const repo = path.join(dir, 'repo.git');
  if (!fs.existsSync(path.join(repo, 'refs', 'heads', 'llama'))) {
    fs.rmSync(repo, { recursive: true, force: true });
    execFileSync('git', ['init', '-q', '--bare', repo]);
    execFileSync('git', ['--git-dir', repo, 'fetch', '-q', bundle, 'HEAD:refs/heads/llama']);
  }
  const data = execFileSync('git', ['--git-dir', repo, 'show', `llama:models/ggml-vocab-${name}.gguf`], { maxBuffer: 64 * 1024 * 1024 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
  return file;
}
