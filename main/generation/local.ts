import { parse } from 'acorn';
import { InsufficientMemoryError, resolveChatWrapper, SpecialTokensText, type ChatHistoryItem, type ChatWrapper, type LlamaContext, type LlamaContextSequence, type LlamaText, type Token } from 'node-llama-cpp';
import { chatMessages, REPLY_FENCE, type CompletionPrompt } from '../prompt/index.js';
import { ConstraintMatcher, decodeTokens, namesInScope, TokenConstraint, type Vocabulary } from '../constraints/index.js';
import type { Setup } from '../api/setup.js';
import type { ApiSpec } from '../openapi/index.js';
import type { GenerationBackend, SamplingOptions, SlotGenerator } from './backend.js';
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
  /** The specs to constrain by, per API; absent for unconstrained runs. */
  readonly constrainBy?: ReadonlyMap<string, ApiSpec>;
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
 * samples share is evaluated once per slot. Constrained slots keep one TokenConstraint per API,
 * so memoised masks carry over from sample to sample.
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
      ...chatMessages(prompt).map((m): ChatHistoryItem => (m.role === 'user' ? { type: 'user', text: m.content } : { type: 'model', response: [m.content] })),
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
  const constraints = new Map<string, TokenConstraint>();
  return {
    async generate({ prompt, api, seed }) {
      const spec = options.constrainBy?.get(api);
      if (options.constrainBy && !spec) throw new Error(`no spec to constrain ${api} by`);
      const constraint = spec ? constraintAtCall(constraints, api, spec, vocabulary, prompt.setup) : undefined;
      const { tokens, stopTexts: chatStops } = promptTokens(runtime, prompt, chat);
      const steps = prompt.setup.steps;
      // A multi-step program's text ends where the starter's function is closed (a chat reply's also at its fence).
      const stopTexts = steps ? [steps.stop, ...(chatStops ?? [])] : chatStops;
      const everyCall = steps && spec && constraint ? { constraintAfter: constraintBetweenCalls(constraints, api, spec, vocabulary, prompt.setup, constraint), finish: cutWhereItParses(spec, prompt.setup, steps.closing) } : steps ? {} : undefined;
      if (tokens.length + options.maxTokens > options.contextSize) {
        throw new Error(`the prompt (${tokens.length} tokens) and ${options.maxTokens} new tokens do not fit a context of ${options.contextSize}; raise --context or lower --max-tokens`);
      }
      using decoder = new Decoder(sequence, runtime.model, { temperature: options.temperature, topK: options.topK, topP: options.topP, seed }, gate);
      return await generate(sequence, runtime.model, decoder, tokens, { maxTokens: options.maxTokens, decode: (t) => decodeTokens(vocabulary, t), greedy: options.temperature <= 0, stepDeadlineMs: options.stepDeadlineMs, ...(stopTexts ? { stopTexts } : {}), ...(everyCall ? { everyCall } : {}) }, constraint);
    },
  };
}

/**
 * The token constraint for a sample, standing where the model writes: its language takes the
 * names in scope at the call (namesInScope: every enclosing scope of the starter, and the sample's
 * definitions), and it has seen the starter from the call on (`callStart`): the starter's own code
 * before it, earlier calls of Axios included, is context, as in `constraints check`. Completion
 * and chat prompts alike end with the starter, so that is what the model continues.
 * `cache` keeps one constraint per API and names, so memoised masks carry over between samples.
 */
export function constraintAtCall(cache: Map<string, TokenConstraint>, api: string, spec: ApiSpec, vocabulary: Vocabulary, setup: Pick<Setup, 'starter' | 'callStart' | 'definitions'>): TokenConstraint {
  const names = namesInScope(setup);
  const key = `${api}\0${names.join(',')}`;
  let constraint = cache.get(key);
  if (!constraint) cache.set(key, (constraint = new TokenConstraint(vocabulary, ConstraintMatcher.create(spec, names))));
  constraint.reset();
  const primed = constraint.state.feed(setup.starter.slice(setup.callStart));
  if (!primed.ok) throw new Error(`the starter code does not open an invocation the constraints accept (${primed.reason})`);
  return constraint;
}

/**
 * Between a multi-step program's calls: the constraint whose language has the names in scope at
 * the end of the text so far (the starter's, the definitions, and what the program declared
 * since, as a parser reads it), standing in free code as the one before it did. The same one when
 * no name was added; else one per names from `cache`, fed the text's trailing word (all a free
 * state remembers: whether `axios.` has begun).
 */
function constraintBetweenCalls(cache: Map<string, TokenConstraint>, api: string, spec: ApiSpec, vocabulary: Vocabulary, setup: Pick<Setup, 'starter' | 'definitions'>, first: TokenConstraint): (text: string) => TokenConstraint {
  let current = first;
  let key = `${api}\0${namesInScope({ ...setup, callStart: setup.starter.length }).join(',')}`;
  return (text) => {
    const program = setup.starter + text;
    const names = namesInScope({ starter: program, callStart: program.length, definitions: setup.definitions });
    const next = `${api}\0${names.join(',')}`;
    if (next === key) return current;
    key = next;
    let constraint = cache.get(next);
    if (!constraint) cache.set(next, (constraint = new TokenConstraint(vocabulary, ConstraintMatcher.create(spec, names))));
    constraint.reset();
    const fed = constraint.state.feed(/[\w$.]*$/.exec(text)?.[0] ?? '');
    if (!fed.ok) return current;
    current = constraint;
    return current;
  };
}

/**
 * A constrained multi-step program's text, cut back to where it parses. The calls are the
 * constraint's, the code between them the model's (a random model writes anything there), so the
 * cut points are where the constraint stood between calls: found by feeding the text again to a
 * matcher whose names are all the program declares (a superset of what each call had), and tried
 * from the last (a call chained with `.then(` ends before it). The first call's end is one (the
 * starter opens it), so a constrained program always runs.
 */
function cutWhereItParses(spec: ApiSpec, setup: Pick<Setup, 'starter' | 'callStart' | 'definitions'>, closing: string): (text: string) => string {
  return (text) => {
    const parses = (t: string): boolean => programParses(setup.starter + t + closing);
    if (parses(text)) return text;
    const program = setup.starter + text;
    const matcher = ConstraintMatcher.create(spec, namesInScope({ starter: program, callStart: program.length, definitions: setup.definitions }));
    if (!matcher.feed(setup.starter.slice(setup.callStart)).ok) return text;
    const between: number[] = [];
    let offset = 0;
    for (const c of text) {
      if (!matcher.push(c)) break;
      offset += c.length;
      if (!matcher.isComplete()) continue;
      // A call ended by `.then(` (or `.catch(`, `.finally(`) is whole before it: the handler's code is the model's.
      const chained = /\.(?:then|catch|finally)\($/.exec(text.slice(Math.max(0, offset - 9), offset));
      between.push(chained ? offset - chained[0].length : offset);
    }
    between.sort((a, b) => a - b);
    for (let k = between.length - 1; k >= 0; k--) if (parses(text.slice(0, between[k]))) return text.slice(0, between[k]);
    return text;
  };
}

/** Whether a program parses as the sandbox runs it (a script: Node's CommonJS module body). */
function programParses(program: string): boolean {
  try {
    parse(program, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true });
    return true;
  } catch {
    return false;
  }
}
