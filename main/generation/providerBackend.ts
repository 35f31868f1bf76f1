import type { Generation, GenerationBackend, Intervention, ProviderCall, SamplingOptions, SlotGenerator } from './backend.js';
import { alignReply } from './chatReply.js';
import type { Constrainer } from './constrainer.js';
import type { Setup } from '../api/setup.js';
import { checkUsage, FatalProviderError, UnusableAnswerError } from '../providers/http.js';
import { costOf, type Price } from '../providers/prices.js';
import type { ModelProvider, ProviderPrompt } from '../providers/types.js';

export interface ProviderBackendOptions extends SamplingOptions {
  /** Chat prompts (the reply's code completes the starter) or completion prompts; default: what the provider takes, completion first. */
  readonly promptStyle?: 'completion' | 'chat';
  /** Sent where the provider takes a seed: the run's per-output seed. */
  readonly seeded?: boolean;
  /** Constrain by each API's exported GBNF (providers whose constraints are 'grammar'): the runner's constrainerFor of the run's specs. */
  readonly constrainBy?: Constrainer;
  /** The run's cancel: every request in flight is aborted with it. */
  readonly signal?: AbortSignal;
  /** A bad key, spent quota or the spending cap: the run must stop (the caller aborts it and ends it failed with this line). */
  readonly onFatal?: (message: string) => void;
  readonly price?: Price;
  /** Batch API prices (half at OpenAI). */
  readonly batchPrices?: boolean;
  /** US dollars; the run stops once this much is spent. */
  readonly spendingCapUsd?: number;
}


/** Totals of a provider run, for its manifest. */
export interface ProviderTotals {
  readonly outputs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number | null;
  readonly modelVersions: readonly string[];
  readonly servers: Record<string, number>;
  /** The outputs' notes (the first NOTES_KEPT), and how many there were. */
  readonly notes?: { readonly count: number; readonly first: readonly string[] };
}

const NOTES_KEPT = 20;

/**
 * Any ModelProvider as the run's generation backend: one slot per request the provider takes at
 * once, each sample's prompt sent as completion text or as a chat message (prefilled with the
 * starter where the provider can), the code aligned to the starter, usage and cost recorded.
 */
export function providerBackend(provider: ModelProvider, options: ProviderBackendOptions): GenerationBackend & { totals(): ProviderTotals } {
  const style = options.promptStyle ?? (provider.capabilities.completion ? 'completion' : 'chat');
  if (style === 'completion' && !provider.capabilities.completion) throw new FatalProviderError(`${provider.name} takes chat prompts only: use --chat`);
  if (options.constrainBy && provider.capabilities.constraints !== 'grammar') throw new FatalProviderError(`${provider.name} cannot be constrained (no logits, no grammar): run it unconstrained`);
  const signal = options.signal ?? new AbortController().signal;
  let spent = 0;
  let priced = options.price !== undefined;
  const totals = { outputs: 0, inputTokens: 0, outputTokens: 0 };
  const versions = new Set<string>();
  const servers: Record<string, number> = {};
  const notes: string[] = [];
  let noteCount = 0;
  let stopped: string | undefined;
  const fatal = (message: string): never => {
    stopped ??= message;
    options.onFatal?.(message);
    throw new FatalProviderError(message);
  };

  let unusable = 0;
  // Past the cap: the output that crossed it is kept (it was paid for), no further request goes out.
  const checkCap = (): void => {
    if (options.spendingCapUsd === undefined || (spent < options.spendingCapUsd && Number.isFinite(spent))) return;
    const counted = unusable > 0 ? ` and ${unusable} unusable answer${unusable === 1 ? '' : 's'} counted at their most` : '';
    stopped ??= `stopped at the spending cap of $${options.spendingCapUsd.toFixed(2)} ($${spent.toFixed(4)} spent on ${totals.outputs} outputs${counted}); raise the cap and resume`;
    options.onFatal?.(stopped);
  };
  /**
   * An answer that came back unusable (usage that is not a count, too large, cut off) was likely
   * billed, at a cost it did not truly say: the cap counts the most it could have cost (its prompt
   * at about four characters a token, and every token it was allowed), so lying usage cannot keep
   * a run under its cap.
   */
  const chargeUnusable = (promptChars: number): void => {
    if (!options.price) return;
    unusable++;
    spent += costOf(options.price, { inputTokens: Math.ceil(promptChars / 4), outputTokens: options.maxTokens }, options.batchPrices) ?? 0;
    checkCap();
  };

  const slot: SlotGenerator = {
    async generate({ prompt, api, seed }): Promise<Generation> {
      if (stopped) fatal(stopped);
      // Per API and the names in scope at the call (a real-world sample's enclosing scopes and definitions).
      const grammar = options.constrainBy?.grammar(api, prompt.setup);
      const prefill = style === 'chat' && provider.capabilities.prefill && prompt.replyPrefix !== undefined;
      const request: ProviderPrompt = style === 'completion' ? { kind: 'completion', text: prompt.text } : { kind: 'chat', messages: prompt.messages, ...(prefill ? { prefill: prompt.replyPrefix } : {}) };
      const started = performance.now();
      let output;
      try {
        output = await provider.generate(
          request,
          {
            maxTokens: options.maxTokens,
            temperature: options.temperature,
            topP: options.topP,
            topK: options.topK,
            ...(options.seeded !== false ? { seed } : {}),
            // A base model's snippet ends at a blank line; a chat reply's code at its closing fence (a prefilled one), or the reply's end.
            // A multi-step program's text ends where the starter's function is closed.
            ...(style === 'completion' ? { stop: [prompt.setup.steps?.stop ?? '\n\n'] } : prefill ? { stop: ['\n```'] } : {}),
            ...(grammar ? { grammar } : {}),
          },
          signal,
        );
        // Whatever a provider parsed, the cap counts only real token counts: any other usage fails this output.
        checkUsage(output.usage, `${provider.name} ${provider.model}`);
      } catch (error) {
        if (error instanceof FatalProviderError && !signal.aborted) fatal(error.message);
        if (error instanceof UnusableAnswerError) chargeUnusable(prompt.text.length);
        throw error;
      }
      const usage = output.usage;
      const cost = costOf(options.price, usage, options.batchPrices);
      if (cost === undefined) priced = false;
      spent += cost ?? 0;
      for (const note of output.notes ?? []) if (noteCount++ < NOTES_KEPT) notes.push(note);
      totals.outputs++;
      totals.inputTokens += usage.inputTokens;
      totals.outputTokens += usage.outputTokens;
      if (output.modelVersion) versions.add(output.modelVersion);
      if (output.server) servers[output.server] = (servers[output.server] ?? 0) + 1;
      const aligned = style === 'chat' ? alignReply(prompt, output.text, prefill) : { text: output.text, rule: undefined };
      const closed = options.constrainBy && style === 'completion' ? closeInvocation(options.constrainBy, api, prompt.setup, aligned.text, usage.outputTokens) : undefined;
      const call: ProviderCall = {
        provider: provider.name,
        model: provider.model,
        modelVersion: output.modelVersion ?? null,
        requestIds: output.requestIds,
        inputTokens: usage.inputTokens,
        outputTokens: usage.outputTokens,
        costUsd: cost ?? null,
        server: output.server ?? null,
        ...(aligned.rule !== undefined ? { reply: output.text, extraction: aligned.rule } : {}),
        ...(output.notes?.length ? { notes: output.notes } : {}),
      };
      checkCap();
      return {
        text: aligned.text + (closed?.text ?? ''),
        tokens: usage.outputTokens,
        stop: output.finish === 'length' ? 'limit' : style === 'chat' || output.finish === 'stop' ? 'snippet' : 'eos',
        interventions: closed ? [closed] : [],
        promptTokens: usage.inputTokens,
        reusedPromptTokens: 0,
        promptMs: 0,
        generateMs: performance.now() - started,
        constraintMs: 0,
        batched: 1, // the provider batches as it sees fit and does not say
        provider: call,
      };
    },
  };
  return {
    manifest: {
      engine: provider.name,
      model: provider.model,
      ...provider.describe,
      capabilities: provider.capabilities,
      prompt: style,
      grammar: options.constrainBy ? 'gbnf' : 'none',
      ...(options.spendingCapUsd !== undefined ? { spendingCapUsd: options.spendingCapUsd } : {}),
      ...(options.price ? { price: { ...options.price, batch: options.batchPrices === true } } : { price: null }),
    },
    slots: provider.concurrency,
    slot: () => slot,
    totals: () => ({ ...totals, costUsd: priced ? spent : null, modelVersions: [...versions].sort(), servers: { ...servers }, ...(noteCount > 0 ? { notes: { count: noteCount, first: [...notes] } } : {}) }),
    async cancelRemote() {
      if (!provider.cancel) return undefined;
      try {
        // Its own time limit: the run's signal is already aborted, and a cancel must answer.
        const done = await provider.cancel(AbortSignal.timeout(10_000));
        return done.length > 0 ? done.join('; ') : undefined;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
    async [Symbol.asyncDispose]() {},
  };
}

/**
 * A constrained output that the token limit (or the server's blank-line stop) cut inside the
 * invocation is closed by the shortest legal completion, as the local backend does at its limit;
 * the grammar kept every token legal, so the code then runs. Undefined where nothing is open, or
 * where the text left the workbench's language (the GBNF is a relaxation of it: the score says).
 * From the call on, with the names in scope there, as the local decoder's constraint.
 */
function closeInvocation(constrainBy: Constrainer, api: string, setup: Setup, text: string, step: number): Extract<Intervention, { kind: 'closed' }> | undefined {
  const closing = constrainBy.closing(api, setup, text);
  return closing ? { kind: 'closed', step, text: closing } : undefined;
}
