import fs from 'node:fs';
import path from 'node:path';
import type { FileInput } from '../api/contract.js';

/** The embedded demo: `specs/*.yaml|json` and `datasets/demo.json` under the app's root. */
export function readDemo(root: string): { dataset: FileInput; specs: FileInput[] } {
  const specDir = path.join(root, 'specs');
  const specs = fs
    .readdirSync(specDir)
    .filter((f) => /\.(ya?ml|json)$/i.test(f))
    .map((f) => ({ filename: f, content: fs.readFileSync(path.join(specDir, f), 'utf8') }));
  const datasetFile = path.join(root, 'datasets', 'demo.json');
  return { dataset: { filename: 'demo.json', content: fs.readFileSync(datasetFile, 'utf8') }, specs };
}
