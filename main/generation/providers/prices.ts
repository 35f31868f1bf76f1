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

/**
 * List prices from the providers' price pages (late 2025). Users edit them in a JSON file of the
 * same shape (`$WAPII_PRICES`, or `prices.json` beside the database): its entries replace these.
 * A model matched by no entry costs 0 and the run says the price is unknown.
 */
export const DEFAULT_PRICES: PriceTable = {
  'openai/gpt-4o-mini': { input: 0.15, output: 0.6, batchInput: 0.075, batchOutput: 0.3 },
  'openai/gpt-4o': { input: 2.5, output: 10, batchInput: 1.25, batchOutput: 5 },
  'openai/gpt-4.1-nano': { input: 0.1, output: 0.4, batchInput: 0.05, batchOutput: 0.2 },
  'openai/gpt-4.1-mini': { input: 0.4, output: 1.6, batchInput: 0.2, batchOutput: 0.8 },
  'openai/gpt-4.1': { input: 2, output: 8, batchInput: 1, batchOutput: 4 },
  'openai/gpt-5-nano': { input: 0.05, output: 0.4, batchInput: 0.025, batchOutput: 0.2 },
  'openai/gpt-5-mini': { input: 0.25, output: 2, batchInput: 0.125, batchOutput: 1 },
  'openai/gpt-5': { input: 1.25, output: 10, batchInput: 0.625, batchOutput: 5 },
  'anthropic/claude-haiku-4-5': { input: 1, output: 5 },
  'anthropic/claude-3-5-haiku': { input: 0.8, output: 4 },
  'anthropic/claude-sonnet-4': { input: 3, output: 15 },
  'anthropic/claude-opus-4': { input: 15, output: 75 },
  'gemini/gemini-2.5-pro': { input: 1.25, output: 10 },
  'gemini/gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
  'gemini/gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'gemini/gemini-2.0-flash': { input: 0.1, output: 0.4 },
};

/** A price the spending cap can count with: JSON's 1e999 is Infinity. */
const validPrice = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** The default table with the user's file over it; a file that cannot be read or parsed is one line of error. */
export function loadPrices(file: string | undefined): { table: PriceTable; error?: string } {
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
