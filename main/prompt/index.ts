export { QUOTES, starterCode, stringLiteral, type Quote, type Setup } from './starter.js';
export { jsLiteral, oracleProgram, type CallStyle } from './oracle.js';
export { chatPrompt, completionPrompt, promptFor, PROMPT_TEMPLATE, PROMPT_TEMPLATE_HASH, REPLY_FENCE, type CompletionPrompt, type PromptStyle } from './template.js';
export { endpointLine, exampleRequestLines, knowledgeLines, KNOWLEDGE_PARTS, NO_KNOWLEDGE, parseKnowledge, parseKnowledgeList, type KnowledgeCondition, type KnowledgeFacts, type KnowledgePart } from './knowledge.js';
export type { PromptSample } from './template.js';
