export { evaluateCode, evaluateSteps, evaluateStepsCode, stepsOf, stubsOf, type CodeEvaluation, type StepsEvaluation } from './evaluate.js';
export { scoreCodes, type CodeSample, type CodeScores, type ScoredCode } from './scoreCodes.js';
export { executeRun, failureClasses, reportOf, type RunPlan, type RunProgress, type RunReport, type RunSample } from './run.js';
export { withKnowledge } from './knowledge.js';
export { constraintRefusal, generateWithRepair, specFeedback, type RepairRound, type RepairedOutput } from './repair.js';
export { constrainerFor } from './constrainer.js';
