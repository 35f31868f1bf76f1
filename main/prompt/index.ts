export { QUOTES, stringLiteral, taskComment, type Quote } from './starter.js';
export { fixedStarter, setupFor, setupSampleOf, type SetupOptions, type SetupSample } from './setup.js';
export type { CompletionMode, HttpClient, Setup, StarterOrigin } from '../api/setup.js';
export { jsLiteral, oracleProgram, type CallStyle } from './oracle.js';
export { fetchOracleProgram, queryOf } from './fetchOracle.js';
export { chatPrompt, completionPrompt, CONTEXT_CHAT_TEMPLATE, promptFor, PROMPT_TEMPLATE, PROMPT_TEMPLATE_HASH, REPLY_FENCE, type CompletionPrompt, type PromptStyle, type RepairTurn } from './template.js';
export { endpointLine, exampleRequestLines, knowledgeLines, KNOWLEDGE_PARTS, NO_KNOWLEDGE, parseKnowledge, parseKnowledgeList, type KnowledgeCondition, type KnowledgeFacts, type KnowledgePart } from './knowledge.js';
export type { PromptSample } from './template.js';
export { chatMessages, repairMessage, repairPrompt } from './repair.js';
