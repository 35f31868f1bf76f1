import { unwrap } from '../../main/api/result.js';
import { readFileInput, readSpecDir } from '../../main/cli/files.js';
import type { SampleDraft } from '../../main/dataset/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { prepareDataset } from '../../main/service/index.js';
import { WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from './paths.js';

/** The 395 WAPIIBench samples (all.json, in file order) and their four specs, by API. */
export async function loadWapiiBench(): Promise<{ samples: SampleDraft[]; specs: Map<string, ApiSpec> }> {
  const prepared = unwrap(await prepareDataset(unwrap(readFileInput(WAPIIBENCH_ALL)), unwrap(readSpecDir(WAPIIBENCH_SPECS))));
  return { samples: [...prepared.samples], specs: new Map([...prepared.specs].map(([api, p]) => [api, p.spec])) };
}
