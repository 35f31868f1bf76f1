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

/** The user's message for chat models; the starter code follows it in a code block. (Filled with replacer functions: a task may contain `$&`.) */
export const CHAT_TEMPLATE = `Complete this JavaScript (Node.js) so that it makes the one HTTP request the task comment asks for, to the {api} API, with Axios: the URL, method, headers, query parameters and body its OpenAPI description defines, and nothing the task does not ask for. Reply with the program in one \`\`\`javascript block.

\`\`\`javascript
{starter}
\`\`\``;

/** Identifies the templates in a run's manifest: a changed template is a different experiment. */
export const PROMPT_TEMPLATE_HASH = createHash('sha256').update(PROMPT_TEMPLATE).update('\0').update(CHAT_TEMPLATE).digest('hex').slice(0, 16);

export interface CompletionPrompt {
  /** Completion mode: the whole prompt the model continues. Chat mode: the user's message. */
  readonly text: string;
  /** The starter code the model continues; the code scored is starter + what the model wrote. */
  readonly starter: string;
  /**
   * Chat mode only: the start of the model's own reply (a code fence and the starter), so a chat
   * model continues the starter inside its reply, in the same two setups as a base model.
   */
  readonly replyPrefix?: string;
}

/** A sample as a prompt needs it; `knowledge` holds the lines of its knowledge condition (knowledge.ts), if any. */
export interface PromptSample {
  readonly api: string;
  readonly task: string;
  readonly config: Pick<RequestConfig, 'method' | 'url'>;
  readonly knowledge?: readonly string[];
}

export function completionPrompt(sample: PromptSample, setup: Setup): CompletionPrompt {
  const starter = starterCode(setup, sample.task, sample.config);
  // Knowledge goes between the API line and the starter, as comments: the shared head stays first.
  const knowledge = sample.knowledge?.length ? sample.knowledge.map((l) => `// ${l}`.trimEnd()).join('\n') + '\n\n' : '';
  return { text: PROMPT_TEMPLATE.replace('{api}', () => sample.api).replace('{starter}', () => knowledge + starter), starter };
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  if (at < 0) throw new Error('bug: the chat template has no code block');
  return [text.slice(0, at), text.slice(at)];
}

/** Where a chat reply's code block ends. */
export const REPLY_FENCE = '```';

/**
 * For chat/instruct models: the instruction as the user's message, and the reply opened with a
 * code fence and the starter code. What the model writes up to the closing fence completes it.
 */
export function chatPrompt(sample: PromptSample, setup: Setup): CompletionPrompt {
  const starter = starterCode(setup, sample.task, sample.config);
  // Knowledge follows the instruction, before the code block; the template (and its hash) stay as they were.
  const knowledge = sample.knowledge?.length ? `\n\nFrom the API's description:\n${sample.knowledge.join('\n')}` : '';
  const [instruction, code] = splitOnce(CHAT_TEMPLATE, '\n\n```javascript\n');
  const text = (instruction + knowledge + code).replace('{api}', () => sample.api).replace('{starter}', () => starter);
  return { text, starter, replyPrefix: `${REPLY_FENCE}javascript\n${starter}` };
}

export type PromptStyle = 'completion' | 'chat';

export const promptFor = (style: PromptStyle): typeof completionPrompt => (style === 'chat' ? chatPrompt : completionPrompt);
