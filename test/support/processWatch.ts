import fs from 'node:fs';

/** VmRSS of a process in MB, or undefined once it is gone (Linux /proc). */
function residentMb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

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
