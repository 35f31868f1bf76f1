import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { specInternals } from './build.js';
import type { ApiSpec, JsonSchema } from './model.js';

// ajv-formats ships CommonJS with a default export; under NodeNext the namespace wraps it.
type AddFormats = (ajv: Ajv | Ajv2020) => unknown;
const formatsExport = addFormatsModule as unknown as AddFormats & { default?: AddFormats };
const addFormats: AddFormats = formatsExport.default ?? formatsExport;

type AjvLike = Ajv | Ajv2020;
const SPEC_ID = 'wapii-spec';

interface Validator {
  readonly ajv: AjvLike;
  readonly compiled: WeakMap<object, ValidateFunction>;
}
const validators = new WeakMap<ApiSpec, Validator>();

function validatorFor(spec: ApiSpec): Validator {
  let v = validators.get(spec);
  if (v) return v;
  const options = { strict: false, allErrors: false, validateSchema: false, logger: false as const };
  // OpenAPI 3.1 schemas are JSON Schema 2020-12; 3.0 schemas are a draft-04/07 dialect with `nullable`.
  const ajv: AjvLike = spec.openapi.startsWith('3.1') ? new Ajv2020(options) : new Ajv(options);
  addFormats(ajv);
  // The document as written is registered once; schemas compiled later point into it by `$ref`,
  // so shared and recursive schemas are compiled once each instead of inlined everywhere.
  ajv.addSchema(ajvCompatible(specInternals(spec).raw) as object, SPEC_ID);
  v = { ajv, compiled: new WeakMap() };
  validators.set(spec, v);
  return v;
}

/**
 * OpenAPI 3.0 writes `nullable: true` without a `type` (meaning: any value, null included);
 * ajv refuses to compile that, so such a `nullable` is dropped. The document is copied, never changed.
 */
function ajvCompatible(node: unknown, memo = new Map<unknown, unknown>()): unknown {
  if (typeof node !== 'object' || node === null) return node;
  const done = memo.get(node);
  if (done) return done;
  if (Array.isArray(node)) {
    const out: unknown[] = [];
    memo.set(node, out);
    for (const item of node) out.push(ajvCompatible(item, memo));
    return out;
  }
  const out: Record<string, unknown> = {};
  memo.set(node, out);
  const record = node as Record<string, unknown>;
  const dropNullable = record['nullable'] === true && record['type'] === undefined;
  for (const [k, v] of Object.entries(record)) if (!(dropNullable && k === 'nullable')) out[k] = ajvCompatible(v, memo);
  return out;
}

/**
 * Turns a dereferenced schema back into `$ref` form: an object that was resolved from a local
 * `$ref` becomes a `$ref` into the registered document; a `$ref` left in place (the closing edge
 * of a recursive schema) is anchored to it too.
 */
function toRefForm(schema: unknown, origins: WeakMap<object, string>, root: boolean, memo = new Map<unknown, unknown>()): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  const origin = root ? undefined : origins.get(schema);
  if (origin) return { $ref: `${SPEC_ID}${origin}` };
  const done = memo.get(schema);
  if (done) return done;
  if (Array.isArray(schema)) {
    const out: unknown[] = [];
    memo.set(schema, out);
    for (const item of schema) out.push(toRefForm(item, origins, false, memo));
    return out;
  }
  const out: Record<string, unknown> = {};
  memo.set(schema, out);
  for (const [k, val] of Object.entries(schema)) {
    out[k] = k === '$ref' && typeof val === 'string' && val.startsWith('#/') ? `${SPEC_ID}${val}` : toRefForm(val, origins, false, memo);
  }
  return out;
}

/** One way a value breaks its schema: where inside the value, and a sentence fragment saying how. */
export interface ValueProblem {
  readonly path: readonly string[];
  readonly message: string;
}

function describe(error: ErrorObject): ValueProblem {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  return { path, message: explain(error) };
}

function explain(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `must be of type ${String(params['type'])}`;
    case 'enum':
      return `must be one of ${(params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'additionalProperties':
      return `has key \`${String(params['additionalProperty'])}\`, which the schema does not define`;
    case 'required':
      return `lacks required key \`${String(params['missingProperty'])}\``;
    default:
      return `${error.message ?? 'does not match the schema'}`;
  }
}

/**
 * Validates a JSON value against a schema of the spec; returns the first violation, or an empty
 * list when the value is valid.
 */
export function validateValue(spec: ApiSpec, schema: JsonSchema | undefined, value: unknown): ValueProblem[] {
  if (!schema) return [];
  const v = validatorFor(spec);
  let fn = v.compiled.get(schema);
  if (!fn) {
    const { origins } = specInternals(spec);
    const origin = origins.get(schema);
    try {
      fn = v.ajv.compile(origin ? { $ref: `${SPEC_ID}${origin}` } : (ajvCompatible(toRefForm(schema, origins, true)) as object));
    } catch {
      // A schema ajv cannot compile (e.g. a dangling vendor keyword): treat as "any value".
      fn = v.ajv.compile({});
    }
    v.compiled.set(schema, fn);
  }
  if (fn(value)) return [];
  return (fn.errors ?? []).slice(0, 1).map(describe);
}
