import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The WAPIIBench data beside the checkout (../shared/wapiibench); never copied into the repo. */
export const WAPIIBENCH = path.resolve(REPO_ROOT, '..', 'shared', 'wapiibench');
export const WAPIIBENCH_SPECS = path.join(WAPIIBENCH, 'specs');
export const WAPIIBENCH_ALL = path.join(WAPIIBENCH, 'dataset', 'all.json');
export const hasWapiiBench = fs.existsSync(WAPIIBENCH_ALL);
export const DEMO_SPECS = path.join(REPO_ROOT, 'specs');
export const DEMO_DATASET = path.join(REPO_ROOT, 'datasets', 'demo.json');
export const ARTIFACTS = path.join(REPO_ROOT, 'test-results');

export function tempDir(prefix = 'wapii-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
