export { ANSWER_SCHEMA, asAxiosConfig, boundedAnswerSchema, FAILURE_KINDS, readAnswer, type AnswerFailure, type FailureKind, type ReadAnswer, type SynthesizedSample } from './answer.js';
export { DEFAULT_GEMINI_MODEL, geminiProvider, type GeminiOptions } from './gemini.js';
export { batchesOf, runSynthesisJob, type Batch, type JobPlan, type JobSink, type SynthesisTarget } from './job.js';
export { localProvider, type LocalSynthesisOptions } from './local.js';
export { openAiProvider, type OpenAiOptions } from './openai.js';
export { estimateCost } from './pricing.js';
export { estimateTokens, INSTRUCTIONS, specExcerpt, synthesisPrompt, type SynthesisPrompt } from './prompt.js';
export { isRetryableStatus, parseRetryAfter, PROVIDERS, ProviderError, type FinishKind, type ProviderAnswer, type ProviderName, type SynthesisProvider, type SynthesisRequest, type TokenUsage } from './provider.js';
export { DEFAULT_RETRY, withRetry, type RetryPolicy } from './retry.js';
