import type { HttpOptions } from './http.js';
import type { Price, PriceTable } from './prices.js';
import type { ModelProvider, ProviderCapabilities } from './types.js';

/**
 * Every model provider the workbench knows, by name: what it is called, where its key comes from,
 * what it can do, what it costs, and how to make one. Runs, synthesis, New run's list, the key
 * store, the CLI's choices and the price table all read this one table, so adding a provider is
 * its file and its entry here. A factory is loaded when first used (the local one loads
 * node-llama-cpp).
 */

/** What a caller gives a factory. */
export interface ProviderSettings extends HttpOptions {
  /** The model's name at the provider; for a local model, its GGUF file. */
  readonly model: string;
  /** Absent: the entry's defaultBaseUrl. */
  readonly baseUrl?: string;
  /** More servers sharing the work (entries that pool). */
  readonly pool?: readonly string[];
  readonly concurrency?: number;
  /** OpenAI's Batch API: the batches a resumed run submitted, and where to record a new one. */
  readonly batch?: { readonly batches?: readonly string[]; readonly onBatch?: (batchId: string) => void; readonly pollMs?: number };
}

export interface ProviderEntry {
  readonly label: string;
  /** Environment variables its key is read from, the first named in messages; empty: it takes no key. */
  readonly keyVariables: readonly string[];
  /** `required`: nothing answers without it; `optional`: sent where set (a server of your own behind auth). */
  readonly key: 'required' | 'optional' | 'none';
  /** The API's own address; absent: the user names the server (`--base-url`). */
  readonly defaultBaseUrl?: string;
  /** The one host a key may go to besides this machine (the official API). */
  readonly keyHost?: string;
  /** What `--model` names: a model at the provider, or a GGUF file (a local model, picked from the library for runs). */
  readonly modelIs: 'name' | 'file';
  readonly defaultModel?: string;
  readonly capabilities: ProviderCapabilities;
  /** Several base URLs can share one run (a pool). */
  readonly pools?: boolean;
  /** US dollars per million tokens, by model-name prefix (prices.ts; a user's file overrides them). */
  readonly prices?: Readonly<Record<string, Price>>;
  readonly create: (settings: ProviderSettings) => Promise<ModelProvider>;
}

const chatOnly = { logits: false, completion: false, chat: true, batch: false, listsModels: true } as const;

const TABLE = {
  openai: {
    label: 'OpenAI',
    keyVariables: ['OPENAI_API_KEY'],
    key: 'required',
    defaultBaseUrl: 'https://api.openai.com/v1',
    keyHost: 'api.openai.com',
    modelIs: 'name',
    capabilities: { ...chatOnly, constraints: 'none', prefill: false, batch: true, jsonSchema: true },
    prices: {
      'gpt-4o-mini': { input: 0.15, output: 0.6, batchInput: 0.075, batchOutput: 0.3 },
      'gpt-4o': { input: 2.5, output: 10, batchInput: 1.25, batchOutput: 5 },
      'gpt-4.1-nano': { input: 0.1, output: 0.4, batchInput: 0.05, batchOutput: 0.2 },
      'gpt-4.1-mini': { input: 0.4, output: 1.6, batchInput: 0.2, batchOutput: 0.8 },
      'gpt-4.1': { input: 2, output: 8, batchInput: 1, batchOutput: 4 },
      'gpt-5-nano': { input: 0.05, output: 0.4, batchInput: 0.025, batchOutput: 0.2 },
      'gpt-5-mini': { input: 0.25, output: 2, batchInput: 0.125, batchOutput: 1 },
      'gpt-5': { input: 1.25, output: 10, batchInput: 0.625, batchOutput: 5 },
    },
    create: async (s) => {
      const key = requireKey(s, 'OpenAI');
      if (s.batch) {
        const { openAiBatch } = await import('./openaiBatch.js');
        return openAiBatch({ ...s, apiKey: key, ...(s.batch.batches ? { batches: s.batch.batches } : {}), ...(s.batch.onBatch ? { onBatch: s.batch.onBatch } : {}), ...(s.batch.pollMs !== undefined ? { pollMs: s.batch.pollMs } : {}) });
      }
      const { openAiChat } = await import('./openai.js');
      return openAiChat({ ...s, apiKey: key });
    },
  },
  anthropic: {
    label: 'Anthropic',
    keyVariables: ['ANTHROPIC_API_KEY'],
    key: 'required',
    defaultBaseUrl: 'https://api.anthropic.com',
    keyHost: 'api.anthropic.com',
    modelIs: 'name',
    capabilities: { ...chatOnly, constraints: 'none', prefill: true, jsonSchema: false },
    prices: {
      'claude-haiku-4-5': { input: 1, output: 5 },
      'claude-3-5-haiku': { input: 0.8, output: 4 },
      'claude-sonnet-4': { input: 3, output: 15 },
      'claude-opus-4': { input: 15, output: 75 },
    },
    create: async (s) => {
      const { anthropicMessages } = await import('./anthropic.js');
      return anthropicMessages({ ...s, apiKey: requireKey(s, 'Anthropic') });
    },
  },
  gemini: {
    label: 'Gemini',
    keyVariables: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    key: 'required',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
    keyHost: 'generativelanguage.googleapis.com',
    modelIs: 'name',
    defaultModel: 'gemini-2.5-pro',
    capabilities: { ...chatOnly, constraints: 'none', prefill: false, jsonSchema: true },
    prices: {
      'gemini-3-pro': { input: 2, output: 12 },
      'gemini-2.5-pro': { input: 1.25, output: 10 },
      'gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
      'gemini-2.5-flash': { input: 0.3, output: 2.5 },
      'gemini-2.0-flash': { input: 0.1, output: 0.4 },
    },
    create: async (s) => {
      const { geminiGenerate } = await import('./gemini.js');
      return geminiGenerate({ ...s, apiKey: requireKey(s, 'Gemini') });
    },
  },
  'openai-compatible': {
    label: 'OpenAI-compatible server (llama-server, vLLM, a proxy)',
    // A server of your own behind auth (vLLM --api-key, llama-server --api-key, OpenRouter): sent only to the run's base URL.
    keyVariables: ['OPENAI_COMPATIBLE_API_KEY'],
    key: 'optional',
    modelIs: 'name',
    capabilities: { logits: false, constraints: 'grammar', completion: true, chat: true, prefill: false, batch: false, listsModels: true, jsonSchema: true },
    pools: true,
    create: async (s) => {
      const { openAiCompatible } = await import('./openaiCompatible.js');
      const urls = [...new Set([...(s.baseUrl ? [s.baseUrl] : []), ...(s.pool ?? [])])];
      const [first] = urls;
      if (first === undefined) throw new Error('an OpenAI-compatible server needs its base URL (--base-url)');
      if (urls.length === 1) return openAiCompatible({ ...s, baseUrl: first });
      // In a pool a failing server hands its request to another at once rather than retrying it itself.
      const { poolProvider } = await import('./pool.js');
      return poolProvider(urls.map((baseUrl) => openAiCompatible({ ...s, baseUrl, retry: { retries: 0, minDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 } })));
    },
  },
  ollama: {
    label: 'Ollama',
    keyVariables: [],
    key: 'none',
    defaultBaseUrl: 'http://127.0.0.1:11434',
    modelIs: 'name',
    capabilities: { logits: false, constraints: 'none', completion: true, chat: true, prefill: false, batch: false, listsModels: true, jsonSchema: true },
    create: async (s) => {
      const { ollama } = await import('./ollama.js');
      return ollama(s);
    },
  },
  local: {
    label: 'Local GGUF model',
    keyVariables: [],
    key: 'none',
    modelIs: 'file',
    // Runs decode it token by token under the constraint (main/generation/local.ts); this factory serves the other callers.
    capabilities: { logits: true, constraints: 'tokens', completion: true, chat: true, prefill: true, batch: false, listsModels: false, jsonSchema: true },
    create: async (s) => {
      const { localModel } = await import('./local.js');
      return localModel({ modelFile: s.model, ...(s.concurrency !== undefined ? { concurrency: s.concurrency } : {}) });
    },
  },
} as const satisfies Record<string, ProviderEntry>;

export type ProviderName = keyof typeof TABLE;
export const PROVIDERS: Readonly<Record<ProviderName, ProviderEntry>> = TABLE;
export const PROVIDER_NAMES = Object.keys(TABLE) as ProviderName[];

export const isProviderName = (name: string): name is ProviderName => Object.hasOwn(PROVIDERS, name);

/** The entry a name means, or one line naming those there are. */
export function providerEntry(name: string): { ok: true; entry: ProviderEntry; name: ProviderName } | { ok: false; message: string } {
  if (isProviderName(name)) return { ok: true, entry: PROVIDERS[name], name };
  return { ok: false, message: `no provider "${name.slice(0, 60)}": one of ${PROVIDER_NAMES.join(', ')}` };
}

/** The built-in prices, as `provider/prefix` keys of the price table. */
export const DEFAULT_PRICES: PriceTable = Object.fromEntries(
  Object.entries(PROVIDERS).flatMap(([name, entry]) => Object.entries(entry.prices ?? {}).map(([prefix, price]) => [`${name}/${prefix}`, price] as const)),
);

function requireKey(s: ProviderSettings, label: string): string {
  if (s.apiKey === undefined || s.apiKey === '') throw new Error(`no ${label} API key`);
  return s.apiKey;
}
