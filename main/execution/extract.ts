/**
 * Extraction of the invocation from generated text (scoring.md §2), before execution: where the
 * call starts, where it is cut, and what program runs it.
 */
import { parse, tokenizer, tokTypes, type Options } from 'acorn';
import { CLIENT_PROFILES, DEFAULT_CLIENT } from '../api/clients.js';
import type { Setup } from '../api/setup.js';
import { wrapProgram } from './program.js';

export type CutRule = '.then' | '.catch' | '.finally' | '});' | '}\n);' | ');' | ';' | '\naxios.' | '```' | 'matching )';

/**
 * What runs the cut call:
 * - `as-written`: the text before the call, the call and its replacement (the default);
 * - `call-alone`: the call alone after the setup's prelude (the Axios import): the reference's rule,
 *   and the fallback where the text before the cut and the call do not parse as a program (the
 *   call sits inside a block, a function, an async IIFE, a `try`, or a code fence left open);
 * - `own-starter`: a sample's own starter (real-world pipeline): the prelude (imports the sandbox
 *   offers, `const <name> = <json>;` per definition), the declarations the model wrote before the
 *   call where they parse on their own, then the call up to its matching parenthesis.
 */
export type RunRule = 'as-written' | 'call-alone' | 'own-starter';

/** In priority order: the first rule whose token occurs after `axios.` decides the cut. */
const CUT_RULES: readonly CutRule[] = ['.then', '.catch', '.finally', '});', '}\n);', ');', ';', '\naxios.', '```'];
const CHAINED: ReadonlySet<CutRule> = new Set(['.then', '.catch', '.finally']);
const KEPT: ReadonlySet<CutRule> = new Set(['});', '}\n);', ');', ';']);
/** Text read without a setup is the fixed starter's: the default client's import before its call. */
const AXIOS_IMPORT = CLIENT_PROFILES[DEFAULT_CLIENT].importLine;

export type Extraction =
  | {
      readonly status: 'ok';
      /** Offset of the call (its `axios.` or `fetch(`) in the text. */
      readonly start: number;
      /** Offset where the call was cut. */
      readonly cut: number;
      readonly rule: CutRule;
      /** The call alone: from `axios.` to the cut, with the cut's replacement. */
      readonly call: string;
      /** How the program below runs the call. */
      readonly runs: RunRule;
      /** The script the sandbox runs for it (see RunRule). */
      readonly program: string;
    }
  | { readonly status: 'no_request' | 'incomplete_request'; readonly message: string };

/** What extraction needs of a setup (main/api/setup.ts). */
export type ExtractionSetup = Pick<Setup, 'starter' | 'callStart' | 'origin' | 'callPrelude' | 'client'>;

/**
 * Where the call search starts in `text`: at the start of the starter's call line when the text
 * begins with the starter's own code before that line (a starter may hold calls of its own before
 * the one the model completes; a chat reply's code is spliced in from that line on, as upstream
 * does), else at 0.
 */
export function searchStart(text: string, setup: Pick<Setup, 'starter' | 'callStart'> | undefined): number {
  if (!setup) return 0;
  const line = setup.starter.lastIndexOf('\n', setup.callStart - 1) + 1;
  return text.startsWith(setup.starter.slice(0, line)) ? line : 0;
}

/** The first call the setup's client makes from `from` on (its profile's calls: `axios.`, with fetch `fetch(` too, whichever comes first). */
function findCall(text: string, from: number, client: Setup['client']): { start: number; opener: string } | undefined {
  let first: { start: number; opener: string } | undefined;
  for (const call of CLIENT_PROFILES[client].calls) {
    const re = new RegExp(call.pattern.source, 'g');
    re.lastIndex = from;
    const at = re.exec(text)?.index;
    if (at !== undefined && (first === undefined || at < first.start)) first = { start: at, opener: call.opener };
  }
  return first;
}

/**
 * Cuts the first call out of generated text (starter + completion) and says which program runs
 * it. Without a setup the text is read as the fixed starter's (the call searched from 0, the
 * Axios import as the prelude). `reference` runs the call alone, as the reference does.
 */
export function extractInvocation(text: string, setup?: ExtractionSetup, compat: 'default' | 'reference' = 'default'): Extraction {
  const from = searchStart(text, setup);
  const client = setup?.client ?? DEFAULT_CLIENT;
  const found = findCall(text, from, client);
  if (!found) return { status: 'no_request', message: `the code contains no ${CLIENT_PROFILES[client].calls.map((c) => `\`${c.shown}\``).join(' or ')} call` };
  const prelude = setup?.callPrelude ?? AXIOS_IMPORT;
  if (setup?.origin === 'sample') return ownStarterCall(text, from, found.start, prelude, compat);
  const { start } = found;
  const offset = start + found.opener.length;
  for (const rule of CUT_RULES) {
    const cut = text.indexOf(rule, offset);
    if (cut < 0) continue;
    const replacement = CHAINED.has(rule) ? ';\n' : KEPT.has(rule) ? `${rule}\n` : '';
    const call = text.slice(start, cut) + replacement;
    const asWritten = text.slice(0, start) + call;
    const alone = prelude + call;
    if (compat === 'reference') return { status: 'ok', start, cut, rule, call, runs: 'call-alone', program: alone };
    // Our own cut must not turn a program into a syntax error: where it does, the call runs alone.
    const runs: RunRule = parses(wrapProgram(asWritten)) || !parses(wrapProgram(alone)) ? 'as-written' : 'call-alone';
    return { status: 'ok', start, cut, rule, call, runs, program: runs === 'as-written' ? asWritten : alone };
  }
  return { status: 'incomplete_request', message: 'the `axios.` call never ends (no `;`, `);`, `.then`, ... after it)' };
}

/** The reference ran only the extracted call, after an Axios import. */
export const referenceProgram = (call: string): string => `${AXIOS_IMPORT}${call}`;

const SCRIPT: Options = { ecmaVersion: 'latest', sourceType: 'script' };

/** Whether the sandbox could compile this script (acorn agrees with V8 on what is a syntax error). */
function parses(script: string): boolean {
  try {
    parse(script, SCRIPT);
    return true;
  } catch {
    return false;
  }
}

/**
 * Upstream's real-world pipeline (scoring.md §2): the first `axios.<method>(` after the starter's
 * own code, up to its matching parenthesis (counted on tokens, so a `)` inside a string or a
 * template does not count), run after the prelude and what the model declared before it.
 */
function ownStarterCall(text: string, from: number, start: number, prelude: string, compat: 'default' | 'reference'): Extraction {
  const open = text.indexOf('(', start);
  const end = open < 0 ? undefined : matchingParen(text, open);
  if (end === undefined) return { status: 'incomplete_request', message: 'the call never closes its parenthesis' };
  const call = `${text.slice(start, end)};\n`;
  // Whole lines only: the start of the call's own line (`return `, `const res = await `) is not a statement of its own.
  const lineStart = Math.max(from, text.lastIndexOf('\n', start - 1) + 1);
  const declared = compat === 'reference' ? '' : parsingPrefix(text.slice(from, lineStart));
  return { status: 'ok', start, cut: end, rule: 'matching )', call, runs: 'own-starter', program: prelude + declared + call };
}

/** Offset just after the `)` that closes the `(` at `open`, or undefined if the text ends first or does not tokenize. */
function matchingParen(text: string, open: number): number | undefined {
  let depth = 0;
  try {
    for (const token of tokenizer(text.slice(open), { ecmaVersion: 'latest' })) {
      if (token.type === tokTypes.parenL) depth++;
      else if (token.type === tokTypes.parenR && --depth === 0) return open + token.end;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/**
 * The longest run of whole lines at the start of `code` that parses on its own: the statements the
 * model wrote before the call (`const params = {...};`), without the unfinished one the call sits
 * in (`const res = await `).
 */
function parsingPrefix(code: string): string {
  const lines = code.replace(/\n$/, '').split('\n');
  for (let n = lines.length; n > 0; n--) {
    const prefix = lines.slice(0, n).join('\n');
    if (prefix.trim() === '') return '';
    if (parses(wrapProgram(prefix))) return `${prefix}\n`;
  }
  return '';
}
