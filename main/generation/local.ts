import { InsufficientMemoryError, resolveChatWrapper, SpecialTokensText, type ChatHistoryItem, type ChatWrapper, type LlamaContext, type LlamaContextSequence, type LlamaText, type Token } from 'node-llama-cpp';
import { REPLY_FENCE, type CompletionPrompt } from '../api/prompt.js';
import { decodeTokens, type Vocabulary } from '../gguf/index.js';
import type { GenerationBackend, SamplingOptions, SlotGenerator } from './backend.js';
import type { Constrainer } from './constrainer.js';
import { Decoder, StepGate } from './decoder.js';
import { generate } from './generate.js';
import { defaultParallel, describeDecoding, type Runtime } from './runtime.js';

/** The chat templates a chat prompt can go through: node-llama-cpp's, or the one the model names (`auto`). */
export const CHAT_WRAPPERS = ['auto', 'chatML', 'general', 'llama3', 'llama2Chat', 'mistral', 'gemma', 'qwen', 'deepSeek'] as const;
export type ChatWrapperName = (typeof CHAT_WRAPPERS)[number];

export interface LocalOptions extends SamplingOptions {
  /** Sequences decoded at once; absent: the runtime's default (defaultParallel), fewer where their caches do not fit. */
  readonly parallel?: number;
  /** Context per sequence, in tokens (prompt + completion). */
  readonly contextSize: number;
  /** The constraints of the run's APIs (the runner's constrainerFor: its specs); absent for unconstrained runs. */
  readonly constrainBy?: Constrainer;
  readonly stepDeadlineMs: number;
  /** CPU threads for this context (default: the runtime's, one per physical core). */
  readonly threads?: number;
  /**
   * Chat/instruct models: prompts go through node-llama-cpp's chat wrapper ('auto': the one the
   * model's metadata names), with the reply opened by the prompt's `replyPrefix`.
   */
  readonly chatWrapper?: ChatWrapperName;
}

/**
 * A local GGUF model (node-llama-cpp): one context with a sequence per slot, so the slots'
 * tokens are decoded in shared batches; each slot keeps its prompt state, so the prompt head all
 * samples share is evaluated once per slot. Constrained slots keep their token constraints
 * (constrainBy.tokens: one per API and names in scope), so memoised masks carry over from sample
 * to sample.
 */
export async function localBackend(runtime: Runtime, options: LocalOptions): Promise<GenerationBackend> {
  const open = (sequences: number): Promise<LlamaContext> =>
    runtime.model.createContext({
      contextSize: options.contextSize, // per sequence: node-llama-cpp gives each sequence its own cells
      sequences,
      threads: options.threads ?? runtime.info.threads,
      batchSize: Math.min(512, options.contextSize),
    });
  // Asked-for sequences are what the user chose: if they do not fit, the run says so rather than quietly taking fewer.
  const context = options.parallel !== undefined ? await open(options.parallel) : await withFewerUntilItFits(defaultParallel(runtime.info), open);
  const parallel = context.totalSequences;
  const vocabulary = runtime.vocabulary();
  const chat = options.chatWrapper ? resolveChatWrapper(runtime.model, { type: options.chatWrapper }) : undefined;
  const slots: SlotGenerator[] = [];
  const gate = new StepGate();
  for (let i = 0; i < parallel; i++) slots.push(localSlot(runtime, context.getSequence(), options, vocabulary, chat, gate));
  return {
    manifest: {
      engine: 'node-llama-cpp',
      ...runtime.info,
      threads: options.threads ?? runtime.info.threads,
      contextSize: options.contextSize,
      parallel,
      // The run's second line, kept with the run: how many sequences and threads, and why.
      decoding: describeDecoding({ ...runtime.info, threads: options.threads ?? runtime.info.threads }, { parallel: options.parallel, threads: options.threads }, parallel),
      ...(chat ? { chatWrapper: chat.wrapperName } : {}),
    },
    slots: parallel,
    slot: (index) => slots[index]!,
    async [Symbol.asyncDispose]() {
      await context.dispose();
    },
  };
}

/**
 * Opens with `sequences`, halving them while node-llama-cpp finds that their caches do not fit in
 * the free memory (it checks before it allocates, with InsufficientMemoryError); one sequence that
 * does not fit is the caller's error.
 */
export async function withFewerUntilItFits<T>(sequences: number, open: (sequences: number) => Promise<T>): Promise<T> {
  for (let n = sequences; ; n = Math.floor(n / 2)) {
    try {
      return await open(n);
    } catch (error) {
      if (!(error instanceof InsufficientMemoryError) || n <= 1) throw error;
    }
  }
}

/** The tokens a prompt puts before the model's first new token, and the texts that end its reply. */
function promptTokens(runtime: Runtime, prompt: CompletionPrompt, chat: ChatWrapper | undefined): { tokens: Token[]; stopTexts?: string[] } {
  const model = runtime.model;
  if (!chat) {
    const tokens = model.tokenize(prompt.text, false);
    const bos = model.tokens.bos;
    return { tokens: bos !== null && model.tokens.shouldPrependBosToken ? [bos, ...tokens] : tokens };
  }
  if (prompt.replyPrefix === undefined) throw new Error('bug: a chat model needs a chat prompt');
  // A model turn that already holds text is left open by the wrapper: the model continues it.
  const state = chat.generateContextState({
    chatHistory: [
      ...prompt.messages.map((m): ChatHistoryItem => (m.role === 'user' ? { type: 'user', text: m.content } : { type: 'model', response: [m.content] })),
      { type: 'model', response: [prompt.replyPrefix] },
    ],
  });
  return { tokens: state.contextText.tokenize(model.tokenizer), stopTexts: [`\n${REPLY_FENCE}`, ...state.stopGenerationTriggers.flatMap(plainText)] };
}

/** A stop trigger as plain text, when it is one (special tokens end generation as end-of-generation tokens). */
function plainText(trigger: LlamaText): string[] {
  const parts = trigger.values.map((v) => (typeof v === 'string' ? v : v instanceof SpecialTokensText ? v.value : undefined));
  return parts.every((p) => p !== undefined) && parts.join('') !== '' ? [parts.join('')] : [];
}

function localSlot(runtime: Runtime, sequence: LlamaContextSequence, options: LocalOptions, vocabulary: Vocabulary, chat: ChatWrapper | undefined, gate: StepGate): SlotGenerator {
  // Per API and the names in scope at the call (what values may reference): kept from sample to sample.
  const constrainBy = options.constrainBy;
  const constraints = constrainBy?.tokens(vocabulary);
  return {
    async generate({ prompt, api, seed }) {
      const constraint = constraints?.atCall(api, prompt.setup);
      const { tokens, stopTexts: chatStops } = promptTokens(runtime, prompt, chat);
      const steps = prompt.setup.steps;
      // A multi-step program's text ends where the starter's function is closed (a chat reply's also at its fence).
      const stopTexts = steps ? [steps.stop, ...(chatStops ?? [])] : chatStops;
      const everyCall = steps && constrainBy && constraints && constraint ? { constraintAfter: constraints.betweenCalls(api, prompt.setup, constraint), finish: constrainBy.cutWhereItParses(api, prompt.setup, steps.closing) } : steps ? {} : undefined;
      if (tokens.length + options.maxTokens > options.contextSize) {
        throw new Error(`the prompt (${tokens.length} tokens) and ${options.maxTokens} new tokens do not fit a context of ${options.contextSize}; raise --context or lower --max-tokens`);
      }
      using decoder = new Decoder(sequence, runtime.model, { temperature: options.temperature, topK: options.topK, topP: options.topP, seed }, gate);
      return await generate(sequence, runtime.model, decoder, tokens, { maxTokens: options.maxTokens, decode: (t) => decodeTokens(vocabulary, t), greedy: options.temperature <= 0, stepDeadlineMs: options.stepDeadlineMs, ...(stopTexts ? { stopTexts } : {}), ...(everyCall ? { everyCall } : {}) }, constraint);
    },
  };
}
