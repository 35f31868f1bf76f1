import { createHash } from 'node:crypto';
import type { RequestConfig } from '../api/schemas.js';
import { REPLY_FENCE, type CompletionPrompt } from '../api/prompt.js';
import type { CompletionMode, PromptStyle, Setup } from '../api/setup.js';
import { withMessages } from './repair.js';
import { setupFor, type SetupSample } from './setup.js';

export { REPLY_FENCE, type CompletionPrompt, type RepairTurn } from '../api/prompt.js';

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

/**
 * The user's message for chat models on a sample with its own starter code: upstream's context
 * prompt (WAPIIBench `resources/code_generation_with_context_prompt.md`, Apache-2.0, used by its
 * real-world `validation.py`), verbatim, with `{spec}` empty unless a knowledge condition fills it
 * and the instruct models' " without any explanations". The code block is left open, as upstream
 * leaves it.
 */
export const CONTEXT_CHAT_TEMPLATE = `{spec}You are an AI programming assistant that helps users write API requests. You are given a comment that describes what the user wants to achieve and are supposed to implement it using the Axios library in JavaScript. For this, write a single call to Axios (using the syntax \`axios.<method>(url[, config])\`) that does exactly what was described in the comment.

* Make sure to include all parameters in \`config\` that are required to solve the given task, but do not include any unnecessary parameters.
* If a request body requires a media type other than \`text/json\`, explicitly set the \`Content-Type\` header to the respective type, and Axios will automatically serialize the request body accordingly.
* Always use HTTPS.

Your next task is about the {api} API. Complete the following code snippet{extra_instructions}:

\`\`\`javascript
{starter_code}`;

/** Identifies the templates in a run's manifest: a changed template is a different experiment. */
export const PROMPT_TEMPLATE_HASH = createHash('sha256').update(PROMPT_TEMPLATE).update('\0').update(CHAT_TEMPLATE).digest('hex').slice(0, 16);

/** A sample as a prompt needs it; `knowledge` holds the lines of its knowledge condition (knowledge.ts), if any. */
export interface PromptSample extends SetupSample {
  readonly api: string;
  readonly task: string;
  readonly config: Pick<RequestConfig, 'method' | 'url'>;
  readonly knowledge?: readonly string[];
}

/** A completion mode stands for the sample's own setup in that mode (the fixed starter where it has none). */
const resolve = (sample: PromptSample, setup: Setup | CompletionMode, style: PromptStyle): Setup => (typeof setup === 'string' ? setupFor(sample, setup, { style }) : setup);

export function completionPrompt(sample: PromptSample, setupOrMode: Setup | CompletionMode): CompletionPrompt {
  const setup = resolve(sample, setupOrMode, 'completion');
  const { starter } = setup;
  // Knowledge goes between the API line and the starter, as comments: the shared head stays first.
  const knowledge = sample.knowledge?.length ? sample.knowledge.map((l) => `// ${l}`.trimEnd()).join('\n') + '\n\n' : '';
  return withMessages({ setup, text: PROMPT_TEMPLATE.replace('{api}', () => sample.api).replace('{starter}', () => knowledge + starter), starter });
}

function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  if (at < 0) throw new Error('bug: the chat template has no code block');
  return [text.slice(0, at), text.slice(at)];
}

/**
 * For chat/instruct models: the instruction as the user's message, and the reply opened with a
 * code fence and the starter code. What the model writes up to the closing fence completes it.
 */
export function chatPrompt(sample: PromptSample, setupOrMode: Setup | CompletionMode): CompletionPrompt {
  const setup = resolve(sample, setupOrMode, 'chat');
  const { starter } = setup;
  const replyPrefix = `${REPLY_FENCE}javascript\n${starter}`;
  if (setup.origin === 'sample') {
    const spec = sample.knowledge?.length ? `From the API's description:\n${sample.knowledge.join('\n')}\n\n` : '';
    const text = CONTEXT_CHAT_TEMPLATE.replace('{spec}', () => spec)
      .replace('{api}', () => sample.api)
      .replace('{extra_instructions}', () => ' without any explanations')
      .replace('{starter_code}', () => starter);
    return withMessages({ setup, text, starter, replyPrefix });
  }
  // Knowledge follows the instruction, before the code block; the template (and its hash) stay as they were.
  const knowledge = sample.knowledge?.length ? `\n\nFrom the API's description:\n${sample.knowledge.join('\n')}` : '';
  const [instruction, code] = splitOnce(CHAT_TEMPLATE, '\n\n```javascript\n');
  const text = (instruction + knowledge + code).replace('{api}', () => sample.api).replace('{starter}', () => starter);
  return withMessages({ setup, text, starter, replyPrefix });
}

export type { PromptStyle };

export const promptFor = (style: PromptStyle): typeof completionPrompt => (style === 'chat' ? chatPrompt : completionPrompt);
