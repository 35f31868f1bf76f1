import { REPLY_FENCE, type CompletionPrompt } from '../api/prompt.js';

/** How the code that completes the starter was taken from a chat reply (recorded with the output). */
export type ReplyRule = 'prefill' | 'fence+starter' | 'fence+last-line' | 'reply+starter' | 'reply+last-line' | 'unaligned';

/**
 * The text that completes a chat prompt's starter code, from the model's reply. A prefilled reply
 * (the provider continued the starter) runs to its closing fence. Otherwise the code is the
 * reply's first ```javascript block (or the bare reply), and what follows the starter in it
 * (or, where the model rewrote the starter, what follows the starter's last line, `axios.` or
 * `axios.get('<url>',`) completes it; the scorer then sees starter + that, as for a base model.
 */
export function alignReply(prompt: CompletionPrompt, reply: string, prefilled: boolean): { text: string; rule: ReplyRule } {
  if (prefilled) {
    const end = reply.indexOf(`\n${REPLY_FENCE}`);
    return { text: end >= 0 ? reply.slice(0, end) : reply.startsWith(REPLY_FENCE) ? '' : reply, rule: 'prefill' };
  }
  const fenced = /```[a-zA-Z]*[^\S\n]*\n([\s\S]*?)(?:\n```|$)/.exec(reply);
  const code = fenced ? fenced[1]! : reply;
  const where = fenced ? 'fence' : 'reply';
  const starter = prompt.starter;
  const at = code.indexOf(starter);
  if (at >= 0) return { text: code.slice(at + starter.length), rule: `${where}+starter` };
  const lastLine = starter.split('\n').filter((l) => l.trim() !== '').at(-1)?.trim() ?? '';
  const line = lastLine !== '' ? code.indexOf(lastLine) : -1;
  if (line >= 0) return { text: code.slice(line + lastLine.length), rule: `${where}+last-line` };
  return { text: `\n${code}`, rule: 'unaligned' };
}
