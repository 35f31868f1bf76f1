import fs from 'node:fs';
import type { TokenUsage } from './types.js';

/** US dollars per million tokens. `batch`: the price through a batch API where it differs (OpenAI: half). */
export interface Price {
  readonly input: number;
  readonly output: number;
  readonly batchInput?: number;
  readonly batchOutput?: number;
}

/** Model-name prefixes (longest match wins) to prices; `provider/prefix` keys apply to that provider only. */
export type PriceTable = Readonly<Record<string, Price>>;

/** A price the spending cap can count with: JSON's 1e999 is Infinity. */
const validPrice = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * The built-in table (the providers' list prices, late 2025, in their registry entries) with the
 * user's file of the same shape over it; a file that cannot be read or parsed is one line of
 * error. A model matched by no entry costs 0 and the run says the price is unknown.
 */
export function loadPrices(file: string | undefined, defaults: PriceTable): { table: PriceTable; error?: string } {
  const DEFAULT_PRICES = defaults;
  if (!file || !fs.existsSync(file)) return { table: DEFAULT_PRICES };
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object of "provider/model": {input, output}');
    const table: Record<string, Price> = { ...DEFAULT_PRICES };
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      const v = value as Partial<Price> | null;
      if (!v || !validPrice(v.input) || !validPrice(v.output) || (v.batchInput !== undefined && !validPrice(v.batchInput)) || (v.batchOutput !== undefined && !validPrice(v.batchOutput))) throw new Error(`"${key}" needs {"input": <$ per 1M>, "output": <$ per 1M>}`);
      table[key] = { input: v.input, output: v.output, ...(typeof v.batchInput === 'number' ? { batchInput: v.batchInput } : {}), ...(typeof v.batchOutput === 'number' ? { batchOutput: v.batchOutput } : {}) };
    }
    return { table };
  } catch (error) {
    return { table: DEFAULT_PRICES, error: `price table ${file}: ${error instanceof Error ? error.message : String(error)}; using the built-in prices` };
  }
}

/** The entry for a provider's model: the longest matching prefix, the provider's own entries first. */
export function priceOf(table: PriceTable, provider: string, model: string): Price | undefined {
  const name = model.replace(/^models\//, '');
  let best: { length: number; price: Price } | undefined;
  for (const [key, price] of Object.entries(table)) {
    const slash = key.indexOf('/');
    const scoped = slash > 0 ? key.slice(0, slash) : undefined;
    const prefix = slash > 0 ? key.slice(slash + 1) : key;
    if (scoped !== undefined && scoped !== provider) continue;
    if (!name.startsWith(prefix)) continue;
    const length = prefix.length + (scoped ? 0.5 : 0);
    if (!best || length > best.length) best = { length, price };
  }
  return best?.price;
}

/** Dollars for the tokens used; undefined where the price is unknown. */
export function costOf(price: Price | undefined, usage: TokenUsage, batch = false): number | undefined {
  if (!price) return undefined;
  const input = batch ? (price.batchInput ?? price.input) : price.input;
  const output = batch ? (price.batchOutput ?? price.output) : price.output;
  return (usage.inputTokens * input + usage.outputTokens * output) / 1_000_000;
}

/**
 * Before a run is queued: at most what `outputs` answers of `maxTokens` each would cost, with
 * prompts of `promptChars` characters in all (about four characters a token for English and code).
 */
export function estimateRunCost(price: Price | undefined, input: { promptChars: number; outputs: number; maxTokens: number; batch?: boolean }): { inputTokens: number; outputTokens: number; usd: number | undefined } {
  const inputTokens = Math.ceil(input.promptChars / 4);
  const outputTokens = input.outputs * input.maxTokens;
  return { inputTokens, outputTokens, usd: costOf(price, { inputTokens, outputTokens }, input.batch) };
}
