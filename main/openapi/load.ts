import $RefParser from '@apidevtools/json-schema-ref-parser';
import { fail, type Result } from '../api/result.js';
import { buildSpec } from './build.js';
import { convertSwagger2, isSwagger2 } from './convert.js';
import type { ApiSpec } from './model.js';
import { parseSpecText } from './parse.js';
import { brokenRefs, brokenRefsMessage, EXPANDED_NODES_LIMIT, expandedNodes } from './refs.js';

export type SpecFormat = 'yaml' | 'json';

/**
 * Loads an OpenAPI 3.0 or 3.1 document, or a Swagger 2.0 one converted to OpenAPI 3.0 on the way
 * (see convertSwagger2; an import stores the converted text beside the original). `$ref`s are resolved by json-schema-ref-parser; a recursive
 * schema keeps its closing `$ref` (circular: 'ignore'), so the result stays a finite tree that
 * later stages can walk and serialise without hanging.
 */
export async function loadSpec(text: string, filename: string): Promise<Result<ApiSpec>> {
  const parsed = parseSpecText(text, filename);
  if (!parsed.ok) return parsed;
  let raw = parsed.value;
  if (isSwagger2(raw)) {
    const converted = await convertSwagger2(raw, filename);
    if (!converted.ok) return converted;
    raw = converted.value;
  }
  const version = raw['openapi'];
  if (typeof version !== 'string' || !/^3\.[01]\./.test(version)) {
    const found = raw['swagger'] ? `Swagger ${String(raw['swagger'])}` : version === undefined ? 'no `openapi` field' : `openapi ${String(version)}`;
    return fail('bad_input', `${filename}: not an OpenAPI 3.0/3.1 or Swagger 2.0 document (${found})`);
  }
  if (typeof raw['paths'] !== 'object' || raw['paths'] === null) {
    return fail('bad_input', `${filename}: the document has no \`paths\` object`);
  }
  if (expandedNodes(raw) === undefined) {
    return fail('bad_input', `${filename}: its $refs expand to more than ${EXPANDED_NODES_LIMIT.toLocaleString('en')} nodes when inlined (a schema that refers to another more than once at every level doubles with each); refused rather than spending minutes resolving it`);
  }
  const parser = new $RefParser();
  // Remembers where each dereferenced schema came from, so validation can compile `$ref`s
  // against the original document instead of inlining (Google Sheets' inlined schemas are 13 MB).
  const origins = new WeakMap<object, string>();
  let dereferenced: Record<string, unknown>;
  try {
    dereferenced = (await parser.dereference(structuredClone(raw), {
      resolve: { external: false },
      dereference: {
        circular: 'ignore',
        onDereference: (path: string, value: unknown) => {
          if (typeof value === 'object' && value !== null && path.startsWith('#/') && !origins.has(value)) origins.set(value, path);
        },
      },
    })) as Record<string, unknown>;
  } catch (error) {
    return fail('bad_input', `${filename}: ${describeRefError(error, raw)}`);
  }
  return buildSpec(dereferenced, { filename, raw, origins });
}

function describeRefError(error: unknown, doc: Record<string, unknown>): string {
  const message = error instanceof Error ? error.message : String(error);
  const missing = /Missing \$ref pointer "([^"]+)"/.exec(message);
  if (missing) {
    // Every broken reference at once, so one import names all there is to fix.
    const broken = brokenRefs(doc);
    return brokenRefsMessage(broken.length > 0 ? broken : [{ ref: missing[1] ?? '', uses: 1 }]);
  }
  const external = /external \$ref|Unable to resolve \$ref pointer "([^"]+)"/i.exec(message);
  if (external) return `unresolved $ref${external[1] ? ` "${external[1]}"` : ''}: only references inside the document are supported here; import the spec from its folder on disk (relative $refs inside that folder are bundled then) or bundle it into one file`;
  return `cannot resolve $refs: ${message.split('\n')[0]}`;
}

export function specFormatOf(filename: string): SpecFormat | undefined {
  if (/\.ya?ml$/i.test(filename)) return 'yaml';
  if (/\.json$/i.test(filename)) return 'json';
  return undefined;
}
