// A sandbox in its own process, owned by the supervisor (supervisor.ts). Messages over the IPC
// channel: {id, code, timeoutMs} in, {id, execution} out; {ready: true} once the isolate is up.
import { Worker } from 'node:worker_threads';
import { Sandbox, type CaptureMode, type Execution, type SandboxOptions, type Stub } from './sandbox.js';

interface Job {
  readonly id: number;
  readonly code: string;
  readonly timeoutMs?: number;
  readonly compat?: CaptureMode;
  readonly stubs?: readonly Stub[];
}

const options = JSON.parse(process.argv[2] ?? '{}') as SandboxOptions;
const sandbox = new Sandbox(options);
const send = (message: unknown): void => {
  process.send?.(message);
};

process.on('message', (job: Job) => {
  let execution: Execution;
  try {
    execution = sandbox.run(job.code, { ...(job.timeoutMs === undefined ? {} : { timeoutMs: job.timeoutMs }), ...(job.compat === 'reference' ? { compat: 'reference' as const } : {}), ...(Array.isArray(job.stubs) ? { stubs: job.stubs } : {}) });
  } catch (e) {
    execution = { requests: [], console: [], error: { kind: 'crashed', message: `the sandbox failed: ${e instanceof Error ? e.message : 'unknown error'}` }, durationMs: 0 };
  }
  send({ id: job.id, execution });
});
// The supervisor is gone: so is the reason to live. A program can hold this thread in a loop
// isolated-vm cannot interrupt, so a watchdog thread checks for the parent too.
process.on('disconnect', () => process.exit(0));
new Worker(`const parent = process.ppid; setInterval(() => { if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL'); }, 500);`, { eval: true }).unref();
send({ ready: true });
