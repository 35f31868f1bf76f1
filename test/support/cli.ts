import { runCli } from '../../main/cli/program.js';
import { Store } from '../../main/store/index.js';

/** Runs the `wapii` command in this process and collects what it printed. */
export async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** Everything the database holds, to prove a failed command wrote nothing. */
export function databaseSnapshot(db: string): string {
  const opened = Store.open(db);
  if (!opened.ok) throw new Error(opened.error.message);
  const store = opened.value;
  try {
    const datasets = store.listDatasets();
    return JSON.stringify({ counts: store.counts(), datasets, samples: datasets.map((d) => store.listSamples(d.id)) });
  } finally {
    store.close();
  }
}
