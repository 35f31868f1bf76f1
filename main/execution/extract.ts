/**
 * Extraction of the invocation from generated text (scoring.md §2), before execution.
 */
import type { Setup } from '../api/setup.js';

export type CutRule = '.then' | '.catch' | '.finally' | '});' | '}\n);' | ');' | ';' | '\naxios.' | '```';

/** In priority order: the first rule whose token occurs after `axios.` decides the cut. */
const CUT_RULES: readonly CutRule[] = ['.then', '.catch', '.finally', '});', '}\n);', ');', ';', '\naxios.', '```'];
const CHAINED: ReadonlySet<CutRule> = new Set(['.then', '.catch', '.finally']);
const KEPT: ReadonlySet<CutRule> = new Set(['});', '}\n);', ');', ';']);

export type Extraction =
  | {
      readonly status: 'ok';
      /** Offset of the first `axios.` in the text. */
      readonly start: number;
      /** Offset where the call was cut. */
      readonly cut: number;
      readonly rule: CutRule;
      /** The call alone: from `axios.` to the cut, with the cut's replacement. */
      readonly call: string;
      /** Everything before the call, the call, and the replacement: the program the default mode runs. */
      readonly program: string;
    }
  | { readonly status: 'no_request' | 'incomplete_request'; readonly message: string };

/**
 * Where the call search starts in `text`: after the setup's own starter code when the text begins
 * with it (a starter may hold calls of its own before the one the model completes), else at 0.
 */
export function searchStart(text: string, setup: Pick<Setup, 'starter' | 'callStart'> | undefined): number {
  if (!setup) return 0;
  return text.startsWith(setup.starter.slice(0, setup.callStart)) ? setup.callStart : 0;
}

export function extractInvocation(text: string, setup?: Pick<Setup, 'starter' | 'callStart'>): Extraction {
  const start = text.indexOf('axios.', searchStart(text, setup));
  if (start < 0) return { status: 'no_request', message: 'the code contains no `axios.` call' };
  const offset = start + 'axios.'.length;
  for (const rule of CUT_RULES) {
    const cut = text.indexOf(rule, offset);
    if (cut < 0) continue;
    const replacement = CHAINED.has(rule) ? ';\n' : KEPT.has(rule) ? `${rule}\n` : '';
    const call = text.slice(start, cut) + replacement;
    return { status: 'ok', start, cut, rule, call, program: text.slice(0, start) + call };
  }
  return { status: 'incomplete_request', message: 'the `axios.` call never ends (no `;`, `);`, `.then`, ... after it)' };
}

/** The reference ran only the extracted call, after an Axios import. */
export const referenceProgram = (call: string): string => `const axios = require('axios');\n${call}`;
