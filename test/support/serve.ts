import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

export interface ServeProcess {
  readonly url: string;
  readonly openUrl: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the real `wapii serve` in a child process and waits for the URL it prints; `args` are global options (`--db`), `serveArgs` serve's own (`--no-demo`). */
export function startServe(args: readonly string[], serveArgs: readonly string[] = []): Promise<ServeProcess> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), ...args, 'serve', '--port', '0', ...serveArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wapii serve printed no URL within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /at (http:\/\/\S+\/\?token=\S+)/.exec(output);
      if (!match?.[1]) return;
      clearTimeout(timer);
      const openUrl = match[1];
      resolve({
        url: openUrl.replace(/\/\?token=.*$/, ''),
        openUrl,
        child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`wapii serve exited with ${code}:\n${output}`));
    });
  });
}
