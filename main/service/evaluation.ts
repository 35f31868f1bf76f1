import type { Output, Parsed } from '../api/contract.js';
import { WapiiError } from '../api/result.js';

/** The evaluation methods of the contract (models, runs, results), as the service implements them. */
export type EvaluationMethod =
  | 'listModels'
  | 'addModel'
  | 'scanModels'
  | 'removeModel'
  | 'downloadModel'
  | 'cancelDownload'
  | 'listDownloads'
  | 'previewRun'
  | 'startRun'
  | 'cancelRun'
  | 'resumeRun'
  | 'listRuns'
  | 'getRun'
  | 'deleteRun'
  | 'listRunSamples'
  | 'getRunSample'
  | 'compareRuns'
  | 'overrideVerdict'
  | 'exportRun';

export type EvaluationHandlers = { [M in EvaluationMethod]: (input: Parsed<M>) => Promise<Output<M>> };

const notYet = (method: string): never => {
  throw new WapiiError('internal', `${method} is not implemented yet in this build`);
};

/** Placeholder until each piece lands; every method answers one clear line. */
export class EvaluationService implements EvaluationHandlers {
  listModels = async (): Promise<Output<'listModels'>> => notYet('listModels');
  addModel = async (): Promise<Output<'addModel'>> => notYet('addModel');
  scanModels = async (): Promise<Output<'scanModels'>> => notYet('scanModels');
  removeModel = async (): Promise<Output<'removeModel'>> => notYet('removeModel');
  downloadModel = async (): Promise<Output<'downloadModel'>> => notYet('downloadModel');
  cancelDownload = async (): Promise<Output<'cancelDownload'>> => notYet('cancelDownload');
  listDownloads = async (): Promise<Output<'listDownloads'>> => notYet('listDownloads');
  previewRun = async (): Promise<Output<'previewRun'>> => notYet('previewRun');
  startRun = async (): Promise<Output<'startRun'>> => notYet('startRun');
  cancelRun = async (): Promise<Output<'cancelRun'>> => notYet('cancelRun');
  resumeRun = async (): Promise<Output<'resumeRun'>> => notYet('resumeRun');
  listRuns = async (): Promise<Output<'listRuns'>> => notYet('listRuns');
  getRun = async (): Promise<Output<'getRun'>> => notYet('getRun');
  deleteRun = async (): Promise<Output<'deleteRun'>> => notYet('deleteRun');
  listRunSamples = async (): Promise<Output<'listRunSamples'>> => notYet('listRunSamples');
  getRunSample = async (): Promise<Output<'getRunSample'>> => notYet('getRunSample');
  compareRuns = async (): Promise<Output<'compareRuns'>> => notYet('compareRuns');
  overrideVerdict = async (): Promise<Output<'overrideVerdict'>> => notYet('overrideVerdict');
  exportRun = async (): Promise<Output<'exportRun'>> => notYet('exportRun');
}
