// Reads untrusted GGUF headers on their own thread, for readModelHeader (headerInWorker.ts). Jobs
// {id, file} in; for each, one {id, result} out: node-llama-cpp's file info, or why the file is refused.
import { parentPort } from 'node:worker_threads';
import { readGgufFileInfo } from 'node-llama-cpp';
import { fail, ok } from '../api/result.js';
import { readGgufFileHeader } from '../gguf/read.js';

const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unreadable';

parentPort?.on('message', (job: { id: number; file: string }) => {
  void (async () => {
    try {
      // Our bounded reader first: every declared count is checked against the file's bytes, so
      // node-llama-cpp's reader (which allocates what a header declares) never sees a header that lies.
      readGgufFileHeader(job.file, { tensors: true, values: false });
      const info = await readGgufFileInfo(job.file, { sourceType: 'filesystem', logWarnings: false });
      parentPort?.postMessage({ id: job.id, result: ok(info) });
    } catch (error) {
      parentPort?.postMessage({ id: job.id, result: fail('bad_input', firstLine(error)) });
    }
  })();
});
