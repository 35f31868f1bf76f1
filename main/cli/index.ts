import { runCli } from './program.js';

// Ctrl-C once: a run stops after the samples in flight (all stored, resumable); twice: exit now.
const interrupt = new AbortController();
process.on('SIGINT', () => {
  if (interrupt.signal.aborted) process.exit(130);
  interrupt.abort();
});

const code = await runCli(process.argv.slice(2), {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  signal: interrupt.signal,
  isTTY: process.stderr.isTTY === true,
  untilStopped: () =>
    new Promise<void>((resolve) => {
      if (interrupt.signal.aborted) resolve();
      interrupt.signal.addEventListener('abort', () => resolve(), { once: true });
      process.once('SIGTERM', resolve);
    }),
});
process.exitCode = code;
