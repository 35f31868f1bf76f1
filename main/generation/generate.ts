import type { LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import type { DecodingConstraint } from './constrainer.js';
import type { Decoder, Position } from './decoder.js';
import type { Generation, Intervention, StopReason } from './backend.js';

export interface GenerationOptions {
  readonly maxTokens: number;
  /** The text of tokens: their vocabulary bytes, decoded (see `decodeTokens`), so the text scored is the text constrained. */
  readonly decode: (tokens: readonly Token[]) => string;
  /** Greedy decoding (temperature 0): an intervention then takes the model's best allowed token. */
  readonly greedy: boolean;
  /** Constraint work allowed per step before the sample ends as a timeout. */
  readonly stepDeadlineMs: number;
  /**
   * Chat replies: texts that end the snippet (the code block's closing fence, the chat
   * template's end-of-turn text), cut from the output. Without them, a blank line does.
   */
  readonly stopTexts?: readonly string[];
  /**
   * A multi-step program (Setup.steps): generation goes on past a finished call, the constraint
   * holding every call the model writes, until a stop text in free code, the end of generation or
   * the token limit. Between calls, `constraintAfter` gives the constraint for the text so far:
   * names it declared since (`const r0 = await axios...`) are then in scope for later calls.
   */
  readonly everyCall?: {
    readonly constraintAfter?: (text: string) => DecodingConstraint;
    /**
     * The text cut back to the last point between calls where the program parses (the text
     * itself when it does). Under a constraint the calls are held to the spec but the code
     * between them is the model's: cut there, the program always runs.
     */
    readonly finish?: (text: string) => string;
  };
}




const TOP = 64;
/** Added to the logits of the allowed tokens when they are the fewer: the others then have probability 0. */
const BOOST = 1000;

/**
 * The mask as a logit bias over whichever side is smaller: boost the allowed, or forbid the rest.
 * Word by word: the side's bits are counted first (exact arrays, no growth) and read out with
 * clz32, skipping whole words of the other side; a loop over every token id took 0.3 to 3.6 ms on
 * the 151,936-token vocabulary, more than the sampling call it feeds.
 */
export function maskBias(mask: Uint32Array, vocabularySize: number): { keys: Uint32Array; values: Float32Array; allowed: number } {
  const words = Math.ceil(vocabularySize / 32);
  // Bits past the vocabulary, in its last word, are neither side.
  const tail = vocabularySize % 32 === 0 ? -1 : (1 << vocabularySize % 32) - 1;
  const word = (w: number, boost: boolean): number => ((boost ? mask[w]! : ~mask[w]!) & (w === words - 1 ? tail : -1)) >>> 0;
  let allowed = 0;
  for (let w = 0; w < words; w++) allowed += popcount(word(w, true));
  const boost = allowed <= vocabularySize / 2;
  const keys = new Uint32Array(boost ? allowed : vocabularySize - allowed);
  let n = 0;
  for (let w = 0; w < words; w++) {
    for (let bits = word(w, boost); bits !== 0; bits &= bits - 1) keys[n++] = w * 32 + (31 - Math.clz32(bits & -bits));
  }
  return { keys, values: new Float32Array(keys.length).fill(boost ? BOOST : -Infinity), allowed };
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

type Choice = { readonly token: Token; readonly intervention?: Intervention } | { readonly unsatisfiable: true };

/**
 * Generates one completion on a sequence. Unconstrained: the model's picks until end of
 * generation, a blank line after code, or the token limit. Constrained: each pick is checked
 * first, and only a rejected one costs more — the model's top 64 (greedy: its best allowed token
 * is usually there), else a resample under the full mask; end of generation is the constraint's
 * call, the snippet ends when the invocation's statement does, and at the token limit the
 * shortest completion closes it. The prompt's prefix already in the sequence is reused.
 */
export async function generate(
  sequence: LlamaContextSequence,
  model: LlamaModel,
  decoder: Decoder,
  prompt: readonly Token[],
  options: GenerationOptions,
  constraint?: DecodingConstraint,
): Promise<Generation> {
  const started = performance.now();
  // Keep what the sequence holds of this prompt; the last prompt token is always evaluated again, for its logits.
  const keep = Math.min(sequence.compareContextTokens([...prompt]).firstDifferentIndex, prompt.length - 1);
  if (sequence.nextTokenIndex > keep) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
  let input: Token[] = prompt.slice(keep);
  let promptMs = 0;
  let promptWaitMs = 0;
  let constraintMs = 0;
  const generated: Token[] = [];
  const interventions: Intervention[] = [];
  const textOf = (token: Token): string => options.decode([token]);
  let stop: StopReason = 'limit';
  let timedOut = false;

  let current = constraint;
  const choose = async (position: Position, step: number): Promise<Choice> => {
    const token = await position.pick();
    // The constraint of this position (a multi-step program's changes between calls).
    const constraint = current;
    if (!constraint) return { token };
    const t0 = performance.now();
    try {
      if (constraint.check(token)) return { token };
      const top = await position.top(TOP);
      const p = (t: Token): number | null => top.find((x) => x.token === t)?.p ?? null;
      let chosen: Token | undefined;
      let via: 'top' | 'mask' = 'top';
      if (options.greedy) chosen = top.find((x) => constraint.check(x.token))?.token;
      if (chosen === undefined) {
        via = 'mask';
        const mask = constraint.mask();
        const bias = maskBias(mask, constraint.vocabularySize);
        if (bias.allowed === 0) return { unsatisfiable: true };
        chosen = await position.pickWith(bias);
        // The bias leaves only allowed tokens unless their logits are not finite; then take the first allowed one.
        if (!constraint.check(chosen)) chosen = firstAllowed(mask) as Token;
      }
      return { token: chosen, intervention: { kind: 'replaced', step, model: { token, text: textOf(token), p: p(token) }, chosen: { token: chosen, text: textOf(chosen), p: p(chosen) }, via } };
    } finally {
      const spent = performance.now() - t0;
      constraintMs += spent;
      if (spent > options.stepDeadlineMs) timedOut = true;
    }
  };

  for (let step = 0; step < options.maxTokens; step++) {
    const t0 = performance.now();
    const choice = await decoder.step(input, (position) => choose(position, step));
    if (step === 0) {
      promptMs = performance.now() - t0;
      promptWaitMs = decoder.waitedMs;
    }
    if (timedOut) {
      stop = 'timeout';
      break;
    }
    if ('unsatisfiable' in choice) {
      stop = 'unsatisfiable';
      break;
    }
    if (choice.intervention) interventions.push(choice.intervention);
    if (model.isEogToken(choice.token)) {
      stop = 'eos';
      break;
    }
    generated.push(choice.token);
    input = [choice.token];
    if (constraint) {
      const t1 = performance.now();
      constraint.advance(choice.token);
      const complete = constraint.state.isComplete();
      constraintMs += performance.now() - t1;
      if (complete && !options.everyCall) {
        stop = 'snippet';
        break;
      }
      if (complete && options.everyCall) {
        const tail = options.decode(generated.slice(-8));
        if (options.stopTexts?.some((t) => tail.includes(t))) {
          stop = 'snippet';
          break;
        }
        // At a statement's end in free code, the names declared so far join the language.
        if (options.everyCall.constraintAfter && constraint.pendingBytes.length === 0 && /[;\n]/.test(textOf(choice.token))) {
          const t2 = performance.now();
          current = constraint = options.everyCall.constraintAfter(options.decode(generated));
          constraintMs += performance.now() - t2;
        }
      }
    } else if (options.stopTexts) {
      // Checked on the last few tokens only: a stop text is a handful of tokens at most.
      const tail = options.decode(generated.slice(-8));
      if (options.stopTexts.some((t) => tail.includes(t))) {
        stop = 'snippet';
        break;
      }
    } else if (/\S[\s\S]*\n[ \t]*\n$/.test(options.decode(generated.slice(-8)))) {
      // A blank line after code ends the snippet (checked on the last few tokens only).
      stop = 'snippet';
      break;
    }
  }
  let text = options.decode(generated);
  // A character begun in bytes and not finished (the token limit came first) decodes to one U+FFFD, which the
  // constraint never read and a header value cannot hold: the text ends where the constraint's does.
  if (constraint && constraint.pendingBytes.length > 0) text = text.slice(0, -1);
  if (options.stopTexts && stop === 'snippet' && (!constraint || options.everyCall)) {
    const cut = Math.min(...options.stopTexts.map((t) => text.indexOf(t)).filter((i) => i >= 0));
    if (Number.isFinite(cut)) text = text.slice(0, cut);
  }
  if (constraint && (stop === 'limit' || stop === 'eos') && !constraint.state.isComplete()) {
    const closing = constraint.state.completion() ?? '';
    interventions.push({ kind: 'closed', step: generated.length, text: closing });
    text += closing;
  }
  const finish = options.everyCall?.finish;
  if (constraint && finish) {
    const kept = finish(text);
    if (kept !== text) {
      interventions.push({ kind: 'cut', step: generated.length, text: text.slice(kept.length) });
      text = kept;
    }
  }
  return {
    text,
    tokens: generated.length,
    stop,
    interventions,
    promptTokens: prompt.length,
    reusedPromptTokens: keep,
    promptMs,
    generateMs: performance.now() - started - promptMs,
    constraintMs,
    batched: decoder.batched,
    decodeMs: decoder.waitedMs - promptWaitMs,
    trace: generated.map(textOf),
  };
}

function firstAllowed(mask: Uint32Array): number {
  for (let w = 0; w < mask.length; w++) if (mask[w]) return w * 32 + (31 - Math.clz32(mask[w]! & -mask[w]!));
  return 0;
}
