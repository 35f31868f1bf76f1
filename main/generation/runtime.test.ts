import type { Llama } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PARALLEL, DEFAULT_PARALLEL_GPU } from '../api/constants.js';
import { defaultParallel, defaultThreads, describeDecoding, physicalCores, SMALL_MODEL_BYTES } from './runtime.js';

// defaultThreads reads only whether node-llama-cpp found a GPU (and its core estimate where /proc/cpuinfo says nothing).
const cpu = { gpu: false, cpuMathCores: 2 } as unknown as Llama;
const cuda = { gpu: 'cuda', cpuMathCores: 2 } as unknown as Llama;

describe('the default CPU thread count', () => {
  it('is one for a small model on the CPU, one per physical core otherwise', () => {
    expect(defaultThreads(cpu, 26_000_000).threads).toBe(1);
    expect(defaultThreads(cpu, SMALL_MODEL_BYTES - 1).threads).toBe(1);
    expect(defaultThreads(cpu, SMALL_MODEL_BYTES).threads).toBe(physicalCores(cpu));
    expect(defaultThreads(cpu, 237_000_000).threads).toBe(physicalCores(cpu));
    // On a GPU the CPU threads feed the device: the core count stays.
    expect(defaultThreads(cuda, 26_000_000).threads).toBe(physicalCores(cuda));
  });

  it('is explained in the run’s decoding line, unless threads were asked for', () => {
    const small = defaultThreads(cpu, 26_000_000);
    expect(describeDecoding({ backend: 'cpu', threads: small.threads, threadsReason: small.reason }, { parallel: undefined, threads: undefined })).toMatch(/; 1 CPU thread \(one: a model under 64 MiB on the CPU decodes faster on one thread than on more\)$/);
    expect(describeDecoding({ backend: 'cpu', threads: 3, threadsReason: small.reason }, { parallel: 2, threads: 3 })).toBe('decoding: 2 sequences at a time (as asked (--parallel)); 3 CPU threads (as asked (--threads))');
  });
});

describe('the default number of parallel sequences', () => {
  const gpu = { backend: 'cuda' as const, threads: 16, threadsReason: 'one per physical core' };
  it('is 4 on the CPU and 8 on a GPU, and the decoding line says which and why', () => {
    expect(defaultParallel({ backend: 'cpu' })).toBe(DEFAULT_PARALLEL);
    expect(defaultParallel({ backend: 'cuda' })).toBe(DEFAULT_PARALLEL_GPU);
    expect(defaultParallel({ backend: 'vulkan' })).toBe(DEFAULT_PARALLEL_GPU);
    expect(DEFAULT_PARALLEL_GPU).toBeGreaterThan(DEFAULT_PARALLEL);
    expect(describeDecoding(gpu, { parallel: undefined, threads: undefined })).toMatch(/^decoding: 8 sequences at a time \(the default on a GPU: in the generation bench on an H100, 8 sequences in one batch decoded [^)]+\); 16 CPU threads \(one per physical core\)$/);
    expect(describeDecoding({ backend: 'cpu', threads: 2, threadsReason: 'x' }, { parallel: undefined, threads: undefined })).toMatch(/^decoding: 4 sequences at a time \(the default on the CPU: /);
  });

  it('says so when the memory held fewer caches than the default, and not when they were asked for', () => {
    expect(describeDecoding(gpu, { parallel: undefined, threads: undefined }, 2)).toMatch(/^decoding: 2 sequences at a time \(the default on a GPU: .*; the memory held the caches of 2, not 8\); /);
    expect(describeDecoding(gpu, { parallel: 2, threads: undefined }, 2)).toMatch(/^decoding: 2 sequences at a time \(as asked \(--parallel\)\); /);
  });
});
