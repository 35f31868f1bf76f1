import fs from 'node:fs';
import path from 'node:path';
import { readAhead, restoreTokenIndex, serializeTokenIndex, tokenIndex, tokenIndexKey, type IndexSource, type TokenIndex } from './tokens.js';
import type { Vocabulary } from '../gguf/index.js';

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
 * 151,936 tokens takes a second or more on a 2-core machine, reading back its tries about a
 * tenth of that (its tokens' texts and class tables are read after, in the background, or by the
 * first mask that needs one); a cache that cannot be read or written only costs the preparation.
 */
export function preparedTokenIndex(vocabulary: Vocabulary, dir: string): Prepared {
  const key = tokenIndexKey(vocabulary);
  const file = path.join(dir, `token-index-${key.slice(0, 32)}.bin`);
  let note: string | undefined;
  if (fs.existsSync(file)) {
    try {
      const source = openIndexFile(file);
      const restored = restoreTokenIndex(vocabulary, source, key);
      if (!('error' in restored)) {
        source.keepFor(restored);
        // The texts and class tables, read ahead a piece per turn of the event loop (unref'd: a command that
        // is done does not wait for them), then the file closed; a mask that comes first reads its own.
        const step = (): void => {
          if (readAhead(restored)) setTimeout(step, 0).unref();
          else source.close();
        };
        setTimeout(step, 0).unref();
        return { index: restored, from: 'cache' };
      }
      source.close();
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

/**
 * A prepared index file read piece by piece through one descriptor, held while the index lives:
 * its texts and class tables are read later, and another process that rewrites the file (a
 * rename over it) must not hand this one a differently numbered index halfway. Closed when the
 * index is collected.
 */
function openIndexFile(file: string): IndexSource & { keepFor(index: TokenIndex): void; close(): void } {
  const fd = fs.openSync(file, 'r');
  let open = true;
  const close = (): void => {
    if (open) fs.closeSync(fd);
    open = false;
  };
  return {
    size: fs.fstatSync(fd).size,
    read(offset, length) {
      if (!open) return undefined;
      try {
        // Not zero-filled: every byte is read over.
        const piece = Buffer.allocUnsafeSlow(length);
        return fs.readSync(fd, piece, 0, length, offset) === length ? piece : undefined;
      } catch {
        return undefined;
      }
    },
    keepFor: (index) => closeWhenCollected.register(index, close),
    close,
  };
}
const closeWhenCollected = new FinalizationRegistry<() => void>((close) => close());
