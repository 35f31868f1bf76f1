import { CLIENT_PROFILES } from '../api/clients.js';
import type { RequestConfig } from '../api/schemas.js';
import type { Setup } from '../api/setup.js';
import { ConstraintMatcher, namesInScope } from '../constraints/index.js';
import { checkRequest } from '../dataset/index.js';
import type { Generation } from '../generation/index.js';
import type { ApiSpec } from '../openapi/index.js';
import { repairPrompt, type CompletionPrompt, type RepairTurn } from '../prompt/index.js';
import type { ErrorVerdict, SampleVerdict } from '../scoring/index.js';
import type { CodeEvaluation } from './evaluate.js';

/**
 * The repair setting (issue 25): a loop around any model, local or hosted, that needs no logits.
 * After each generation the program is checked against the API's description alone, and while the
 * checker finds something, the model is asked again with what it found, up to a number of rounds.
 * The scored program is the last one; every round is kept for the inspector.
 */

/** One round: the program, what the checker found in it (none: the loop stopped there), and its scored verdict (for the inspector only). */
export interface RepairRound {
  readonly round: number;
  readonly code: string;
  readonly feedback: readonly string[];
  readonly verdict: SampleVerdict;
  readonly error: ErrorVerdict | null;
  readonly tokens: number;
}

/** At most this many findings go back to the model: the first ones say what to fix first, and a long list drowns them. */
const MAX_FEEDBACK = 6;
const MAX_ALTERNATIVES = 8;

/**
 * What is wrong with a program, found without the expected request: whether a call could be
 * extracted, whether it ran and sent a request, the spec checks of that request (the same checks
 * a dataset's samples get: server, path, method, permitted arguments, required ones, value types),
 * and where the spec's constraint language first refuses the call. Nothing here reads the
 * expected request, so no value the task does not state can reach the model through it (a test
 * checks every request sent).
 *
 * The constraint position is reported only beside another finding: the language is stricter than
 * correct code (it refuses `'...' + id`, for one), and a program whose request passes every spec
 * check has nothing to repair.
 */
export function specFeedback(code: string, setup: Setup, spec: ApiSpec, evaluation: Pick<CodeEvaluation, 'extraction' | 'execution' | 'request'>): string[] {
  const found: string[] = [];
  if ('error' in evaluation.extraction) found.push(`no complete request call could be found in the program: ${evaluation.extraction.error}`);
  else if (evaluation.execution?.error) found.push(`running the program failed: ${oneLine(evaluation.execution.error.message)}`);
  else if (!evaluation.request) found.push('the program ran but sent no request');
  else if (setup.steps && evaluation.execution?.captured) {
    // A multi-step program: each request it sent, checked alone and named by its place (the steps' expected requests stay unread).
    const captured = evaluation.execution.captured;
    captured.forEach((request, i) => {
      for (const finding of checkRequest(spec, configOf(request))) found.push(`step ${i + 1} (${request.method.toUpperCase()} ${request.url.split('?')[0]}): ${finding.message}`);
    });
    // The constraint language's names are those in scope where the program starts; a later call's
    // references to earlier responses are declared by the program itself, so its refusal would mislead.
    return found.slice(0, MAX_FEEDBACK);
  } else {
    for (const finding of checkRequest(spec, configOf(evaluation.request))) found.push(finding.message);
  }
  if (found.length === 0) return [];
  const refused = constraintRefusal(code, setup, spec);
  return [...found.slice(0, MAX_FEEDBACK), ...(refused ? [refused] : [])];
}

/** A captured request as the dataset checks read one. */
function configOf(captured: NonNullable<CodeEvaluation['request']>): RequestConfig {
  const { url, method, headers, params, data } = captured;
  return { url, method, ...(headers ? { headers } : {}), ...(params ? { params } : {}), ...(data !== undefined ? { data } : {}) };
}

/** Where the spec's constraint language first refuses the call, and what could come there instead. */
export function constraintRefusal(code: string, setup: Setup, spec: ApiSpec): string | undefined {
  if (!CLIENT_PROFILES[setup.client].constrainable) return undefined; // the language describes Axios calls (constraints.md)
  const call = code.slice(setup.callStart);
  const matcher = ConstraintMatcher.create(spec, namesInScope(setup));
  const fed = matcher.feed(call);
  if (fed.ok) return undefined;
  // The matcher stays at the refused character: it says what it would have taken there.
  const before = call.slice(Math.max(0, fed.offset - 40), fed.offset);
  const refusedChar = call.slice(fed.offset, fed.offset + 1);
  const instead = alternatives(matcher);
  return `the call leaves what the API's description allows at \`${before}\` (then ${JSON.stringify(refusedChar)})${instead ? `; allowed there: ${instead}` : ''}`;
}

function alternatives(matcher: ConstraintMatcher): string | undefined {
  const literals = matcher.literals();
  if (literals && literals.length > 0) return literals.slice(0, MAX_ALTERNATIVES).map((l) => `\`${l}\``).join(', ') + (literals.length > MAX_ALTERNATIVES ? ', ...' : '');
  const ascii = matcher.nextAscii();
  if (!ascii) return undefined;
  const chars: string[] = [];
  for (let c = 32; c < 127; c++) if ((ascii[c >>> 5]! >>> (c & 31)) & 1) chars.push(String.fromCharCode(c));
  if (chars.length === 0 || chars.length > 20) return undefined;
  return chars.map((c) => JSON.stringify(c)).join(' ');
}

const oneLine = (text: string): string => {
  const line = text.split('\n')[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
};

export interface RepairedOutput {
  /** The last round's generation, with the tokens and time of every round added up. */
  readonly generation: Generation;
  readonly code: string;
  readonly evaluation: CodeEvaluation;
  /** Every round when the setting is repair (the first included); empty otherwise. */
  readonly rounds: readonly RepairRound[];
}

/**
 * Generate, evaluate and, for the repair setting, check and ask again up to `rounds` times. With
 * `rounds` 0 it is one generation and one evaluation, as the other settings do.
 */
export async function generateWithRepair(input: {
  readonly prompt: CompletionPrompt;
  readonly spec: ApiSpec;
  readonly rounds: number;
  readonly generate: (prompt: CompletionPrompt) => Promise<Generation>;
  /** The program of a generation: the starter, what the model wrote, and a marker of how constrained generation ended. */
  readonly programOf: (generation: Generation, prompt: CompletionPrompt) => string;
  readonly evaluate: (code: string) => Promise<CodeEvaluation>;
}): Promise<RepairedOutput> {
  const { prompt, spec } = input;
  const turns: RepairTurn[] = [];
  const rounds: RepairRound[] = [];
  let total: Generation | undefined;
  for (;;) {
    const asked = repairPrompt(prompt, turns);
    const generation = await input.generate(asked);
    total = total ? addUp(total, generation) : generation;
    const code = input.programOf(generation, asked);
    const evaluation = await input.evaluate(code);
    if (input.rounds === 0) return { generation, code, evaluation, rounds };
    const feedback = specFeedback(code, prompt.setup, spec, evaluation);
    rounds.push({ round: rounds.length, code, feedback, verdict: evaluation.verdict.sample_verdict, error: evaluation.verdict.error_verdict, tokens: generation.tokens });
    if (feedback.length === 0 || turns.length >= input.rounds) return { generation: { ...generation, ...sums(total) }, code, evaluation, rounds };
    turns.push({ code, feedback });
  }
}

const sums = (g: Generation): Pick<Generation, 'tokens' | 'promptTokens' | 'promptMs' | 'generateMs' | 'constraintMs'> => ({
  tokens: g.tokens,
  promptTokens: g.promptTokens,
  promptMs: g.promptMs,
  generateMs: g.generateMs,
  constraintMs: g.constraintMs,
});

function addUp(a: Generation, b: Generation): Generation {
  return { ...b, tokens: a.tokens + b.tokens, promptTokens: a.promptTokens + b.promptTokens, promptMs: a.promptMs + b.promptMs, generateMs: a.generateMs + b.generateMs, constraintMs: a.constraintMs + b.constraintMs };
}
