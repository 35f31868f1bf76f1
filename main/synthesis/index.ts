export { ANSWER_SCHEMA, asAxiosConfig, boundedAnswerSchema, FAILURE_KINDS, readAnswer, type AnswerFailure, type FailureKind, type ReadAnswer, type SynthesizedSample } from './answer.js';
export { batchesOf, runSynthesisJob, type Batch, type JobPlan, type JobSink, type ProviderAnswer, type SynthesisTarget } from './job.js';
export { estimateTokens, INSTRUCTIONS, specExcerpt, synthesisPrompt, type SynthesisPrompt } from './prompt.js';
export { DEFAULT_RETRY, withRetry, type RetryPolicy } from './retry.js';
