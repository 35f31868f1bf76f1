// A sandbox on its own thread, for SandboxPool. Messages: {id, code, timeoutMs} in, {id, execution} out.
import { parentPort, workerData } from 'node:worker_threads';
import { Sandbox, type SandboxOptions } from './sandbox.js';

const sandbox = new Sandbox(workerData as SandboxOptions);
parentPort?.on('message', (message: { id: number; code: string; timeoutMs?: number }) => {
  const execution = sandbox.run(message.code, message.timeoutMs === undefined ? {} : { timeoutMs: message.timeoutMs });
  parentPort?.postMessage({ id: message.id, execution });
});
