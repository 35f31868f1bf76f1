import pLimit from 'p-limit';
import { checkUsage, ProviderError } from '../providers/http.js';
import { withRetry, type RetryPolicy } from '../providers/retry.js';
import type { ModelProvider, ProviderOutput, TokenUsage } from '../providers/types.js';
import type { ApiSpec, Endpoint } from '../openapi/index.js';
import { ANSWER_SCHEMA, boundedAnswerSchema, readAnswer, type AnswerFailure, type SynthesizedSample } from './answer.js';
import { boundedChainAnswerSchema, CHAIN_ANSWER_SCHEMA, readChainAnswer } from './chainAnswer.js';
import { chainPrompt } from './chainPrompt.js';
import type { Chain } from './chains.js';
import { synthesisPrompt, type SynthesisPrompt } from './prompt.js';

/** A provider's answer to a synthesis request. */
export type ProviderAnswer = ProviderOutput;

/** Where a provider does not say: the prompt's room and the answer's token limit (OpenAI's chat models). */
const DEFAULT_CONTEXT_TOKENS = 128_000;
const DEFAULT_MAX_OUTPUT_TOKENS = 16_384;

/** The endpoints of one API to ask for. */
export interface SynthesisTarget {
  readonly api: string;
  readonly spec: ApiSpec;
  /** The spec file's text, as the prompt shows it. */
  readonly specText: string;
  readonly endpoints: readonly Endpoint[];
  /** Chains to draft multi-step samples from (findChains), instead of samples of `endpoints`. */
  readonly chains?: readonly Chain[];
}

export interface JobPlan {
  readonly targets: readonly SynthesisTarget[];
  /** Samples per endpoint, or per chain. */
  readonly samplesPerEndpoint: number;
  /** Endpoints (or chains) asked for in one request. */
  readonly batchSize: number;
  /** Requests in flight at most. */
  readonly concurrency: number;
  readonly retry: RetryPolicy;
}

/** One request: some endpoints of one API, or some of its chains (`keys` then the chains' keys). */
export interface Batch {
  readonly api: string;
  readonly spec: ApiSpec;
  readonly endpoints: readonly Endpoint[];
  readonly keys: readonly string[];
  readonly chains?: readonly Chain[];
}

/**
 * Where a job's results go (the service stores them). `accept` gets a whole answer's samples at
 * once, so storing them can be one transaction; a failure names the endpoints it concerns.
 */
export interface JobSink {
  /** `dropped`: samples beyond the asked number the answer gave per endpoint, left out. */
  accept(batch: Batch, prompt: SynthesisPrompt, answer: ProviderAnswer, samples: readonly SynthesizedSample[], dropped: ReadonlyMap<string, number>): Promise<void>;
  fail(batch: Batch, keys: readonly string[], failure: AnswerFailure, prompt: SynthesisPrompt | undefined, answer: ProviderAnswer | undefined): void;
  usage(usage: TokenUsage): void;
  retry(error: ProviderError, batch: Batch): void;
  progress(done: number, total: number): void;
}

const keyOf = (e: Pick<Endpoint, 'method' | 'path'>): string => `${e.method.toUpperCase()} ${e.path}`;

export function batchesOf(plan: Pick<JobPlan, 'targets' | 'batchSize'>): Batch[] {
  const batches: Batch[] = [];
  for (const target of plan.targets) {
    if (target.chains) {
      for (let i = 0; i < target.chains.length; i += plan.batchSize) {
        const chains = target.chains.slice(i, i + plan.batchSize);
        batches.push({ api: target.api, spec: target.spec, endpoints: [...new Set(chains.flatMap((c) => [c.producer, c.consumer]))], keys: chains.map((c) => c.key), chains });
      }
      continue;
    }
    for (let i = 0; i < target.endpoints.length; i += plan.batchSize) {
      const endpoints = target.endpoints.slice(i, i + plan.batchSize);
      batches.push({ api: target.api, spec: target.spec, endpoints, keys: endpoints.map(keyOf) });
    }
  }
  return batches;
}

/**
 * Asks the provider for samples of every planned endpoint, at most `concurrency` requests in
 * flight, each retried on 429/5xx. Every outcome goes to the sink as it happens; a failed
 * request never stops the others. An aborted job stops starting requests and drops the ones in
 * flight without recording them, so a resume asks for them again.
 */
export async function runSynthesisJob(provider: ModelProvider, plan: JobPlan, sink: JobSink, signal?: AbortSignal): Promise<{ readonly cancelled: boolean }> {
  if (!provider.capabilities.jsonSchema) throw new ProviderError(`${provider.name} cannot hold an answer to a JSON Schema, which synthesis needs`, undefined, false);
  const contextTokens = provider.contextTokens ?? DEFAULT_CONTEXT_TOKENS;
  const maxOutputTokens = provider.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const jobSignal = signal ?? new AbortController().signal;
  const specTexts = new Map(plan.targets.map((t) => [t.api, t.specText]));
  const batches = batchesOf(plan);
  const limit = pLimit(Math.max(1, plan.concurrency));
  let done = 0;
  sink.progress(0, batches.length);
  const one = async (batch: Batch): Promise<void> => {
    if (signal?.aborted) return;
    const specText = specTexts.get(batch.api) ?? '';
    const per = plan.samplesPerEndpoint;
    const prompt = batch.chains
      ? chainPrompt({ api: batch.api, specText, chains: batch.chains, samplesPerChain: per, contextTokens, maxOutputTokens })
      : synthesisPrompt({ api: batch.api, specText, endpoints: batch.endpoints, samplesPerEndpoint: per, contextTokens, maxOutputTokens });
    if (!prompt.ok) {
      sink.fail(batch, batch.keys, { kind: 'prompt_too_large', message: prompt.error.message }, undefined, undefined);
      return;
    }
    const request = { kind: 'chat', system: prompt.value.system, messages: [{ role: 'user', content: prompt.value.user }] } as const;
    const jsonSchema = batch.chains
      ? { name: 'wapiibench_chains', schema: CHAIN_ANSWER_SCHEMA, bounded: boundedChainAnswerSchema(batch.spec, batch.chains, per) }
      : { name: 'wapiibench_samples', schema: ANSWER_SCHEMA, bounded: boundedAnswerSchema(batch.spec, batch.endpoints, per) };
    const options = { maxTokens: maxOutputTokens, temperature: 1, jsonSchema };
    let answer: ProviderAnswer;
    try {
      answer = await withRetry(() => provider.generate(request, options, jobSignal), plan.retry, signal, (error) => sink.retry(error, batch));
      // Whatever the provider parsed, only real token counts reach the job's usage and cost.
      checkUsage(answer.usage, `${provider.name} ${provider.model}`);
    } catch (error) {
      if (signal?.aborted) return;
      const message = error instanceof ProviderError ? error.message : `the provider failed: ${error instanceof Error ? error.message : String(error)}`;
      sink.fail(batch, batch.keys, { kind: 'provider_error', message }, prompt.value, undefined);
      return;
    }
    sink.usage(answer.usage);
    if (signal?.aborted) return;
    const read = batch.chains ? readChainAnswer(answer, batch.spec, batch.chains, per) : readAnswer(answer, batch.spec, batch.endpoints, per);
    if (!read.ok) {
      sink.fail(batch, batch.keys, read.failure, prompt.value, answer);
      return;
    }
    if (read.samples.length > 0) await sink.accept(batch, prompt.value, answer, read.samples, read.dropped);
    if (read.missing.length > 0) sink.fail(batch, read.missing, { kind: 'missing', message: `the answer holds no sample for this ${batch.chains ? 'chain' : 'endpoint'}` }, prompt.value, answer);
  };
  // A batch that throws (the store cannot write) keeps the batches not yet begun from starting,
  // and the job ends only when those in flight have: none writes after its caller saw it fail.
  let failure: { error: unknown } | undefined;
  await Promise.all(
    batches.map((batch) =>
      limit(async () => {
        if (failure) return;
        try {
          await one(batch);
          sink.progress(++done, batches.length);
        } catch (error) {
          failure ??= { error };
        }
      }),
    ),
  );
  if (failure) throw failure.error;
  return { cancelled: signal?.aborted ?? false };
}
