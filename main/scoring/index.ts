export { compareRequest, expectedOnly } from './compare.js';
export { computeStatistics, headlineValue, statisticsPerApi, HEADLINE, sampleMetrics, type LocationCounts, type SampleMetrics, type Statistics } from './statistics.js';
export type { ArgumentResult, ArgumentResults, ArgumentVerdict, CompatMode, ErrorVerdict, PartVerdict, SampleVerdict, StepCounts, StepResult, Verdict } from './verdicts.js';
export { classifyFailure, countFailures, FAILURE_CLASSES, type ExecutionFailure, type FailureClass, type FailureCounts } from './taxonomy.js';
export { failedWithoutSolvedWith, type RunVerdicts } from './subsets.js';
export { conditionRows, type ConditionRow, type ConditionRun } from './conditions.js';
export { BOOTSTRAP, meanMetricIntervals, mulberry32, passAtK, passAtKOf, proportionIntervals, proportionsOf, uncertaintyOf, wilson, type Interval, type Proportion, type Uncertainty } from './intervals.js';
export { ALPHA, mcnemarExact, PAIRED_OUTCOMES, PAIRED_STATISTIC, pairedComparison, pairedTest, type PairedOutcome, type PairedTest } from './paired.js';
export { carriedValues, READ_METHODS, scoreSteps, type CarriedValue, type Step, type StepsVerdict } from './steps.js';
