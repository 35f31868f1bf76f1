import type { RequestConfig, SampleStep } from './schemas.js';

/** How a carried value is read (the renderer shows what it points at). */
export { carriedSource, valueAtPointer } from './steps.js';

/**
 * Edits of a multi-step sample's steps (scoring.md §7), as the review page makes them and the
 * service's tests replay them: add, remove, move, replace a step's request or response, drop a
 * carried value. Zod-free (types only from the contract), so the renderer runs the same code.
 * Each edit gives the new steps, where each new step came from (`order[i]`: its index before,
 * null for an added one) and a note for the revision's reason (`moved step 1 up`), or a
 * one-line reason it is refused.
 *
 * A carried value points into an earlier step by index (`0:/data/channels/0/id`): a move or a
 * removal renumbers every pointer so it keeps naming the same step, and refuses what would leave
 * a pointer without its step or pointing forward.
 */
export type StepEdit = { readonly ok: true; readonly steps: SampleStep[]; readonly order: (number | null)[]; readonly note: string } | { readonly ok: false; readonly reason: string };

/** A multi-step sample has at least this many steps (scoring.md §7); one request is a single-request sample. */
export const MIN_STEPS = 2;

const refused = (reason: string): StepEdit => ({ ok: false, reason });
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const sourceStep = (pointer: string): number => Number(pointer.slice(0, pointer.indexOf(':')));
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The steps in a new order (`order[i]`: the old index of the new step i, null for a new one), every carried pointer renumbered to follow its step. */
function reordered(steps: readonly SampleStep[], order: readonly (number | null)[], added: SampleStep | undefined): SampleStep[] {
  const renumber = new Map<number, number>();
  order.forEach((old, now) => old !== null && renumber.set(old, now));
  return order.map((old) => {
    const step = copy(old === null ? added! : steps[old]!);
    if (!step.carried) return step;
    const carried: Record<string, string> = {};
    for (const [where, pointer] of Object.entries(step.carried)) {
      const from = renumber.get(sourceStep(pointer));
      carried[where] = from === undefined ? pointer : `${from}${pointer.slice(pointer.indexOf(':'))}`;
    }
    return { ...step, carried };
  });
}

/** The first carried value of the steps that points into its own step or a later one, as a sentence. */
function forwardPointer(steps: readonly SampleStep[]): string | undefined {
  for (const [i, step] of steps.entries()) {
    for (const [where, pointer] of Object.entries(step.carried ?? {})) if (!(sourceStep(pointer) < i)) return `step ${i} would carry ${where} from step ${sourceStep(pointer)}, which no longer comes before it`;
  }
  return undefined;
}

const identity = (n: number): (number | null)[] => Array.from({ length: n }, (_, i) => i);

/** A new last step: a copy of the last one, as a start (its carried values point where the last one's did). */
export function addStep(steps: readonly SampleStep[]): StepEdit {
  const last = steps.at(-1);
  if (!last) return refused('there is no step to copy');
  return { ok: true, steps: reordered(steps, [...identity(steps.length), null], last), order: [...identity(steps.length), null], note: `added step ${steps.length} (a copy of step ${steps.length - 1})` };
}

/** Step `i` removed; refused below two steps, and while a later step carries a value from it. */
export function removeStep(steps: readonly SampleStep[], i: number): StepEdit {
  if (!steps[i]) return refused(`there is no step ${i}`);
  if (steps.length <= MIN_STEPS) return refused(`a multi-step sample keeps ${MIN_STEPS} or more steps: step ${i} cannot be removed from ${steps.length}`);
  for (const [k, step] of steps.entries()) {
    const from = Object.entries(step.carried ?? {}).find(([, pointer]) => sourceStep(pointer) === i);
    if (from && k !== i) return refused(`step ${k} carries ${from[0]} from step ${i}: drop that carried value first`);
  }
  const order = identity(steps.length).filter((old) => old !== i);
  return { ok: true, steps: reordered(steps, order, undefined), order, note: `removed step ${i}` };
}

/** Step `i` moved one place up (-1) or down (1); refused where a carried value would then point forward. */
export function moveStep(steps: readonly SampleStep[], i: number, by: -1 | 1): StepEdit {
  const j = i + by;
  if (!steps[i] || !steps[j]) return refused(`step ${i} cannot move ${by < 0 ? 'up' : 'down'}: it is the ${by < 0 ? 'first' : 'last'}`);
  const order = identity(steps.length);
  order[i] = j;
  order[j] = i;
  const next = reordered(steps, order, undefined);
  const forward = forwardPointer(next);
  if (forward) return refused(`step ${i} cannot move ${by < 0 ? 'up' : 'down'}: ${forward}`);
  return { ok: true, steps: next, order, note: `moved step ${i} ${by < 0 ? 'up' : 'down'}` };
}

const replaced = (steps: readonly SampleStep[], i: number, step: SampleStep, note: string): StepEdit =>
  steps[i] ? { ok: true, steps: steps.map((s, k) => (k === i ? step : copy(s))), order: identity(steps.length), note } : refused(`there is no step ${i}`);

/** Step `i`'s request replaced. */
export function setStepRequest(steps: readonly SampleStep[], i: number, config: RequestConfig): StepEdit {
  if (!steps[i]) return refused(`there is no step ${i}`);
  return replaced(steps, i, { ...copy(steps[i]!), config: copy(config) }, `edited step ${i}'s request`);
}

/** Step `i`'s stubbed response replaced. */
export function setStepResponse(steps: readonly SampleStep[], i: number, response: SampleStep['response']): StepEdit {
  if (!steps[i]) return refused(`there is no step ${i}`);
  return replaced(steps, i, { ...copy(steps[i]!), response: copy(response) }, `edited step ${i}'s response`);
}

/** One carried value of step `i` dropped (the request keeps its value, now a literal). */
export function dropCarried(steps: readonly SampleStep[], i: number, where: string): StepEdit {
  const step = steps[i];
  if (!step?.carried || !(where in step.carried)) return refused(`step ${i} carries no ${where}`);
  const rest = Object.fromEntries(Object.entries(step.carried).filter(([k]) => k !== where));
  const next: SampleStep = { config: copy(step.config), response: copy(step.response), ...(Object.keys(rest).length > 0 ? { carried: rest } : {}) };
  return replaced(steps, i, next, `dropped step ${i}'s carried ${where}`);
}

/** Whether two step lists are the same (JSON-equal). */
export const sameSteps = (a: readonly SampleStep[] | undefined, b: readonly SampleStep[] | undefined): boolean => same(a, b);
