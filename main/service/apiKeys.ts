import type { ApiKeyStatus } from '../api/synthesis.js';

export type KeyProvider = ApiKeyStatus['provider'];

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

export const KEY_VARIABLES: Record<KeyProvider, readonly string[]> = {
  gemini: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
  openai: ['OPENAI_API_KEY'],
  anthropic: ['ANTHROPIC_API_KEY'],
  // A server of your own behind auth (vLLM --api-key, llama-server --api-key, OpenRouter): sent only to the run's base URL.
  'openai-compatible': ['OPENAI_COMPATIBLE_API_KEY'],
};

export function environmentKeys(env: NodeJS.ProcessEnv = process.env): ApiKeyStore {
  return {
    get(provider) {
      for (const name of KEY_VARIABLES[provider]) {
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
