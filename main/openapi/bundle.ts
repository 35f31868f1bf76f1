import path from 'node:path';
import { fileURLToPath } from 'node:url';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { fail, ok, type Result } from '../api/result.js';
import type { FileInput } from '../api/contract.js';
import { parseSpecText } from './parse.js';
import { convertedText } from './convert.js';
import { brokenRefs, brokenRefsMessage, documentNodes, patchBrokenRefs } from './refs.js';

type Obj = Record<string, unknown>;

/** Reads a file the bundler asks for, by absolute path; the caller owns the I/O (the disk, for an import). */
export type ReadSpecFile = (absolutePath: string) => Result<string>;

/** Whether any `$ref` in the document points at another file (anything not starting with `#`). */
export function hasExternalRefs(root: unknown): boolean {
  for (const node of documentNodes(root)) if (!Array.isArray(node) && typeof node['$ref'] === 'string' && !node['$ref'].startsWith('#')) return true;
  return false;
}

/** The file a resolved reference names, as an absolute path; undefined for anything that is not a local file (a URL). */
function localPath(url: string): string | undefined {
  if (url.startsWith('file://')) return fileURLToPath(url);
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) && !/^[a-z]:[\\/]/i.test(url)) return undefined;
  return path.resolve(url);
}

/**
 * Joins a description split over files by relative `$ref`s (DigitalOcean's thousands of files)
 * into one document, with json-schema-ref-parser's `bundle` (external references become local
 * ones; nothing is inlined twice). Only files inside the entry file's own folder are read, each
 * through the same strict parser as a single-file spec; a reference that leaves the folder or
 * names a URL is refused in one line, so an import never reads or fetches beyond what the user
 * pointed at. A document without external references comes back unchanged.
 *
 * A local `$ref` that points at nothing, in the entry or in a part (its pointer read in that
 * part), is refused naming every one of that file; with `lenientRefs` each becomes an empty schema
 * marked with what it stood for (see withoutBrokenRefs), since the bundler itself would stop at the first.
 */
export async function bundleSpec(entryPath: string, content: string, read: ReadSpecFile, options: { readonly lenientRefs?: boolean } = {}): Promise<Result<FileInput>> {
  const filename = path.basename(entryPath);
  const parsed = parseSpecText(content, filename);
  if (!parsed.ok) return parsed;
  if (!hasExternalRefs(parsed.value)) return ok({ filename, content });
  const root = path.dirname(path.resolve(entryPath));
  /** The file's broken local references handled as asked: a refusal, or marked in place (undefined). */
  const dangling = (doc: Obj, name: string): string | undefined => {
    if (options.lenientRefs) {
      patchBrokenRefs(doc, name === filename ? '' : name);
      return undefined;
    }
    const broken = brokenRefs(doc);
    return broken.length > 0 ? `${name}: ${brokenRefsMessage(broken)}` : undefined;
  };
  const entryProblem = dangling(parsed.value, filename);
  if (entryProblem) return fail('bad_input', entryProblem);
  let refusal: string | undefined;
  const refuse = (message: string): never => {
    refusal ??= message;
    throw new Error(message);
  };
  const resolver = {
    order: 1,
    canRead: true,
    read: (file: { url: string; reference?: string }): string => {
      const reference = file.reference ?? file.url;
      const at = localPath(file.url);
      if (at === undefined) return refuse(`${filename}: $ref "${reference}" names a URL; only files inside the spec's folder are read (download it beside the spec and refer to it by a relative path)`);
      const relative = path.relative(root, at);
      if (relative.startsWith('..') || path.isAbsolute(relative)) return refuse(`${filename}: $ref "${reference}" leaves the spec's folder ${root}; only files inside it are read`);
      const text = read(at);
      if (!text.ok) return refuse(text.error.message);
      const doc = parseSpecText(text.value, relative);
      if (!doc.ok) return refuse(doc.error.message);
      const problem = dangling(doc.value, relative);
      if (problem) return refuse(problem);
      // Handed on as JSON: the strict parse above is what decides, the library's parser only re-reads it.
      return JSON.stringify(doc.value);
    },
  };
  let bundled: Obj;
  try {
    bundled = (await new $RefParser().bundle(path.resolve(entryPath), structuredClone(parsed.value), {
      resolve: { file: false, http: false, wapii: resolver },
      dereference: { circular: true },
    } as never)) as Obj;
  } catch (error) {
    return fail('bad_input', refusal ?? `${filename}: cannot bundle its $refs: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  if (refusal) return fail('bad_input', refusal);
  return ok({ filename, content: convertedText(bundled, filename) });
}
