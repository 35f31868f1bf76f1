type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A JSON pointer's segment as a key (RFC 6901; a URI fragment may percent-encode it). */
function segment(raw: string): string {
  let key = raw;
  try {
    key = decodeURIComponent(raw);
  } catch {
    // Not percent-encoded after all: read as written.
  }
  return key.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** A `$ref` inside the document whose pointer names nothing there, and how many places use it. */
export interface BrokenRef {
  readonly ref: string;
  readonly uses: number;
}

/** What a lenient import writes where a broken reference was: any value (an empty schema), marked with what it stood for. */
export const BROKEN_REF = 'x-wapii-broken-ref';

/**
 * Whether a local pointer (`#/components/schemas/x`) names something in `doc`. A `$ref` met on the
 * way is followed, as the resolver does (`#/components/schemas/A/properties/id` where A is itself
 * a reference).
 */
function resolves(doc: Obj, ref: string, depth = 0): boolean {
  if (ref === '#' || ref === '#/') return true;
  if (!ref.startsWith('#/') || depth > 16) return true;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = segment(raw);
    if (isObj(node) && !Object.hasOwn(node, key) && typeof node['$ref'] === 'string') {
      const via = node['$ref'];
      if (!via.startsWith('#') || !resolves(doc, via, depth + 1)) return false;
      node = lookUp(doc, via);
    }
    if ((isObj(node) || Array.isArray(node)) && Object.hasOwn(node, key)) node = (node as Obj)[key];
    else return false;
  }
  return true;
}

function lookUp(doc: Obj, ref: string): unknown {
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = segment(raw);
    node = isObj(node) || Array.isArray(node) ? (node as Obj)[key] : undefined;
  }
  return node;
}

/**
 * Every object and array of a parsed document, each once (a YAML alias shares one), walked with a
 * stack rather than recursion: specs nest deep. The one walk of refSites, markedRefs and bundle.ts's hasExternalRefs.
 */
export function* documentNodes(root: unknown): Generator<Obj | unknown[]> {
  const stack: unknown[] = [root];
  const seen = new Set<unknown>();
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    yield node as Obj | unknown[];
    for (const child of Object.values(node)) stack.push(child);
  }
}

/** Every `{ $ref }` object of the document, with its container and key. */
export function refSites(doc: Obj): { holder: Obj | unknown[]; key: string | number; ref: string }[] {
  const sites: { holder: Obj | unknown[]; key: string | number; ref: string }[] = [];
  for (const node of documentNodes(doc)) {
    const entries: [string | number, unknown][] = Array.isArray(node) ? node.map((v, i) => [i, v]) : Object.entries(node);
    for (const [key, child] of entries) if (isObj(child) && typeof child['$ref'] === 'string') sites.push({ holder: node, key, ref: child['$ref'] });
  }
  return sites;
}

/** The document's local `$ref`s that point at nothing, with their use counts, ordered by reference. */
export function brokenRefs(doc: Obj): BrokenRef[] {
  const counts = new Map<string, number>();
  for (const { ref } of refSites(doc)) if (ref.startsWith('#') && !resolves(doc, ref)) counts.set(ref, (counts.get(ref) ?? 0) + 1);
  return [...counts].map(([ref, uses]) => ({ ref, uses })).sort((a, b) => a.ref.localeCompare(b.ref));
}


/**
 * Replaces every broken local `$ref` of `doc` (in place) by an empty schema marked with what it
 * stood for (`where` names a part file of a multi-file description: `parts/a.yaml#/definitions/x`);
 * returns what it replaced.
 */
export function patchBrokenRefs(doc: Obj, where = ''): BrokenRef[] {
  const broken = brokenRefs(doc);
  const names = new Set(broken.map((b) => b.ref));
  for (const { holder, key, ref } of refSites(doc)) if (names.has(ref)) (holder as Obj)[key as string] = { [BROKEN_REF]: `${where}${ref}` };
  return broken.map((b) => ({ ...b, ref: `${where}${b.ref}` }));
}

/** The broken references a document stands in for (its `x-wapii-broken-ref` marks), with their use counts, ordered by reference. */
export function markedRefs(doc: Obj): BrokenRef[] {
  const counts = new Map<string, number>();
  for (const node of documentNodes(doc)) {
    const mark = isObj(node) ? node[BROKEN_REF] : undefined;
    if (typeof mark === 'string') counts.set(mark, (counts.get(mark) ?? 0) + 1);
  }
  return [...counts].map(([ref, uses]) => ({ ref, uses })).sort((a, b) => a.ref.localeCompare(b.ref));
}

/** The one-line refusal of broken references (the file's name goes before it). */
export function brokenRefsMessage(broken: readonly BrokenRef[]): string {
  const named = broken.map((b) => `"${b.ref}"${b.uses > 1 ? ` (${b.uses} uses)` : ''}`).join(', ');
  return `unresolved $ref ${named}: nothing in the document at ${broken.length > 1 ? 'those pointers' : 'that pointer'}; fix the references, or import with --lenient-refs (each broken one then stands for any value)`;
}

/** The most nodes a document's local `$ref`s may expand to when inlined (GitHub's 12 MB description: about 2 million). */
export const EXPANDED_NODES_LIMIT = 10_000_000;

/**
 * How many nodes the document holds with every local `$ref` inlined (a reference back into its own
 * chain counts once), counted up to `limit`; undefined past it. Dereferencing walks every one of
 * them: a schema that refers to another twice at every level doubles per level, and 30 levels of a
 * few hundred bytes would hold an import for hours. Each target is counted once (memoised), so
 * this takes time in the document's size, not in its expansion.
 */
export function expandedNodes(doc: Obj, limit = EXPANDED_NODES_LIMIT): number | undefined {
  const memo = new Map<string, number>();
  const open = new Set<string>();
  const size = (node: unknown): number => {
    if (!isObj(node) && !Array.isArray(node)) return 1;
    const ref = isObj(node) ? node['$ref'] : undefined;
    if (typeof ref === 'string' && ref.startsWith('#/')) {
      const known = memo.get(ref);
      if (known !== undefined) return known;
      if (open.has(ref)) return 1;
      open.add(ref);
      const n = size(lookUp(doc, ref));
      open.delete(ref);
      memo.set(ref, n);
      return n;
    }
    let n = 1;
    for (const value of Object.values(node)) {
      n += size(value);
      // Past the limit the count stops: the caller refuses the document either way.
      if (n > limit) return n;
    }
    return n;
  };
  try {
    const n = size(doc);
    return n > limit ? undefined : n;
  } catch (error) {
    // Nested deeper than the call stack: no description a person wrote.
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}
