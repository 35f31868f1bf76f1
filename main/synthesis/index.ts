export { ANSWER_SCHEMA, asAxiosConfig, boundedAnswerSchema, FAILURE_KINDS, readAnswer, type AnswerFailure, type FailureKind, type ReadAnswer, type SynthesizedSample } from './answer.js';
export { batchesOf, runSynthesisJob, type Batch, type JobPlan, type JobSink, type ProviderAnswer, type SynthesisTarget } from './job.js';
export { estimateTokens, INSTRUCTIONS, specExcerpt, synthesisPrompt, type SynthesisPrompt } from './prompt.js';
export { DEFAULT_RETRY, withRetry, type RetryPolicy } from './retry.js';
export { boundedChainAnswerSchema, carriedPointer, CHAIN_ANSWER_SCHEMA, readChainAnswer } from './chainAnswer.js';
export { CHAIN_INSTRUCTIONS, chainLine, chainPrompt } from './chainPrompt.js';
export { findChains, pickChains, type Chain, type ChainOptions, type ChainParameter, type ChainRule } from './chains.js';
