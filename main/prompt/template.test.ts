import { describe, expect, it } from 'vitest';
import { chatPrompt, completionPrompt, PROMPT_TEMPLATE_HASH } from './index.js';

const sample = { api: 'slack', task: "Post 'costs $& more' to #general", config: { method: 'post', url: 'https://slack.com/api/chat.postMessage' } } as const;

describe('prompt templates', () => {
  it('completion: the fixed head, the API, then the starter code the model continues', () => {
    const full = completionPrompt(sample, 'full');
    expect(full.text.endsWith(full.starter)).toBe(true);
    expect(full.starter.endsWith('axios.')).toBe(true);
    expect(full.text).toContain('// API: slack\n');
    const argument = completionPrompt(sample, 'argument');
    expect(argument.starter.endsWith("axios.post('https://slack.com/api/chat.postMessage',")).toBe(true);
    // Two samples share everything before the API line: the head a sequence evaluates once.
    const other = completionPrompt({ ...sample, api: 'asana', task: 'x' }, 'full');
    const head = full.text.slice(0, full.text.indexOf('// API:'));
    expect(other.text.startsWith(head)).toBe(true);
    expect(full.replyPrefix).toBeUndefined();
  });

  it('chat: the task as a message, the reply opened with a fence and the starter', () => {
    const chat = chatPrompt(sample, 'full');
    expect(chat.text).toContain('to the slack API');
    expect(chat.text).toContain('```javascript\n' + chat.starter + '\n```');
    expect(chat.replyPrefix).toBe('```javascript\n' + chat.starter);
  });

  it('keeps replacement patterns in a task as written', () => {
    expect(completionPrompt(sample, 'full').text).toContain("costs $& more");
    expect(chatPrompt(sample, 'full').text).toContain("costs $& more");
    expect(PROMPT_TEMPLATE_HASH).toMatch(/^[0-9a-f]{16}$/);
  });
});
