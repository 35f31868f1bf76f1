import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

const BUNDLE = path.join(REPO_ROOT, 'node_modules', 'node-llama-cpp', 'llama', 'gitRelease.bundle');
const CACHE = path.join(REPO_ROOT, 'node_modules', '.cache', 'wapii-vocab');
export const hasVocabBundle = fs.existsSync(BUNDLE);

/**
 * A real tokenizer (`models/ggml-vocab-<name>.gguf`) from the llama.cpp source that
 * node-llama-cpp ships as a git bundle; extracted once with git and cached.
 */
export function vocabFile(name: 'qwen2' | 'llama-spm' | 'deepseek-coder' | 'starcoder'): string {
  const file = path.join(CACHE, `ggml-vocab-${name}.gguf`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(CACHE, { recursive: true });
  const repo = path.join(CACHE, 'repo.git');
  if (!fs.existsSync(repo)) {
    execFileSync('git', ['init', '-q', '--bare', repo]);
    execFileSync('git', ['--git-dir', repo, 'fetch', '-q', BUNDLE, 'HEAD:refs/heads/llama']);
  }
  const data = execFileSync('git', ['--git-dir', repo, 'show', `llama:models/ggml-vocab-${name}.gguf`], { maxBuffer: 64 * 1024 * 1024 });
  fs.writeFileSync(`${file}.tmp`, data);
  fs.renameSync(`${file}.tmp`, file);
  return file;
}
