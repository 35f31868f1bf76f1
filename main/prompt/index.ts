export { QUOTES, starterCode, stringLiteral, type Quote, type Setup } from './starter.js';
export { jsLiteral, oracleProgram, type CallStyle } from './oracle.js';
export { chatPrompt, codeFromReply, completionPrompt, PROMPT_TEMPLATE, PROMPT_TEMPLATE_HASH, type CompletionPrompt } from './template.js';
