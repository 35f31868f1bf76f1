import { REPLY_FENCE, type CompletionPrompt, type PromptMessage, type RepairTurn } from '../api/prompt.js';

/** The user's follow-up in a chat: the checker's findings, then the ask for a corrected program. */
export function repairMessage(feedback: readonly string[]): string {
  return [
    "Checked against the API's OpenAPI description, that program has these problems:",
    ...feedback.map((line) => `- ${line}`),
    'Fix them and reply with the whole corrected program in one ```javascript block.',
  ].join('\n');
}

/**
 * The prompt of a repair round. Chat models get the conversation: the first message, then each
 * earlier reply and the checker's follow-up as turns (CompletionPrompt.followUps), the reply opened
 * with the starter again. Base models continue text, so the earlier programs and findings go
 * before the starter as comments: the starter stays last and the completion still continues it.
 */
export function repairPrompt(prompt: CompletionPrompt, turns: readonly RepairTurn[]): CompletionPrompt {
  if (turns.length === 0) return prompt;
  if (prompt.replyPrefix !== undefined) return withMessages({ ...prompt, followUps: turns });
  const at = prompt.text.lastIndexOf(prompt.starter);
  if (at < 0) throw new Error('bug: a completion prompt ends with its starter');
  const comments = turns
    .map((turn, i) =>
      [
        `// Attempt ${i + 1}, rejected:`,
        ...turn.code.split('\n').map((line) => `//   ${line}`.trimEnd()),
        "// Problems found against the API's description:",
        ...turn.feedback.map((line) => `// - ${line.replace(/\n/g, ' ')}`),
        '',
      ].join('\n'),
    )
    .join('\n');
  return withMessages({ ...prompt, text: `${prompt.text.slice(0, at)}${comments}\n// Corrected attempt:\n${prompt.text.slice(at)}` });
}

/** The conversation of a chat prompt: its message, then (repair setting) each earlier program and the checker's follow-up. */
export const chatMessages = (prompt: Pick<CompletionPrompt, 'text' | 'followUps'>): PromptMessage[] => [
  { role: 'user', content: prompt.text },
  ...(prompt.followUps ?? []).flatMap((turn) => [
    { role: 'assistant' as const, content: `${REPLY_FENCE}javascript\n${turn.code}\n${REPLY_FENCE}` },
    { role: 'user' as const, content: repairMessage(turn.feedback) },
  ]),
];

/** A prompt with the conversation a chat model is sent (CompletionPrompt.messages): built wherever a prompt is, from its text and follow-ups. */
export const withMessages = (prompt: Omit<CompletionPrompt, 'messages'>): CompletionPrompt => ({ ...prompt, messages: chatMessages(prompt) });
