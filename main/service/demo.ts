import fs from 'node:fs';
import path from 'node:path';
import type { FileInput } from '../api/contract.js';

/** A demo run shipped as program files: `datasets/demo-runs/<name>/NNNN_code.js` and its `run.json`. */
export interface DemoRun {
  readonly name: string;
  readonly meta: { readonly model: string; readonly setup: string; readonly setting: string; readonly prompt: string };
  /** Program text by sample position. */
  readonly codes: ReadonlyMap<number, string>;
}

export interface Demo {
  readonly dataset: FileInput;
  readonly specs: FileInput[];
  readonly runs?: readonly DemoRun[];
  /** Tasks of several requests over the same API (scoring.md §7), a dataset of their own, with their demo runs. */
  readonly multiStep?: { readonly dataset: FileInput; readonly runs: readonly DemoRun[] };
}

function readDemoRuns(dir: string): DemoRun[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(dir, e.name, 'run.json')))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const folder = path.join(dir, name);
      const codes = new Map<number, string>();
      for (const file of fs.readdirSync(folder)) {
        const m = /^(\d{4})(?:_code)?\.js$/.exec(file);
        if (m) codes.set(Number(m[1]), fs.readFileSync(path.join(folder, file), 'utf8'));
      }
      return { name, meta: JSON.parse(fs.readFileSync(path.join(folder, 'run.json'), 'utf8')) as DemoRun['meta'], codes };
    });
}

/** The embedded demo: `specs/*.yaml|json`, `datasets/demo.json` and the scored demo runs under the app's root. */
export function readDemo(root: string): Demo {
  const specDir = path.join(root, 'specs');
  const specs = fs
    .readdirSync(specDir)
    .filter((f) => /\.(ya?ml|json)$/i.test(f))
    .map((f) => ({ filename: f, content: fs.readFileSync(path.join(specDir, f), 'utf8') }));
  const datasetFile = path.join(root, 'datasets', 'demo.json');
  const multiStepFile = path.join(root, 'datasets', 'demo-multistep.json');
  const multiStep = fs.existsSync(multiStepFile) ? { dataset: { filename: 'demo-multistep.json', content: fs.readFileSync(multiStepFile, 'utf8') }, runs: readDemoRuns(path.join(root, 'datasets', 'demo-multistep-runs')) } : undefined;
  return { dataset: { filename: 'demo.json', content: fs.readFileSync(datasetFile, 'utf8') }, specs, runs: readDemoRuns(path.join(root, 'datasets', 'demo-runs')), ...(multiStep ? { multiStep } : {}) };
}
