import type { FileInput } from '../api/contract.js';
import { convertedText } from './convert.js';
import { parseSpecText } from './parse.js';
import { markedRefs, patchBrokenRefs, type BrokenRef } from './refs.js';

/**
 * A spec file with every broken local `$ref` replaced by an empty schema (any value, marked with
 * `x-wapii-broken-ref`), for an import that asked for it (`--lenient-refs`): Intercom 2.11 uses a
 * missing `#/components/schemas/custom_attributes` in four places, and refusing the whole API for
 * it leaves nothing to evaluate. `broken` names every reference the file now stands in for, those
 * a multi-file bundle marked already (bundleSpec) included. The text comes back unchanged when
 * nothing was replaced here; a file that does not parse is left to the loader to refuse.
 */
export function withoutBrokenRefs(file: FileInput): { readonly file: FileInput; readonly broken: readonly BrokenRef[] } {
  const parsed = parseSpecText(file.content, file.filename);
  if (!parsed.ok) return { file, broken: [] };
  const doc = parsed.value;
  const patched = patchBrokenRefs(doc);
  const broken = markedRefs(doc);
  return { file: patched.length === 0 ? file : { filename: file.filename, content: convertedText(doc, file.filename) }, broken };
}
