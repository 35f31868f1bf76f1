import { cachedTestModel } from '../main/generation/index.js';
import { openAiCompatible } from '../main/providers/openaiCompatible.js';
import { poolProvider } from '../main/providers/pool.js';
import type { ModelProvider } from '../main/providers/types.js';
import { completionPrompt } from '../main/prompt/index.js';
import { llamaServerBinary, startLlamaServer, type LlamaServer } from '../test/support/llamaServer.js';
import { loadWapiiBench } from '../test/support/wapiibench.js';
import { fmt } from './stats.js';

const REQUESTS = 32;
const MAX_TOKENS = 64;
const SLOTS = 2;

/** Every request of one pass through `provider`, as many at once as it has slots: outputs/s and tokens/s. */
async function pass(provider: ModelProvider, prompts: readonly string[]): Promise<{ seconds: number; tokens: number }> {
  const signal = new AbortController().signal;
  let next = 0;
  let tokens = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: provider.concurrency }, async () => {
      while (next < prompts.length) {
        const output = await provider.generate({ kind: 'completion', text: prompts[next++]! }, { maxTokens: MAX_TOKENS, temperature: 0, stop: ['\n\n'] }, signal);
        tokens += output.usage.outputTokens;
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, tokens };
}

/**
 * A pool of llama-servers against one (scripts/build-llama-server.sh builds it; skipped without):
 * the same 32 WAPIIBench completion prompts through one server and through two, each server with
 * two slots and one thread, on the random-weight qwen2 test model. The ratio is what a second
 * server buys on this machine (two servers on one machine share its cores and memory bandwidth).
 */
export async function benchPool(): Promise<void> {
  console.log(`\n## A pool of llama-servers: throughput with one and with two (${REQUESTS} requests, ${MAX_TOKENS} tokens at most, ${SLOTS} slots and 1 thread per server)\n`);
  const binary = llamaServerBinary();
  if (!binary) {
    console.log('skipped: no llama-server; build it with scripts/build-llama-server.sh (or set WAPII_LLAMA_SERVER)');
    return;
  }
  const { samples } = await loadWapiiBench();
  const prompts = Array.from({ length: REQUESTS }, (_, i) => completionPrompt(samples[Math.floor((i * samples.length) / REQUESTS)]!, 'full').text);
  const model = cachedTestModel('qwen2');
  let servers: LlamaServer[] = [];
  try {
    servers = await Promise.all([startLlamaServer(binary, model, { slots: SLOTS }), startLlamaServer(binary, model, { slots: SLOTS })]);
    const member = (s: LlamaServer): ModelProvider => openAiCompatible({ baseUrl: s.url, model: 'test', concurrency: SLOTS });
    // Warm both servers (first requests pay for allocations), then one server, then the pool, then one again.
    await pass(poolProvider(servers.map(member)), prompts.slice(0, 4));
    const one1 = await pass(member(servers[0]!), prompts);
    const two = await pass(poolProvider(servers.map(member)), prompts);
    const one2 = await pass(member(servers[0]!), prompts);
    const one = { seconds: (one1.seconds + one2.seconds) / 2, tokens: (one1.tokens + one2.tokens) / 2 };
    console.log('| servers | outputs/s | tokens/s | seconds |');
    console.log('|---|---|---|---|');
    for (const [label, r] of [['1 (mean of two passes)', one], ['2 (pool)', two]] as const) console.log(`| ${label} | ${fmt(REQUESTS / r.seconds, 2)} | ${fmt(r.tokens / r.seconds, 1)} | ${fmt(r.seconds, 1)} |`);
    console.log(`\ntwo servers / one: ${fmt(REQUESTS / two.seconds / (REQUESTS / one.seconds), 2)}x outputs/s (one-server passes: ${fmt(one1.seconds, 1)} s and ${fmt(one2.seconds, 1)} s)`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}
