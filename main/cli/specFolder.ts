import fs from 'node:fs';
import path from 'node:path';
import type { FileInput } from '../api/contract.js';
import { fail, ok, type Result } from '../api/result.js';
import { bundleSpec } from '../openapi/bundle.js';
import { decodeUtf8, readSpecDir } from './files.js';

/**
 * The spec files of a folder, as `readSpecDir` reads them, each with the relative `$ref`s it makes
 * to files inside the folder bundled in (bundleSpec refuses any that leave it or name a URL). The
 * disk is read here, at the edge; what is stored is one self-contained document per API.
 */
export async function readSpecFolder(dir: string): Promise<Result<FileInput[]>> {
  const files = readSpecDir(dir);
  if (!files.ok) return files;
  const read = (file: string): Result<string> => {
    try {
      return decodeUtf8(fs.readFileSync(file), file);
    } catch (error) {
      return fail('bad_input', `cannot read ${file} (named by a $ref): ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
  };
  const out: FileInput[] = [];
  for (const file of files.value) {
    const bundled = await bundleSpec(path.join(dir, file.filename), file.content, read);
    if (!bundled.ok) return bundled;
    out.push(bundled.value);
  }
  return ok(out);
}
