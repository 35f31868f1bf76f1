import fs from 'node:fs';
import os from 'node:os';
import { getLlama, GgufFileType, GgufInsights, LlamaLogLevel, type Llama } from 'node-llama-cpp';
import { readModelHeader } from './headerInWorker.js';
import { defaultParallel } from './runtime.js';

/** What the model library shows about a GGUF file, read from its header (no weights loaded). */
export interface ModelMetadata {
  readonly architecture: string;
  readonly name: string | null;
  readonly parameters: number | null;
  readonly quantisation: string;
  readonly contextLength: number;
  readonly chatTemplate: boolean;
  readonly totalLayers: number;
}

export interface ModelFitEstimate {
  readonly gpuLayers: number;
  readonly totalLayers: number;
  readonly fitsGpu: boolean;
  readonly fitsRam: boolean;
  readonly vramBytes: number;
  readonly ramBytes: number;
  readonly summary: string;
}

/** The machine's memory as node-llama-cpp's insights see it; injectable so a test can pose as a small machine. */
export interface MemoryState {
  readonly ram?: () => Promise<{ total: number; free: number }>;
  readonly vram?: () => Promise<{ total: number; free: number; unifiedSize: number }>;
}

const GGUF_MAGIC = Buffer.from('GGUF');

/** Whether a file starts with the GGUF magic; checked first so a wrong file gets a plain answer. Opened non-blocking: a FIFO must not hang it. */
export function isGgufFile(file: string): boolean {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const head = Buffer.alloc(4);
    return fs.readSync(fd, head, 0, 4, 0) === 4 && head.equals(GGUF_MAGIC);
  } finally {
    fs.closeSync(fd);
  }
}

export function parametersLabel(n: number | null): string {
  if (n === null || n <= 0) return 'unknown';
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  return `${(n / 1e3).toFixed(1)}K`;
}

const gib = (bytes: number): string => `${(bytes / 2 ** 30).toFixed(bytes < 2 ** 30 ? 2 : 1)} GiB`;

let sharedLlama: Promise<Llama> | undefined;
/** One llama.cpp binding for metadata and fit estimates (the generation runtime loads its own). */
function llamaForInsights(): Promise<Llama> {
  sharedLlama ??= getLlama({ gpu: 'auto', build: 'never', logLevel: LlamaLogLevel.error, progressLogs: false });
  return sharedLlama;
}

/**
 * Reads a GGUF file's header with node-llama-cpp (on a worker, readModelHeader) and asks its insights whether the model fits:
 * how many layers the free VRAM takes and whether RAM holds the rest, for `sequences` parallel
 * sequences of `contextSize` tokens each (a run decodes several at once, each with its own cache;
 * absent: as many as a run takes by default where the model would run, see defaultParallel).
 */
export async function inspectModel(file: string, options: { contextSize?: number; sequences?: number; memory?: MemoryState } = {}): Promise<{ metadata: ModelMetadata; fit: ModelFitEstimate }> {
  // The header is untrusted: read off this thread, under a memory cap, by a reader that checks its counts.
  const header = await readModelHeader(file);
  if (!header.ok) throw new Error(header.error.message);
  const info = header.value;
  const llama = await llamaForInsights();
  const insights = await GgufInsights.from(info, llama);
  const general = (info.metadata as { general?: { architecture?: string; name?: string; file_type?: number } }).general ?? {};
  const tokenizer = (info.metadata as { tokenizer?: { chat_template?: string } }).tokenizer;
  const fileType = general.file_type;
  const metadata: ModelMetadata = {
    architecture: general.architecture ?? 'unknown',
    name: general.name ?? null,
    parameters: Number.isFinite(insights.totalParameters) && insights.totalParameters > 0 ? insights.totalParameters : null,
    quantisation: fileType === undefined ? 'unknown' : (GgufFileType[fileType] ?? String(fileType)),
    contextLength: insights.trainContextSize ?? 0,
    chatTemplate: typeof tokenizer?.chat_template === 'string' && tokenizer.chat_template.length > 0,
    totalLayers: insights.totalLayers,
  };
  const contextSize = Math.min(options.contextSize ?? 1024, metadata.contextLength || 1024);
  const sequences = Math.max(1, Math.floor(options.sequences ?? defaultParallel({ backend: llama.gpu === false ? 'cpu' : llama.gpu })));
  // The insights score one context; a context of n sequences holds n caches of contextSize
  // tokens (node-llama-cpp sizes it so), which is what one context of n × contextSize costs.
  const score = await insights.configurationResolver.scoreModelConfigurationCompatibility(
    { contextSize: contextSize * sequences, forceStrictContextSize: true },
    {
      ...(options.memory?.ram ? { getRamState: options.memory.ram } : {}),
      ...(options.memory?.vram ? { getVramState: options.memory.vram } : {}),
    },
  );
  const v = score.resolvedValues;
  const ram = options.memory?.ram ? await options.memory.ram() : { total: 0, free: 0 };
  const fitsGpu = llama.gpu !== false && v.gpuLayers >= insights.totalLayers && score.compatibilityScore > 0;
  const freeRam = options.memory?.ram ? ram.free : os.freemem();
  const fitsRam = v.totalRamUsage <= freeRam;
  const load = `${sequences} ${sequences === 1 ? 'sequence' : 'sequences'} of ${contextSize.toLocaleString('en-US')} tokens`;
  const summary = fitsGpu
    ? `fits the GPU (${v.gpuLayers}/${insights.totalLayers} layers, ${gib(v.totalVramUsage)} VRAM, ${load})`
    : fitsRam
      ? `${v.gpuLayers > 0 ? `${v.gpuLayers}/${insights.totalLayers} layers on the GPU, the rest` : 'runs'} on the CPU: ${gib(v.totalRamUsage)} of ${gib(freeRam)} free RAM (${load})`
      : `does not fit: needs ${gib(v.totalRamUsage)} RAM${llama.gpu ? ` and ${gib(v.totalVramUsage)} VRAM` : ''} for ${load}, ${gib(freeRam)} RAM free`;
  return { metadata, fit: { gpuLayers: v.gpuLayers, totalLayers: insights.totalLayers, fitsGpu, fitsRam: fitsGpu || fitsRam, vramBytes: v.totalVramUsage, ramBytes: v.totalRamUsage, summary } };
}
