import fs from 'node:fs';
import { residentMb } from '../../main/execution/supervisor.js';

function childrenOf(pid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * Samples the resident memory of a process and of its children (the sandbox processes) every
 * 20 ms until stopped; returns the highest values seen.
 */
export function watchMemory(pid: number): () => { hostMb: number; childMb: number; children: number } {
  let hostMb = 0;
  let childMb = 0;
  const seen = new Set<number>();
  const sample = (): void => {
    hostMb = Math.max(hostMb, residentMb(pid) ?? 0);
    for (const child of childrenOf(pid)) {
      seen.add(child);
      childMb = Math.max(childMb, residentMb(child) ?? 0);
    }
  };
  const timer = setInterval(sample, 20);
  sample();
  return () => {
    clearInterval(timer);
    return { hostMb, childMb, children: seen.size };
  };
}
