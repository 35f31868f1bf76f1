import type { HttpClient } from './clients.js';
import type { JsonValue } from './schemas.js';

/**
 * The paper's two completion modes: the model continues after `axios.` (full completion: it
 * writes the method, URL and arguments), or after `axios.<method>(<url>` (argument completion:
 * it writes the arguments only).
 */
export type CompletionMode = 'full' | 'argument';
export const COMPLETION_MODES: readonly CompletionMode[] = ['full', 'argument'];

/** How the model is asked: a base model continues a prompt; a chat model answers a user's message. */
export type PromptStyle = 'completion' | 'chat';

export type { HttpClient } from './clients.js';

/**
 * Where the starter code comes from: the benchmark's fixed starter (task comment, Axios import,
 * the call opened), or the sample's own `starter_code` (the real-world dataset: a repository's
 * file up to the call, with the sample's `definitions` in scope).
 */
export type StarterOrigin = 'fixed' | 'sample';

/**
 * Setup: one sample as the model is given it and as its text is read back. Built once per sample
 * by `setupFor` (main/prompt), then handed by the runner to every stage that needs it, so
 * that the prompt, the extraction, the execution and the constraints agree on one starter instead
 * of each assuming the fixed one:
 *
 * - prompt/ writes `starter` into the prompt (completion text, or a chat message);
 * - execution/extract.ts looks for the call from `callStart` on, cuts it, and where the text before
 *   the cut does not parse as a program (or for a sample's own starter, always) runs it alone after
 *   `callPrelude`;
 * - constraints/ start at `callStart` (the starter's own code before it is context, not checked)
 *   and take as names in scope `Object.keys(definitions)` plus the names a JavaScript parser sees
 *   declared in `starter.slice(0, callStart)` (function parameters, `const x = 1` without `;`);
 * - generation/ and the providers read `style` and `client`.
 *
 * Everything here is plain data (JSON-serialisable), so a run's manifest and the inspector can
 * show it and a stage can be tested with a literal.
 */
export interface Setup {
  readonly mode: CompletionMode;
  readonly style: PromptStyle;
  readonly client: HttpClient;
  readonly origin: StarterOrigin;
  /**
   * The code the model continues, with the task filled in: the text the scored program starts
   * with (program = starter + what the model wrote). Ends where the model writes: after `axios.`
   * (full) or after `axios.<method>('<url>',` (argument; a sample's own starter with a
   * `template_url` gets it in backticks), or the `fetch(` equivalents.
   */
  readonly starter: string;
  /**
   * Offset in `starter` (and so in the program) where the call the model completes begins: the
   * `axios.` (or `fetch(`) the starter ends with. The text before it is the starter's own code:
   * extraction looks for the first call from here on (a starter may hold earlier calls of its own),
   * and the constraints start checking here.
   */
  readonly callStart: number;
  /**
   * The variables the sample says are in scope at the call, with their JSON values (the real-world
   * dataset's `definitions`; `{}` for the fixed starter). Run as `const <name> = <json>;` before a
   * call run alone, and names a constrained value may reference.
   */
  readonly definitions: Readonly<Record<string, JsonValue>>;
  /**
   * What a call run alone runs after: the starter's imports of modules the sandbox offers (the
   * client's import at least: `const axios = require('axios');`), then the definitions. For the
   * fixed starter this is the reference's own prelude, the Axios import.
   */
  readonly callPrelude: string;
  /**
   * A multi-step sample's (scoring.md §7): how many requests its task needs, where the model's
   * text ends (`stop`, the line that closes what the starter opened) and what the runner appends
   * to close the program. Its program runs whole (no cut); generation goes on past the first call,
   * the constraints holding every call it writes; its prompt states the task only.
   */
  readonly steps?: { readonly count: number; readonly stop: string; readonly closing: string };
}
