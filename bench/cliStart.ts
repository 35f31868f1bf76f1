import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { builtCli } from '../bin/built.mjs';
import { fmt, percentiles } from './stats.js';

interface Case {
  readonly label: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
}

function timeRuns(c: Case, runs: number): number[] {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const done = spawnSync(process.execPath, [...c.args], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...c.env } });
    const ms = performance.now() - t0;
    if (done.status !== 0) throw new Error(`${c.label} exited ${done.status}: ${done.stderr.toString().split('\n')[0] ?? ''}`);
    times.push(ms);
  }
  return times;
}

/**
 * How long `wapii` takes to start: `--help` from the build (answered from its help manifest),
 * `--help` from the TypeScript through tsx (development), and `list` on an empty database from
 * the build (the engine loaded), each the median of N runs beside the median of `node -e 0`,
 * in one process, alternating case by case so that the machine's drift hits each alike.
 */
export async function benchCliStart(root: string): Promise<void> {
  const runs = Number(process.env['WAPII_BENCH_CLI_RUNS'] ?? 15);
  const bin = path.join(root, 'bin', 'wapii.mjs');
  const built = builtCli(root) !== undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wapii-cli-start-'));
  const db = path.join(dir, 'wapii.db');
  const cases: Case[] = [
    { label: 'node -e 0', args: ['-e', '0'] },
    ...(built ? [{ label: 'wapii --help (built)', args: [bin, '--help'] }] : []),
    { label: 'wapii --help (sources, tsx)', args: [bin, '--help'], env: { WAPII_CLI_SOURCE: '1' } },
    ...(built ? [{ label: 'wapii list, empty database (built)', args: [bin, '--db', db, 'list'] }] : []),
    { label: 'wapii list, empty database (sources, tsx)', args: [bin, '--db', db, 'list'], env: { WAPII_CLI_SOURCE: '1' } },
  ];
  console.log(`\n## CLI start (median of ${runs} runs each, interleaved; ${os.cpus().length} CPUs, load ${os.loadavg().map((l) => fmt(l, 1)).join(' ')})\n`);
  if (!built) console.log('No fresh build in out/cli (run `npm run build`): only the sources are timed.\n');
  const times = new Map<string, number[]>(cases.map((c) => [c.label, []]));
  try {
    for (let i = 0; i < runs; i++) for (const c of cases) times.get(c.label)?.push(...timeRuns(c, 1));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  // bin/wapii.mjs falls back to tsx once a source is newer than the build, so the built rows would not be the build's.
  if (built && builtCli(root) === undefined) console.log('A source changed during the runs: the build went stale and the rows marked built may have run the sources.\n');
  const base = percentiles(times.get('node -e 0') ?? []).p50;
  console.log('| | median ms | min ms | × node -e 0 |');
  console.log('|---|---:|---:|---:|');
  for (const c of cases) {
    const t = times.get(c.label) ?? [];
    console.log(`| ${c.label} | ${fmt(percentiles(t).p50, 1)} | ${fmt(Math.min(...t), 1)} | ${fmt(percentiles(t).p50 / base, 1)} |`);
  }
}
