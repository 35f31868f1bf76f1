import type { ApiKeyStatus } from '../api/synthesis.js';
import { PROVIDERS, PROVIDER_NAMES, type ProviderName } from '../providers/registry.js';

/** A provider that takes a key (its registry entry names variables for it). */
export type KeyProvider = ProviderName;

/**
 * Where provider keys come from. The CLI and `wapii serve` read the environment; Electron adds
 * keys saved encrypted with safeStorage (main/app). A key is handed to the provider that calls
 * with it and to nothing else: never stored in the database, logged or returned.
 */
export interface ApiKeyStore {
  get(provider: KeyProvider): { readonly key: string; readonly source: 'environment' | 'saved' } | undefined;
  /** Absent where keys cannot be saved (the CLI, serve): they come from the environment there. */
  save?(provider: KeyProvider, key: string): void;
}

/** The providers whose keys the workbench keeps, in the registry's order. */
export const KEY_PROVIDERS: readonly KeyProvider[] = PROVIDER_NAMES.filter((name) => PROVIDERS[name].keyVariables.length > 0);

export const keyVariables = (provider: KeyProvider): readonly string[] => PROVIDERS[provider].keyVariables;

export function environmentKeys(env: NodeJS.ProcessEnv = process.env): ApiKeyStore {
  return {
    get(provider) {
      for (const name of keyVariables(provider)) {
        const key = env[name]?.trim();
        if (key) return { key, source: 'environment' };
      }
      return undefined;
    },
  };
}

export function keyStatus(keys: ApiKeyStore, provider: KeyProvider): ApiKeyStatus {
  const found = keys.get(provider);
  return { provider, set: found !== undefined, source: found?.source ?? 'none' };
}
