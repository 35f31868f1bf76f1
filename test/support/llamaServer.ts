import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** The llama-server scripts/build-llama-server.sh built on this machine (or $WAPII_LLAMA_SERVER), if any. */
export function llamaServerBinary(): string | undefined {
  const named = process.env['WAPII_LLAMA_SERVER'];
  if (named) return fs.existsSync(named) ? named : undefined;
  const cache = process.env['WAPII_LLAMA_SERVER_CACHE'] ?? path.join(process.env['XDG_CACHE_HOME'] ?? path.join(os.homedir(), '.cache'), 'wapii', 'llama-server');
  if (!fs.existsSync(cache)) return undefined;
  for (const commit of fs.readdirSync(cache)) {
    const bin = path.join(cache, commit, 'llama-server');
    if (fs.existsSync(bin)) return bin;
  }
  return undefined;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface LlamaServer {
  readonly url: string;
  readonly child: ChildProcess;
  log(): string;
  /** SIGKILL: the server disappears with its requests in flight. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts llama-server on a free loopback port with `model`, and waits until /health answers 200 (the model is loaded). */
export async function startLlamaServer(binary: string, model: string, options: { slots?: number; threads?: number; context?: number } = {}): Promise<LlamaServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const slots = options.slots ?? 2;
  const args = ['-m', model, '--host', '127.0.0.1', '--port', String(port), '-c', String((options.context ?? 1024) * slots), '-np', String(slots), '-t', String(options.threads ?? 1), '--no-webui'];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-20_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`llama-server exited with ${child.exitCode}: ${output.slice(-2000)}`);
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await end('SIGKILL');
      throw new Error(`llama-server did not become ready: ${output.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, child, log: () => output, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}
