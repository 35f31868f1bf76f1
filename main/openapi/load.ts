import $RefParser from '@apidevtools/json-schema-ref-parser';
import { parseDocument } from 'yaml';
import { fail, ok, type Result } from '../api/result.js';
import { buildSpec } from './build.js';
import type { ApiSpec } from './model.js';

export type SpecFormat = 'yaml' | 'json';

/** Parses YAML (a superset of JSON) so both formats report errors with line and column. */
function parseText(text: string, filename: string): Result<Record<string, unknown>> {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: false });
  const error = doc.errors[0];
  if (error) {
    const pos = error.linePos?.[0];
    const where = pos ? `line ${pos.line}, column ${pos.col}` : 'unknown position';
    const reason = error.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? 'syntax error';
    return fail('bad_input', `${filename}: malformed ${filename.endsWith('.json') ? 'JSON' : 'YAML'} at ${where}: ${reason}`);
  }
  const value: unknown = doc.toJS({ maxAliasCount: 10_000 });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return fail('bad_input', `${filename}: an OpenAPI document must be an object at the top level`);
  }
  return ok(value as Record<string, unknown>);
}

/**
 * Loads an OpenAPI 3.0 or 3.1 document. `$ref`s are resolved by json-schema-ref-parser; a recursive
 * schema keeps its closing `$ref` (circular: 'ignore'), so the result stays a finite tree that
 * later stages can walk and serialise without hanging.
 */
export async function loadSpec(text: string, filename: string): Promise<Result<ApiSpec>> {
  const parsed = parseText(text, filename);
  if (!parsed.ok) return parsed;
  const raw = parsed.value;
  const version = raw['openapi'];
  if (typeof version !== 'string' || !/^3\.[01]\./.test(version)) {
    const found = raw['swagger'] ? `Swagger ${String(raw['swagger'])}` : version === undefined ? 'no `openapi` field' : `openapi ${String(version)}`;
    return fail('bad_input', `${filename}: not an OpenAPI 3.0/3.1 document (${found})`);
  }
  if (typeof raw['paths'] !== 'object' || raw['paths'] === null) {
    return fail('bad_input', `${filename}: the document has no \`paths\` object`);
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
    return fail('bad_input', `${filename}: ${describeRefError(error)}`);
  }
  return buildSpec(dereferenced, { filename, raw, origins });
}

function describeRefError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const missing = /Missing \$ref pointer "([^"]+)"/.exec(message);
  if (missing) return `unresolved $ref "${missing[1]}": nothing in the document at that pointer`;
  const external = /external \$ref|Unable to resolve \$ref pointer "([^"]+)"/i.exec(message);
  if (external) return `unresolved $ref${external[1] ? ` "${external[1]}"` : ''}: only references inside the document are supported; bundle the spec into one file`;
  return `cannot resolve $refs: ${message.split('\n')[0]}`;
}

export function specFormatOf(filename: string): SpecFormat | undefined {
  if (/\.ya?ml$/i.test(filename)) return 'yaml';
  if (/\.json$/i.test(filename)) return 'json';
  return undefined;
}
