import { parse } from 'acorn';
import type { Setup } from '../api/setup.js';
import { ConstraintMatcher, exportGbnf, namesInScope, preparedTokenIndex, TokenConstraint, type Vocabulary } from '../constraints/index.js';
import { cacheDir, type ConstrainedSetup, type Constrainer, type DecodingConstraint, type SequenceConstraints } from '../generation/index.js';
import type { ApiSpec } from '../openapi/index.js';

/**
 * The constraints of a run's APIs as generation takes them (its Constrainer, as `constrainBy`):
 * the constraint stage's token constraints, GBNF and closing texts, made from each API's spec for
 * the names in scope at a sample's call. Generation imports no other stage; this is where the two
 * meet. Made once per run: the grammars are kept per API and names for the run, the token
 * constraints per sequence (see `tokens`).
 */
export function constrainerFor(specs: ReadonlyMap<string, ApiSpec>): Constrainer {
  const specOf = (api: string): ApiSpec => {
    const spec = specs.get(api);
    if (!spec) throw new Error(`no spec to constrain ${api} by`);
    return spec;
  };
  const grammars = new Map<string, string>();
  return {
    tokens(vocabulary) {
      prepareTokenIndex(vocabulary);
      return sequenceConstraints(specOf, vocabulary);
    },
    cutWhereItParses: (api, setup, closing) => cutWhereItParses(specOf(api), setup, closing),
    grammar(api, setup) {
      const spec = specOf(api);
      const names = namesInScope(setup);
      const key = `${api}\0${names.join(',')}`;
      let g = grammars.get(key);
      if (!g) grammars.set(key, (g = exportGbnf(spec, names)));
      return g;
    },
    closing(api, setup, text) {
      // From the call on, with the names in scope there (as the local decoder's constraint; see constraintAtCall).
      const { matcher, fed } = ConstraintMatcher.forSetup(specOf(api), setup);
      if (!fed.ok || !matcher.feed(text).ok || matcher.isComplete()) return undefined;
      return matcher.completion();
    },
  };
}

const prepared = new WeakSet<Vocabulary>();

/**
 * A vocabulary's token index read back when a process kept it (preparing it takes a second or
 * more), once per vocabulary (a runtime's is shared by its runs); a cache that fails only costs that.
 */
function prepareTokenIndex(vocabulary: Vocabulary): void {
  if (prepared.has(vocabulary)) return;
  prepared.add(vocabulary);
  preparedTokenIndex(vocabulary, cacheDir('vocab'));
}

/** One sequence's token constraints: one per API and names in scope, kept from sample to sample so memoised masks carry over. */
function sequenceConstraints(specOf: (api: string) => ApiSpec, vocabulary: Vocabulary): SequenceConstraints {
  const cache = new Map<string, TokenConstraint>();
  return {
    atCall: (api, setup) => constraintAtCall(cache, api, specOf(api), vocabulary, setup),
    betweenCalls: (api, setup, first) => constraintBetweenCalls(cache, api, specOf(api), vocabulary, setup, first),
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
function constraintAtCall(cache: Map<string, TokenConstraint>, api: string, spec: ApiSpec, vocabulary: Vocabulary, setup: ConstrainedSetup): TokenConstraint {
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
function constraintBetweenCalls(cache: Map<string, TokenConstraint>, api: string, spec: ApiSpec, vocabulary: Vocabulary, setup: Pick<Setup, 'starter' | 'definitions'>, first: DecodingConstraint): (text: string) => DecodingConstraint {
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
function cutWhereItParses(spec: ApiSpec, setup: ConstrainedSetup, closing: string): (text: string) => string {
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
export function programParses(program: string): boolean {
  try {
    parse(program, { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true });
    return true;
  } catch {
    return false;
  }
}
