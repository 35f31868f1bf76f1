/**
 * The import graph of main/ (tests left out): files, arrows, the circles between files (strongly
 * connected components of more than one file), and the arrows between folders that run against
 * the engine's order (spec → dataset → prompt → generation → execution → scoring → store → UI).
 *   npx tsx scripts/import-graph.ts [--json]
 * Imports are read by TypeScript's own pre-processor (a real parser of the import syntax), type-only
 * imports included: a circle through types still ties two files' meaning together.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const MAIN = path.join(ROOT, 'main');

/** The engine's order, upstream first: api/ first, as it holds the domain's types and the contract every stage speaks (its files import no stage). */
export const STAGE_ORDER = ['api', 'openapi', 'dataset', 'prompt', 'retrieval', 'constraints', 'generation', 'execution', 'scoring', 'runner', 'store', 'synthesis', 'service', 'cli', 'app'];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.(ts|tsx|mts)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec).replace(/\.(m?js)$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, `${base}.mts`, path.join(base, 'index.ts')]) if (fs.existsSync(candidate)) return candidate;
  return undefined;
}

export interface ImportGraph {
  readonly files: number;
  readonly arrows: number;
  readonly circles: readonly (readonly string[])[];
  /** Folder → folder arrows against STAGE_ORDER, with how many file arrows make each. */
  readonly backArrows: readonly { readonly from: string; readonly to: string; readonly count: number }[];
  /** Folders that import each other, directly or through others. */
  readonly folderCircles: readonly (readonly string[])[];
}

/** Tarjan's strongly connected components, iteratively unrolled would be longer than the graph is deep (a few hundred files). */
function components(nodes: readonly string[], edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || edges.get(v)?.has(v)) out.push(scc.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return out;
}

export function importGraph(): ImportGraph {
  const files = sources(MAIN);
  const edges = new Map<string, Set<string>>();
  let arrows = 0;
  for (const file of files) {
    const info = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = new Set<string>();
    for (const ref of info.importedFiles) {
      const target = resolveImport(file, ref.fileName);
      if (target && target !== file) targets.add(path.relative(ROOT, target));
    }
    arrows += targets.size;
    edges.set(path.relative(ROOT, file), targets);
  }
  const names = [...edges.keys()];
  const folderOf = (f: string): string => f.split(path.sep)[1] ?? f;
  const folderEdges = new Map<string, Set<string>>();
  const back = new Map<string, number>();
  for (const [from, targets] of edges) {
    for (const to of targets) {
      const [a, b] = [folderOf(from), folderOf(to)];
      if (a === b) continue;
      if (!folderEdges.has(a)) folderEdges.set(a, new Set());
      folderEdges.get(a)!.add(b);
      const [ia, ib] = [STAGE_ORDER.indexOf(a), STAGE_ORDER.indexOf(b)];
      if (ia !== -1 && ib !== -1 && ib > ia) back.set(`${a}\0${b}`, (back.get(`${a}\0${b}`) ?? 0) + 1);
    }
  }
  return {
    files: names.length,
    arrows,
    circles: components(names, edges),
    backArrows: [...back].map(([k, count]) => ({ from: k.split('\0')[0]!, to: k.split('\0')[1]!, count })).sort((x, y) => y.count - x.count),
    folderCircles: components([...folderEdges.keys()], folderEdges),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const graph = importGraph();
  if (process.argv.includes('--json')) console.log(JSON.stringify(graph, null, 2));
  else {
    console.log(`${graph.files} files, ${graph.arrows} arrows, ${graph.circles.length} circles between files, ${graph.backArrows.length} folder arrows against the engine's order`);
    for (const c of graph.circles) console.log(`  circle (${c.length} files): ${c.join(' → ')}`);
    for (const b of graph.backArrows) console.log(`  back: ${b.from} → ${b.to} (${b.count})`);
    for (const c of graph.folderCircles) console.log(`  folder circle: ${c.join(', ')}`);
  }
}
