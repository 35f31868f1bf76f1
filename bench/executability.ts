import type { BundledVocabulary } from '../main/generation/index.js';
import type { CompletionMode } from '../main/prompt/index.js';
import { constrainedRun, EXECUTABILITY_SAMPLING, type ExecutabilityTally } from '../test/support/executability.js';
import { loadWapiiBench } from '../test/support/wapiibench.js';

const fmt = (n: number, digits = 1): string => n.toFixed(digits);

/**
 * Does constrained code always run? Constrained runs of random-weight models (2×64, on the qwen2
 * and the llama-spm vocabularies) over all 395 WAPIIBench samples in both setups, at temperature 1
 * over the whole distribution, through the real runner and sandbox: executable, illegal and
 * timed-out outputs, and every failure's code. A random model writes whatever the grammar lets it,
 * so any failure here is a hole in the constraint engine. Slow (minutes per setup on a 2-core
 * machine): WAPII_BENCH_SAMPLES=N runs every (395/N)th sample only; WAPII_BENCH_MAX_TOKENS sets the
 * token limit (default 48); WAPII_BENCH_VOCABULARIES=llama-spm only that vocabulary.
 */
export async function benchExecutability(): Promise<void> {
  const { samples, specs } = await loadWapiiBench();
  const wanted = Number(process.env['WAPII_BENCH_SAMPLES'] ?? samples.length);
  const indices = Array.from({ length: Math.min(wanted, samples.length) }, (_, i) => Math.floor((i * samples.length) / Math.min(wanted, samples.length)));
  const maxTokens = Number(process.env['WAPII_BENCH_MAX_TOKENS'] ?? 48);
  console.log('\n## Executability of constrained code\n');
  console.log(`Random-weight 2×64 models, temperature ${EXECUTABILITY_SAMPLING.temperature} (top-k off, top-p 1), ${maxTokens} new tokens at most, ${indices.length} WAPIIBench samples per row, one output each, through the runner and the sandbox.\n`);
  console.log('| vocabulary | setup | outputs | executable | illegal | timeouts | tokens | s |');
  console.log('|---|---|---|---|---|---|---|---|');
  const tallies: ExecutabilityTally[] = [];
  const vocabularies = (process.env['WAPII_BENCH_VOCABULARIES']?.split(',') ?? ['qwen2', 'llama-spm']) as BundledVocabulary[];
  for (const vocabulary of vocabularies) {
    for (const setup of ['full', 'argument'] as CompletionMode[]) {
      const t = await constrainedRun({ vocabulary, setup, samples, indices, specs, maxTokens });
      tallies.push(t);
      console.log(`| ${vocabulary} | ${setup} | ${t.outputs} | ${t.executable} (${fmt((t.executable / Math.max(1, t.outputs)) * 100)}%) | ${t.illegal} | ${t.timeouts} | ${t.tokens} | ${fmt(t.seconds, 0)} |`);
    }
  }
  const failures = tallies.flatMap((t) => t.failures.map((f) => ({ ...f, vocabulary: t.vocabulary, setup: t.setup })));
  console.log(`\nTarget: 100% executable, 0 illegal, 0 timeouts. ${failures.length === 0 ? 'Met.' : `${failures.length} failures:`}`);
  for (const f of failures.slice(0, 30)) console.log(`- ${f.vocabulary} ${f.setup} #${f.index} (${f.api}) ${f.kind}: ${f.detail.slice(0, 200)}\n  \`${JSON.stringify(f.code.slice(-240))}\``);
}
