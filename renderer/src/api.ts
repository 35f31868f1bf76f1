import type { Input, Output, WorkbenchEvent } from '../../main/api/contract.js';

/**
 * The evaluation types the pages use, read off the contract's method signatures (the renderer
 * imports only the contract's types, never the engine).
 */
export type Model = Output<'listModels'>[number];
export type Download = Output<'listDownloads'>[number];
export type RunSummary = Output<'listRuns'>[number];
export type RunDetail = Output<'getRun'>;
export type RunStatus = RunSummary['status'];
export type Statistics = NonNullable<RunDetail['statistics']>;
export type RunSampleRow = Output<'listRunSamples'>['rows'][number];
export type RunSampleDetail = Output<'getRunSample'>;
export type RunSampleFilter = NonNullable<Input<'listRunSamples'>['filter']>;
export type RunSampleSort = NonNullable<Input<'listRunSamples'>['sort']>;
export type StartRunInput = Input<'startRun'>;
export type CompareResult = Output<'compareRuns'>;
export type ExportFormat = Input<'exportRun'>['format'];
export type SampleVerdict = NonNullable<RunSampleRow['sample_verdict']>;
export type ErrorVerdict = NonNullable<RunSampleRow['error_verdict']>;
export type PartVerdict = NonNullable<RunSampleRow['endpoint_verdict']>;
export type ArgumentVerdict = RunSampleDetail['arguments'][number]['verdict'];
export type Intervention = NonNullable<RunSampleDetail['generation']>['interventions'][number];
export type RunProgressEvent = Extract<WorkbenchEvent, { type: 'runProgress' }>;
export type DownloadProgressEvent = Extract<WorkbenchEvent, { type: 'downloadProgress' }>;

// The lists below are typed against the contract, so a renamed verdict fails the typecheck.
export const SAMPLE_VERDICTS: readonly SampleVerdict[] = ['correct', 'wrong', 'illegal', 'nonexecutable'];
export const ERROR_VERDICTS: readonly ErrorVerdict[] = ['timeout', 'unsatisfiable', 'no_request', 'incomplete_request', 'runtime_error'];
export const PART_VERDICTS: readonly PartVerdict[] = ['correct', 'wrong', 'illegal'];
export const ARGUMENT_VERDICTS: readonly ArgumentVerdict[] = ['correct', 'incorrect_value', 'missing', 'unnecessary', 'illegal'];
export const ARGUMENT_LOCATIONS = ['headers', 'params', 'path_params', 'data'] as const;
export const LOCATION_LABELS: Record<string, string> = { headers: 'headers', params: 'query', path_params: 'path', data: 'body', all: 'all' };

/** The paper's headline table, as main/scoring and `wapii report` use it. */
export { HEADLINE, LOCATION_ROWS } from '../../main/api/constants.js';


export function statistic(stats: Statistics | null | undefined, key: string, location = 'all'): number {
  const v = stats?.[key];
  return typeof v === 'number' ? v : (v?.[location] ?? 0);
}
