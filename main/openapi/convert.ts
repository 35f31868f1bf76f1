import { createHash } from 'node:crypto';
import swagger2openapi from 'swagger2openapi';
import { stringify } from 'yaml';
import type { FileInput } from '../api/contract.js';
import { fail, ok, type Result } from '../api/result.js';
import { parseSpecText } from './parse.js';

type Obj = Record<string, unknown>;

/** What a converted document records of its source, so the original can be found beside it. */
export const CONVERTED_FROM = 'x-wapii-converted-from';

export const isSwagger2 = (doc: Readonly<Obj>): boolean => typeof doc['swagger'] === 'string' && doc['swagger'].startsWith('2.');

/**
 * Converts a Swagger 2.0 document to OpenAPI 3.0 with swagger2openapi (the converter the
 * OpenAPI tooling community maintains; hand-written conversion would miss `consumes`,
 * `formData` parameters, `x-ms-parameterized-host` and the rest). Small errors the converter
 * knows how to patch are patched rather than refused, as a user's own tooling would; nothing
 * is fetched. The input is not changed.
 */
export async function convertSwagger2(doc: Readonly<Obj>, filename: string): Promise<Result<Obj>> {
  try {
    const converted = await swagger2openapi.convertObj(structuredClone(doc), { patch: true, warnOnly: true, direct: true, resolve: false });
    return ok({ ...converted, [CONVERTED_FROM]: { swagger: String(doc['swagger']), filename } });
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return fail('bad_input', `${filename}: cannot convert this Swagger ${String(doc['swagger'])} document to OpenAPI 3: ${reason}`);
  }
}

/** A converted document as text in its source's format (JSON stays JSON, so a reader's line numbers are the converter's). */
export const convertedText = (doc: Readonly<Obj>, filename: string): string =>
  /\.json$/i.test(filename) ? JSON.stringify(doc, null, 2) + '\n' : stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 });

/** A spec file as an import stores it: OpenAPI 3 text, and for a converted Swagger 2.0 file its original beside it. */
export interface ImportedSpecFile {
  readonly file: FileInput;
  readonly original?: FileInput;
}

/**
 * What an import stores for a spec file: an OpenAPI 3 file as given; a Swagger 2.0 file converted
 * (under the same name, so it still names its API) with the original kept beside it under
 * `<name>.swagger2.<ext>`. The converted document names its original's file and sha-256 in
 * `x-wapii-converted-from`, so the two stay linked in the store.
 */
export async function importSpecFile(file: FileInput): Promise<Result<ImportedSpecFile>> {
  // Only a document with a top-level `swagger` key is parsed here: large OpenAPI 3 files are parsed once, by loadSpec.
  if (!/^(?:\{\s*)?["']?swagger["']?\s*:/m.test(file.content)) return ok({ file });
  const parsed = parseSpecText(file.content, file.filename);
  if (!parsed.ok) return parsed;
  if (!isSwagger2(parsed.value)) return ok({ file });
  const converted = await convertSwagger2(parsed.value, file.filename);
  if (!converted.ok) return converted;
  const original = { filename: file.filename.replace(/(\.[^.]+)$/, '.swagger2$1'), content: file.content };
  const doc = { ...converted.value, [CONVERTED_FROM]: { swagger: String(parsed.value['swagger']), filename: original.filename, sha256: createHash('sha256').update(file.content).digest('hex') } };
  return ok({ file: { filename: file.filename, content: convertedText(doc, file.filename) }, original });
}
