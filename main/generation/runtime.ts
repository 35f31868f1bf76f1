import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GgufFileType, type Llama, type LlamaModel, type Token } from 'node-llama-cpp';
import { loadGguf, openLlama } from '../providers/local.js';
import { DEFAULT_PARALLEL, DEFAULT_PARALLEL_GPU } from '../api/constants.js';
import { reconcileVocabulary, vocabularyFromGguf, type Vocabulary } from '../gguf/index.js';
import { nodeLlamaCppRoot } from './vocabularies.js';

export type GpuChoice = 'auto' | 'cpu';

/** What the model runs on, as a run's manifest and the UI report it. */
export interface RuntimeInfo {
  readonly backend: 'cuda' | 'vulkan' | 'metal' | 'cpu';
  readonly devices: readonly string[];
  readonly threads: number;
  /** Why that many CPU threads (see defaultThreads), or that they were asked for. */
  readonly threadsReason: string;
  readonly layersOffloaded: number;
  readonly layers: number;
  readonly vramUsedBytes: number;
  readonly ramUsedBytes: number;
  /** Why generation runs on the CPU, when it does. */
  readonly cpuReason?: string;
  readonly architecture: string;
  readonly quantisation: string;
  readonly trainContextSize: number;
  readonly modelFile: string;
  readonly modelSha256: string;
  readonly nodeLlamaCpp: string;
}

export interface Runtime {
  readonly llama: Llama;
  readonly model: LlamaModel;
  readonly info: RuntimeInfo;
  /**
   * The model's vocabulary from its GGUF metadata, reconciled with how llama.cpp treats each token;
   * read on first use and shared by every backend on this model (a constrained run's constrainer
   * prepares its token index once: main/runner/constrainer.ts).
   */
  vocabulary(): Vocabulary;
  dispose(): Promise<void>;
}

/**
 * Physical cores, from /proc/cpuinfo where it says (Linux), else node-llama-cpp's estimate.
 * Thread count matters: node-llama-cpp's default of 4 threads on this 2-core machine made
 * generation about 100× slower than 2.
 */
/** Models smaller than this decode on one CPU thread by default (see defaultThreads). */
export const SMALL_MODEL_BYTES = 64 * 2 ** 20;

/**
 * The CPU threads a model decodes on unless asked: one per physical core, but one for a model
 * under SMALL_MODEL_BYTES on the CPU, whose arithmetic per token is less than waking and
 * joining a second thread costs (the generation bench, 2 cores: the 26 MB test model made 563
 * tokens/s on one thread and 83 on two; the 237 MB one the same on either for one sequence, and
 * 1.5× more on two for four sequences).
 */
export function defaultThreads(llama: Llama, modelBytes: number): { threads: number; reason: string } {
  if (llama.gpu === false && modelBytes < SMALL_MODEL_BYTES) {
    return { threads: 1, reason: `one: a model under ${SMALL_MODEL_BYTES / 2 ** 20} MiB on the CPU decodes faster on one thread than on more` };
  }
  return { threads: physicalCores(llama), reason: 'one per physical core: more than the cores slows every token' };
}

export function physicalCores(llama?: Llama): number {
  try {
    const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
    const cores = new Set<string>();
    let physical = '0';
    for (const line of cpuinfo.split('\n')) {
      const [key, value] = line.split(':').map((s) => s.trim());
      if (key === 'physical id') physical = value ?? '0';
      if (key === 'core id') cores.add(`${physical}.${value}`);
    }
    if (cores.size > 0) return Math.min(cores.size, os.availableParallelism());
  } catch {
    // not Linux: fall through
  }
  return llama?.cpuMathCores ?? Math.max(1, Math.floor(os.availableParallelism() / 2));
}

export function sha256File(file: string): string {
  const hash = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(8 * 1024 * 1024);
    for (let n; (n = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0; ) hash.update(buffer.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

function packageVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(nodeLlamaCppRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * Loads a GGUF model: on the GPU node-llama-cpp detects (CUDA, Vulkan, Metal) with as many layers
 * offloaded as fit, else on the CPU with one thread per physical core. Never builds llama.cpp
 * from source (that needs a toolchain and minutes); the prebuilt binaries cover the platforms.
 */
export async function loadRuntime(modelFile: string, options: { gpu?: GpuChoice; threads?: number; sha256?: (file: string) => string } = {}): Promise<Runtime> {
  if (!fs.existsSync(modelFile)) throw new Error(`model file not found: ${modelFile}`);
  const llama = await openLlama(options.gpu === 'cpu' ? 'cpu' : 'auto');
  const chosen = options.threads !== undefined ? { threads: options.threads, reason: 'as asked (--threads)' } : defaultThreads(llama, fs.statSync(modelFile).size);
  const threads = chosen.threads;
  const model = await loadGguf(llama, modelFile);
  const gpu = llama.gpu;
  const vram = gpu ? await llama.getVramState() : undefined;
  const memory = await llama.getLlamaMemoryUsage();
  const layers = model.fileInsights.totalLayers;
  const general = model.fileInfo.metadata.general as { architecture?: string; file_type?: number };
  let cpuReason: string | undefined;
  if (options.gpu === 'cpu') cpuReason = 'the CPU was asked for (--gpu cpu)';
  else if (!gpu) cpuReason = 'node-llama-cpp found no usable GPU backend (CUDA, Vulkan or Metal) on this machine';
  else if (model.gpuLayers === 0) cpuReason = `no layer fits in the free VRAM (${vram ? Math.round(vram.free / 2 ** 20) : '?'} MiB)`;
  const fileType = general.file_type;
  const info: RuntimeInfo = {
    backend: gpu === false ? 'cpu' : gpu,
    devices: gpu ? await llama.getGpuDeviceNames() : [os.cpus()[0]?.model ?? 'cpu'],
    threads,
    threadsReason: chosen.reason,
    layersOffloaded: model.gpuLayers,
    layers,
    vramUsedBytes: vram?.used ?? 0,
    ramUsedBytes: memory.cpuRam,
    ...(cpuReason ? { cpuReason } : {}),
    architecture: general.architecture ?? 'unknown',
    quantisation: fileType === undefined ? 'unknown' : (GgufFileType[fileType] ?? String(fileType)),
    trainContextSize: model.trainContextSize,
    modelFile,
    // The caller's hash cache when it has one (cachedSha256): loading a model must not re-read gigabytes.
    modelSha256: (options.sha256 ?? sha256File)(modelFile),
    nodeLlamaCpp: packageVersion(),
  };
  let vocabulary: Vocabulary | undefined;
  return {
    llama,
    model,
    info,
    vocabulary: () => {
      if (vocabulary) return vocabulary;
      vocabulary = reconcileVocabulary(vocabularyFromGguf(modelFile), { isControl: (id) => model.isSpecialToken(id as Token), isEndOfGeneration: (id) => model.isEogToken(id as Token) });
      return vocabulary;
    },
    async dispose() {
      await model.dispose();
      await llama.dispose();
    },
  };
}

export function describeRuntime(info: RuntimeInfo): string {
  const where = info.backend === 'cpu' ? `CPU, ${info.threads} threads (${info.cpuReason})` : `${info.backend} on ${info.devices.join(', ')}, ${info.layersOffloaded}/${info.layers} layers offloaded, ${Math.round(info.vramUsedBytes / 2 ** 20)} MiB VRAM`;
  return `${info.architecture} ${info.quantisation}, ${where}, ${Math.round(info.ramUsedBytes / 2 ** 20)} MiB RAM`;
}

/** Sequences decoded at once where none were asked for: more on a GPU, where a batch costs little more than one token. */
export function defaultParallel(info: Pick<RuntimeInfo, 'backend'>): number {
  return info.backend === 'cpu' ? DEFAULT_PARALLEL : DEFAULT_PARALLEL_GPU;
}

/**
 * The run's second line: how many sequences are decoded at once and on how many threads, and why
 * (the defaults follow `npm run bench -- generation`, see the README's Benchmarks). `sequences` is
 * what the context was made with: fewer than the default where the memory held no more caches.
 */
export function describeDecoding(
  info: Pick<RuntimeInfo, 'backend' | 'threads' | 'threadsReason'>,
  choice: { parallel: number | undefined; threads: number | undefined },
  sequences = choice.parallel ?? defaultParallel(info),
): string {
  const fallback = choice.parallel === undefined && sequences < defaultParallel(info) ? `; the memory held the caches of ${sequences}, not ${defaultParallel(info)}` : '';
  const why =
    choice.parallel !== undefined
      ? 'as asked (--parallel)'
      : info.backend === 'cpu'
        ? `the default on the CPU: in the generation bench on 2 CPU cores, 4 sequences in one batch decoded 1.6 to 2.1× the tokens/s of one on 12×512 models, 1.3 to 1.8× on a tiny one: the CPU decode of 4 tokens costs 2 to 3 times one${fallback}`
        : `the default on a GPU: in the generation bench on an H100, 8 sequences in one batch decoded 3.7 to 4.7× the tokens/s of one on 12×512 models, 4 sequences 2.6 to 2.9×${fallback}`;
  const threads = choice.threads !== undefined ? 'as asked (--threads)' : info.threadsReason;
  return `decoding: ${sequences} sequence${sequences === 1 ? '' : 's'} at a time (${why}); ${info.threads} CPU thread${info.threads === 1 ? '' : 's'} (${threads})`;
}
