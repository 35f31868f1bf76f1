import fs from 'node:fs';
import path from 'node:path';
import type { FileInput } from '../api/contract.js';
import { fail, ok, type Result } from '../api/result.js';
import { bundleSpec } from '../openapi/bundle.js';
import { decodeUtf8, readFileInput, readSpecDir } from './files.js';

/** Whether `file` is `dir` or lies below it (both real paths). */
const inside = (dir: string, file: string): boolean => {
  const relative = path.relative(dir, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
};

/**
 * Refuses a file whose real path (after every symbolic link, of the file or of a folder on the way)
 * lies outside the spec folder's real path: bundleSpec checks where a `$ref` points as written, and
 * `refs/shared.yaml -> ../../outside/hosts.yml` passes that check while reading what the user never
 * pointed at (an outside file's `oauth_token` landed in the database).
 */
function realPathInside(realDir: string, dir: string, file: string, what: string): Result<void> {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return fail('bad_input', `cannot read ${file} (${what}): ${(error as Error).message}`);
  }
  if (inside(realDir, real)) return ok(undefined);
  return fail('bad_input', `${path.relative(dir, file) || file} (${what}) is a symbolic link to ${real}, outside the spec folder ${realDir}; only files inside it are read (copy the file into the folder)`);
}

/** Reads what a `$ref` names, by absolute path, refusing a file whose real path leaves `dir`. */
function readerInside(dir: string): (file: string) => Result<string> {
  const realDir = fs.realpathSync(dir);
  return (file) => {
    const checked = realPathInside(realDir, dir, file, 'named by a $ref');
    if (!checked.ok) return checked;
    try {
      return decodeUtf8(fs.readFileSync(file), file);
    } catch (error) {
      return fail('bad_input', `cannot read ${file} (named by a $ref): ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
  };
}

/**
 * The spec files of a folder, as `readSpecDir` reads them, each with the relative `$ref`s it makes
 * to files inside the folder bundled in (bundleSpec refuses any that leave it or name a URL, and
 * every file's real path must lie inside the folder's). The disk is read here, at the edge; what is
 * stored is one self-contained document per API. `lenientRefs`: a broken local `$ref` becomes any
 * value (as `import --lenient-refs` asks) instead of refusing the folder.
 */
export async function readSpecFolder(dir: string, options: { readonly lenientRefs?: boolean } = {}): Promise<Result<FileInput[]>> {
  const files = readSpecDir(dir);
  if (!files.ok) return files;
  const read = readerInside(dir);
  const realDir = fs.realpathSync(dir);
  const out: FileInput[] = [];
  for (const file of files.value) {
    const entry = path.join(dir, file.filename);
    const checked = realPathInside(realDir, dir, entry, 'a spec file of the folder');
    if (!checked.ok) return checked;
    const bundled = await bundleSpec(entry, file.content, read, options);
    if (!bundled.ok) return bundled;
    out.push(bundled.value);
  }
  return ok(out);
}

/**
 * One spec file named on the command line, read as an import reads a folder's: its relative `$ref`s
 * to files beside it (in its real folder, where a link points) bundled in under the same checks, so
 * `constraints check`, `spec-diff` and the rest take a multi-file description as `import` does.
 */
export async function readSpecFile(file: string): Promise<Result<FileInput>> {
  const input = readFileInput(file);
  if (!input.ok) return input;
  const real = fs.realpathSync(file);
  const bundled = await bundleSpec(real, input.value.content, readerInside(path.dirname(real)));
  return bundled.ok ? ok({ ...bundled.value, filename: input.value.filename }) : bundled;
}
