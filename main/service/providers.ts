import path from 'node:path';
import type { ProviderModel } from '../api/evaluation.js';
import { WapiiError } from '../api/result.js';
import { anthropicMessages } from '../generation/providers/anthropic.js';
import { geminiGenerate } from '../generation/providers/gemini.js';
import { ProviderError } from '../generation/providers/http.js';
import { openAiChat } from '../generation/providers/openai.js';
import { openAiBatch } from '../generation/providers/openaiBatch.js';
import { openAiCompatible } from '../generation/providers/openaiCompatible.js';
import { poolProvider } from '../generation/providers/pool.js';
import { loadPrices, priceOf, type Price, type PriceTable } from '../generation/providers/prices.js';
import type { ModelProvider } from '../generation/providers/types.js';
import type { RetryPolicy } from '../synthesis/retry.js';
import { KEY_VARIABLES, type ApiKeyStore } from './apiKeys.js';

/** A run's provider settings as stored with the run (RunRow.model.provider): no key. */
export type StoredProvider = Pick<ProviderModel, 'name' | 'model'> & Partial<Omit<ProviderModel, 'name' | 'model'>>;

export interface ProviderContext {
  readonly keys: ApiKeyStore;
  /** Per request: no answer after this long, it is abandoned and retried (default 120 s). */
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
  /** Between polls of an OpenAI batch (default 30 s). */
  readonly batchPollMs?: number;
}

/** What a batch run carries across restarts: the batches it submitted (in its manifest), and where to record a new one. */
export interface BatchState {
  readonly batches: readonly string[];
  readonly onBatch: (batchId: string) => void;
}

/**
 * The provider a run names, with its key from the key store (environment or saved). A hosted
 * provider without a key is one line naming the variable to set; a key is never put anywhere but
 * the provider's request headers.
 */
export function providerFor(p: StoredProvider, ctx: ProviderContext, batch?: BatchState): ModelProvider {
  const http = { ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}), ...(ctx.retry ? { retry: ctx.retry } : {}), ...(p.concurrency !== undefined ? { concurrency: p.concurrency } : {}) };
  const keyOf = (name: 'openai' | 'anthropic' | 'gemini'): string => {
    const found = ctx.keys.get(name);
    if (!found) throw new WapiiError('bad_input', `no ${name} API key: set ${KEY_VARIABLES[name][0]} (or save one in the app)`);
    return found.key;
  };
  try {
    switch (p.name) {
      case 'openai':
        if (p.batch) {
          return openAiBatch({
            model: p.model,
            apiKey: keyOf('openai'),
            ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}),
            ...http,
            ...(ctx.batchPollMs !== undefined ? { pollMs: ctx.batchPollMs } : {}),
            ...(batch ? { batches: batch.batches, onBatch: batch.onBatch } : {}),
          });
        }
        return openAiChat({ model: p.model, apiKey: keyOf('openai'), ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}), ...http });
      case 'anthropic':
        return anthropicMessages({ model: p.model, apiKey: keyOf('anthropic'), ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}), ...http });
      case 'gemini':
        return geminiGenerate({ model: p.model, apiKey: keyOf('gemini'), ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}), ...http });
      case 'openai-compatible': {
        const urls = [...(p.baseUrl ? [p.baseUrl] : []), ...(p.pool ?? [])];
        if (urls.length === 0) throw new WapiiError('bad_input', 'openai-compatible needs --base-url <url> (the server, e.g. http://127.0.0.1:8080)');
        const key = ctx.keys.get('openai-compatible')?.key;
        const unique = [...new Set(urls)];
        // In a pool a failing server hands its request to another at once rather than retrying it itself.
        const member = unique.length > 1 ? { retry: { retries: 0, minDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 } } : {};
        const servers = unique.map((baseUrl) => openAiCompatible({ baseUrl, model: p.model, ...(key !== undefined ? { apiKey: key } : {}), ...http, ...member }));
        return servers.length === 1 ? servers[0]! : poolProvider(servers);
      }
    }
  } catch (error) {
    if (error instanceof ProviderError) throw new WapiiError('bad_input', error.message);
    throw error;
  }
}

/** Before a run is queued: the endpoint answers and takes the key (23.13); else one line, and nothing is queued. */
export async function checkProvider(provider: ModelProvider, timeoutMs = 15_000): Promise<void> {
  try {
    await provider.check(AbortSignal.timeout(timeoutMs));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new WapiiError('bad_input', `${provider.name} ${provider.model}: ${/aborted|timeout/i.test(message) ? `no answer within ${Math.round(timeoutMs / 1000)} s` : message}`);
  }
}

/** The price table: built in, with `$WAPII_PRICES` or `prices.json` beside the database over it. */
export function priceTable(dbPath: string | undefined, env: NodeJS.ProcessEnv = process.env): { table: PriceTable; file: string | undefined; error?: string } {
  const file = env['WAPII_PRICES'] ?? (dbPath && dbPath !== ':memory:' ? path.join(path.dirname(dbPath), 'prices.json') : undefined);
  return { file, ...loadPrices(file) };
}

export const providerPrice = (table: PriceTable, p: StoredProvider): Price | undefined => priceOf(table, p.name, p.model);
