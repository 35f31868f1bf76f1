import { createHash } from 'node:crypto';
import type { RequestConfig } from '../api/schemas.js';
import { starterCode, type Setup } from './starter.js';

/**
 * The completion-mode prompt for base models: a fixed instruction (identical for every sample,
 * so a sequence evaluates it once and reuses it), the API's name, then the setup's starter code
 * (the task as a comment, the Axios import, `axios.` or `axios.<method>('<url>',`).
 */
export const PROMPT_TEMPLATE = `// JavaScript, Node.js. Each snippet below makes exactly one HTTP request with Axios:
// the request that the task comment asks for, to the web API named above it, with the
// URL, method, headers, query parameters and body that the API's OpenAPI description defines.
// Values the task does not give are left out; nothing is sent that the task does not ask for.

// API: {api}
{starter}`;

/** Identifies the template in a run's manifest: a changed template is a different experiment. */
export const PROMPT_TEMPLATE_HASH = createHash('sha256').update(PROMPT_TEMPLATE).digest('hex').slice(0, 16);

export interface CompletionPrompt {
  /** The whole prompt the model continues. */
  readonly text: string;
  /** Its last part, the starter code: prompt minus this is the shared head. */
  readonly starter: string;
}

export function completionPrompt(sample: { api: string; task: string; config: Pick<RequestConfig, 'method' | 'url'> }, setup: Setup): CompletionPrompt {
  const starter = starterCode(setup, sample.task, sample.config);
  return { text: PROMPT_TEMPLATE.replace('{api}', sample.api).replace('{starter}', starter), starter };
}

/**
 * For chat/instruct models: the instruction as a user message; the reply's code is extracted by
 * `codeFromReply`, and the starter is prepended when the reply continues it.
 */
export function chatPrompt(sample: { api: string; task: string; config: Pick<RequestConfig, 'method' | 'url'> }, setup: Setup): CompletionPrompt {
  const starter = starterCode(setup, sample.task, sample.config);
  const text = `Complete this JavaScript so that it makes the one HTTP request the task comment asks for, to the ${sample.api} API, with Axios. Reply with the whole program in one \`\`\`javascript block.\n\n\`\`\`javascript\n${starter}\n\`\`\``;
  return { text, starter };
}

/** The program in a chat reply: its first fenced block (or the whole reply), completing the starter if it does not repeat it. */
export function codeFromReply(reply: string, starter: string): string {
  const fenced = /```(?:javascript|js|typescript|ts)?[^\n]*\n([\s\S]*?)(?:```|$)/.exec(reply);
  const code = (fenced ? fenced[1]! : reply).trim();
  if (code.includes('axios.') && (code.includes('require(') || code.includes('import '))) return code;
  return starter + code;
}
