import type { TokenUsage } from './provider.js';

/**
 * List prices in US dollars per million tokens (input, output), from the providers' price pages
 * as of late 2025, for the estimate a job records; a model not listed (local models, servers
 * of your own) costs 0. Long-context tiers are ignored: the estimate is a lower bound there.
 */
const PRICES: readonly [RegExp, number, number][] = [
  [/^gemini-3(\.\d+)?-pro/, 2, 12],
  [/^gemini-2\.5-pro/, 1.25, 10],
  [/^gemini-2\.5-flash-lite/, 0.1, 0.4],
  [/^gemini-2\.5-flash/, 0.3, 2.5],
  [/^gemini-2\.0-flash/, 0.1, 0.4],
  [/^gpt-4o-mini/, 0.15, 0.6],
  [/^gpt-4o/, 2.5, 10],
  [/^gpt-4\.1-mini/, 0.4, 1.6],
  [/^gpt-4\.1/, 2, 8],
];

/** Estimated cost in US dollars of the tokens a job used with a model. */
export function estimateCost(model: string, usage: TokenUsage): number {
  const name = model.replace(/^models\//, '');
  const price = PRICES.find(([pattern]) => pattern.test(name));
  if (!price) return 0;
  return (usage.inputTokens * price[1] + usage.outputTokens * price[2]) / 1_000_000;
}
