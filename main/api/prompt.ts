import type { Setup } from './setup.js';

/**
 * What a model is asked, as the prompt stage builds it (main/prompt: promptFor, repairPrompt) and
 * generation sends it: here, beside the Setup it carries, so generation reads the prompt without
 * importing the stage that writes it.
 */

/**
 * One earlier round of the repair setting: the program the model wrote (starter + its completion)
 * and what the spec checker said about it. The feedback is built from the API's description and
 * the program alone, never from the expected request (main/runner/repair.ts).
 */
export interface RepairTurn {
  readonly code: string;
  readonly feedback: readonly string[];
}

/** One message of a chat prompt's conversation. */
export interface PromptMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

export interface CompletionPrompt {
  /** The sample's setup: the starter, where the call starts, names and definitions in scope, client. */
  readonly setup: Setup;
  /** Completion mode: the whole prompt the model continues. Chat mode: the user's message. */
  readonly text: string;
  /** The starter code the model continues; the code scored is starter + what the model wrote. */
  readonly starter: string;
  /**
   * Chat mode only: the start of the model's own reply (a code fence and the starter), so a chat
   * model continues the starter inside its reply, in the same two setups as a base model.
   */
  readonly replyPrefix?: string;
  /**
   * Chat mode, repair setting only: the earlier rounds of this sample, each the model's program and
   * the spec checker's findings, sent as the conversation's later turns (see repair.ts).
   */
  readonly followUps?: readonly RepairTurn[];
  /**
   * The conversation a chat model is sent: `text` as the user's message, then (repair setting)
   * each earlier program and the checker's follow-up. Filled by the prompt stage wherever it
   * builds a prompt (main/prompt/repair.ts: chatMessages), so every backend sends the same turns.
   */
  readonly messages: readonly PromptMessage[];
}

/** Where a chat reply's code block ends (and begins: the reply is opened with it and `javascript`). */
export const REPLY_FENCE = '```';
