import type { GenerationBackend, SamplingOptions } from './backend.js';
import type { Constrainer } from './constrainer.js';
import { providerBackend, type ProviderTotals } from './providerBackend.js';
import { openAiCompatible, type ServerEngine } from '../providers/openaiCompatible.js';

export interface RemoteOptions extends SamplingOptions {
  /** The server's base URL (`http://host:8080` or `.../v1`). */
  readonly url: string;
  readonly model: string;
  readonly parallel: number;
  /** Constrain by each API's exported GBNF, sent in the engine's field (llama-server `grammar`, vLLM `structured_outputs`). */
  readonly constrainBy?: Constrainer;
  /** A key for a server behind auth (Bearer), sent only to this URL's origin. */
  readonly apiKey?: string;
  readonly engine?: ServerEngine;
  readonly promptStyle?: 'completion' | 'chat';
  readonly signal?: AbortSignal;
  readonly onFatal?: (message: string) => void;
  /** No answer after this long: the request is abandoned and retried (default 120 s). */
  readonly timeoutMs?: number;
  readonly fetch?: typeof fetch;
}

/**
 * An OpenAI-compatible server (llama-server, vLLM) as a backend: the openai-compatible provider
 * behind the provider adapter — one POST /v1/completions per sample, abortable and timed out,
 * 429/5xx retried, the grammar attached when constrained. The server decodes; the per-token
 * record of interventions stays on its side.
 */
export function remoteBackend(options: RemoteOptions): GenerationBackend & { totals(): ProviderTotals } {
  const provider = openAiCompatible({
    baseUrl: options.url,
    model: options.model,
    concurrency: options.parallel,
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.engine ? { engine: options.engine } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const backend = providerBackend(provider, {
    temperature: options.temperature,
    topK: options.topK,
    topP: options.topP,
    maxTokens: options.maxTokens,
    ...(options.promptStyle ? { promptStyle: options.promptStyle } : {}),
    ...(options.constrainBy ? { constrainBy: options.constrainBy } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onFatal ? { onFatal: options.onFatal } : {}),
  });
  return { ...backend, manifest: { ...backend.manifest, engine: 'openai-compatible', url: options.url.replace(/\/+$/, '') } };
}
