// Which `wapii` to start: the CLI `npm run build` bundled into out/cli (plain JavaScript, quick to
// start), or the TypeScript sources through tsx when there is no build or a source changed since
// it began (development: an edit takes effect without a rebuild).
import fs from 'node:fs';
import path from 'node:path';

/** What the bundle was built from; sources changed after `builtFrom` make it stale. */
export const BUILD_DIR = path.join('out', 'cli');
export const MANIFEST = 'help.json';

// The files the bundle is made of: the engine's sources (not its tests) and the build's config.
const SOURCE_DIRS = ['main'];
const SOURCE_FILES = ['vite.cli.config.ts', 'package.json'];
const isSource = (name) => /\.(ts|mts|mjs|js|json)$/.test(name) && !name.endsWith('.test.ts');

function newestIn(dir, since) {
  let entries;
  try {
    // A folder's own time moves when a file in it is added, removed or renamed over.
    if (fs.statSync(dir).mtimeMs > since) return true;
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (newestIn(full, since)) return true;
    } else if (isSource(entry.name) && fs.statSync(full, { throwIfNoEntry: false })?.mtimeMs > since) {
      return true;
    }
  }
  return false;
}

/** Whether any source of the bundle was written after `since` (ms since the epoch). */
export function changedSince(root, since) {
  if (SOURCE_FILES.some((f) => (fs.statSync(path.join(root, f), { throwIfNoEntry: false })?.mtimeMs ?? 0) > since)) return true;
  return SOURCE_DIRS.some((d) => newestIn(path.join(root, d), since));
}

/**
 * The built CLI under `root` with its help manifest, or undefined when there is none, it is
 * incomplete (the manifest is written last), or a source is newer than the build's start.
 */
export function builtCli(root) {
  const dir = path.join(root, BUILD_DIR);
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof manifest?.builtFrom !== 'number' || !fs.existsSync(path.join(dir, 'index.js'))) return undefined;
  if (changedSince(root, manifest.builtFrom)) return undefined;
  return { entry: path.join(dir, 'index.js'), manifest };
}
