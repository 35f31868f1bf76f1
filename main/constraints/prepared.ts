import fs from 'node:fs';
import path from 'node:path';
import { restoreTokenIndex, serializeTokenIndex, tokenIndex, tokenIndexKey, type TokenIndex } from './tokens.js';
import type { Vocabulary } from './vocabulary.js';

/** How a vocabulary's token index came to be (see preparedTokenIndex), for a log line. */
export interface Prepared {
  readonly index: TokenIndex;
  readonly from: 'cache' | 'built';
  /** Why the cache was not read or not written, when it was not; the index is good either way. */
  readonly note?: string;
}

/**
 * A vocabulary's token index read from `dir` when a process kept it there before (a file named
 * by tokenIndexKey: the vocabulary's hash), else prepared and kept there. Preparing qwen2's
 * 151,936 tokens takes a second or more on a 2-core machine, reading it back a few
 * milliseconds; a cache that cannot be read or written only costs the preparation.
 */
export function preparedTokenIndex(vocabulary: Vocabulary, dir: string): Prepared {
  const key = tokenIndexKey(vocabulary);
  const file = path.join(dir, `token-index-${key.slice(0, 32)}.bin`);
  let note: string | undefined;
  if (fs.existsSync(file)) {
    try {
      const restored = restoreTokenIndex(vocabulary, fs.readFileSync(file), key);
      if (!('error' in restored)) return { index: restored, from: 'cache' };
      note = `${restored.error} (${file}); prepared again`;
    } catch (e) {
      note = `could not read ${file}: ${(e as Error).message}; prepared again`;
    }
  }
  const index = tokenIndex(vocabulary);
  try {
    fs.mkdirSync(dir, { recursive: true });
    // A temporary name and a rename: another process never reads half a file.
    const temporary = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, serializeTokenIndex(index));
    fs.renameSync(temporary, file);
  } catch (e) {
    note = `could not keep the token index in ${dir}: ${(e as Error).message}`;
  }
  return { index, from: 'built', ...(note ? { note } : {}) };
}
