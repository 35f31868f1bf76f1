import path from 'node:path';
import type { ProviderInfo, ProviderModel } from '../api/evaluation.js';
import { WapiiError } from '../api/result.js';
import { keyRefusal, ProviderError } from '../providers/http.js';
import { loadPrices, priceOf, type Price, type PriceTable } from '../providers/prices.js';
import { DEFAULT_PRICES, PROVIDER_NAMES, PROVIDERS, providerEntry, type ProviderEntry, type ProviderSettings } from '../providers/registry.js';
import type { ModelProvider } from '../providers/types.js';
import type { RetryPolicy } from '../synthesis/retry.js';
import { type ApiKeyStore } from './apiKeys.js';

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

/** Every provider as New run and the CLI list them (the registry, less its factories). */
export function providerCatalog(): ProviderInfo[] {
  return PROVIDER_NAMES.map((name) => {
    const e: ProviderEntry = PROVIDERS[name];
    return { name, label: e.label, keyVariables: [...e.keyVariables], key: e.key, ...(e.defaultBaseUrl ? { defaultBaseUrl: e.defaultBaseUrl } : {}), modelIs: e.modelIs, ...(e.defaultModel ? { defaultModel: e.defaultModel } : {}), capabilities: { ...e.capabilities }, pools: e.pools ?? false };
  });
}

/** A provider's registry entry, or one line naming those there are. */
export function entryOf(name: string): ProviderEntry {
  const found = providerEntry(name);
  if (!found.ok) throw new WapiiError('bad_input', found.message);
  return found.entry;
}

/**
 * Everything a provider's settings must say before anything is queued, read off its registry
 * entry: a hosted provider without a key is one line naming the variable to set, a key bound for
 * another origin is refused, a server needs its URL. Answers the key to use (never stored).
 */
export function checkProviderSettings(p: StoredProvider, ctx: ProviderContext, use: 'run' | 'synthesis' | 'list' = 'run'): { entry: ProviderEntry; key: string | undefined } {
  const entry = entryOf(p.name);
  if (entry.modelIs === 'file' && use !== 'synthesis') throw new WapiiError('bad_input', `${p.name} models are run from the model library (add the GGUF file on the Models page, or --model-id)`);
  if (p.batch && !entry.capabilities.batch) throw new WapiiError('bad_input', `--batch is a provider's batch API; ${p.name} runs without it`);
  if (p.pool?.length && !entry.pools) throw new WapiiError('bad_input', `a pool of servers is for ${PROVIDER_NAMES.filter((n) => PROVIDERS[n].pools).join(', ')}`);
  const baseUrl = p.baseUrl ?? entry.defaultBaseUrl;
  if (baseUrl === undefined && entry.modelIs === 'name' && !p.pool?.length) throw new WapiiError('bad_input', `${p.name} needs --base-url <url> (the server, e.g. http://127.0.0.1:8080)`);
  const found = entry.keyVariables.length > 0 ? ctx.keys.get(p.name as Parameters<ApiKeyStore['get']>[0]) : undefined;
  if (entry.key === 'required' && !found) throw new WapiiError('bad_input', `no ${entry.label} API key: set ${entry.keyVariables.join(' or ')} (or save one in the app)`);
  const refused = found && baseUrl !== undefined ? keyRefusal(baseUrl, entry.label, entry.keyHost) : undefined;
  if (refused) throw new WapiiError('bad_input', refused);
  return { entry, key: found?.key };
}

/** The provider a run or a synthesis job names, made by its registry entry with its key from the key store. */
export async function providerFor(p: StoredProvider, ctx: ProviderContext, batch?: BatchState, use: 'run' | 'synthesis' | 'list' = 'run'): Promise<ModelProvider> {
  const { entry, key } = checkProviderSettings(p, ctx, use);
  const settings: ProviderSettings = {
    model: p.model,
    ...(p.baseUrl ? { baseUrl: p.baseUrl } : {}),
    ...(p.pool?.length ? { pool: p.pool } : {}),
    ...(key !== undefined ? { apiKey: key } : {}),
    ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}),
    ...(ctx.retry ? { retry: ctx.retry } : {}),
    ...(p.concurrency !== undefined ? { concurrency: p.concurrency } : {}),
    ...(p.batch ? { batch: { ...(batch ? { batches: batch.batches, onBatch: batch.onBatch } : {}), ...(ctx.batchPollMs !== undefined ? { pollMs: ctx.batchPollMs } : {}) } } : {}),
  };
  try {
    return await entry.create(settings);
  } catch (error) {
    if (error instanceof ProviderError || error instanceof Error) throw new WapiiError('bad_input', `${p.name}: ${error.message.split('\n')[0]}`);
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
  return { file, ...loadPrices(file, DEFAULT_PRICES) };
}

export const providerPrice = (table: PriceTable, p: StoredProvider): Price | undefined => priceOf(table, p.name, p.model);
