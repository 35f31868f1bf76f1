/**
 * The contract's method names, free of zod so the preload script can list them without bundling
 * the schemas. `contract.ts` checks at compile time that both lists agree.
 */
export const METHOD_NAMES = [
  'listDatasets',
  'importDataset',
  'exportDataset',
  'recheckDataset',
  'listSamples',
  'getSample',
  'editSample',
  'undoEdit',
] as const;
export type MethodName = (typeof METHOD_NAMES)[number];

/** How a call's outcome crosses a transport (IPC or HTTP): never a raw exception. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

export const IPC_CHANNEL_PREFIX = 'wapii:';
export const IPC_EVENT_CHANNEL = 'wapii:event';
