export { evaluateCode, type CodeEvaluation } from './evaluate.js';
export { scoreCodes, type CodeSample, type CodeScores, type ScoredCode } from './scoreCodes.js';
