import fs from 'node:fs';
import path from 'node:path';
import { WapiiError } from '../api/result.js';
import { environmentKeys, keyVariables, type ApiKeyStore, type KeyProvider } from '../service/apiKeys.js';

/** The part of Electron's `safeStorage` the key store uses (injected, so it is tested without Electron). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: `basic_text` means no OS secret store, the "encryption" is a fixed password. */
  getSelectedStorageBackend?(): string;
}

/** The file in userData: each provider's key as safeStorage ciphertext, base64. Never the key itself. */
interface KeyFile {
  readonly version: 1;
  readonly keys: Partial<Record<KeyProvider, string>>;
}

function readKeyFile(file: string): KeyFile {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<KeyFile>;
    return { version: 1, keys: typeof parsed.keys === 'object' && parsed.keys !== null ? parsed.keys : {} };
  } catch {
    // Missing or unreadable: no key saved (a broken file is replaced by the next save).
    return { version: 1, keys: {} };
  }
}

/**
 * Provider keys for the Electron shell: a key entered in the app is stored encrypted with
 * safeStorage (the OS keychain, DPAPI or libsecret) in a file of its own in userData, not in the
 * database; the environment's key is used when none is saved. A saved key wins: the user typed it
 * into this app. Decrypted keys are held in memory only.
 */
export function safeStorageKeys(options: { file: string; safeStorage: SafeStorageLike; env?: NodeJS.ProcessEnv }): ApiKeyStore {
  const { file, safeStorage } = options;
  const environment = environmentKeys(options.env ?? process.env);
  const decrypted = new Map<KeyProvider, string>();
  const saved = (provider: KeyProvider): string | undefined => {
    if (decrypted.has(provider)) return decrypted.get(provider);
    const cipher = readKeyFile(file).keys[provider];
    if (!cipher || !safeStorage.isEncryptionAvailable()) return undefined;
    try {
      const key = safeStorage.decryptString(Buffer.from(cipher, 'base64'));
      decrypted.set(provider, key);
      return key;
    } catch {
      // Encrypted under another user or machine: unreadable here, as if none were saved.
      return undefined;
    }
  };
  return {
    get(provider) {
      const key = saved(provider);
      return key ? { key, source: 'saved' } : environment.get(provider);
    },
    save(provider, key) {
      const trimmed = key.trim();
      if (!trimmed) throw new WapiiError('bad_input', 'the API key is empty');
      const weak = safeStorage.getSelectedStorageBackend?.() === 'basic_text';
      if (!safeStorage.isEncryptionAvailable() || weak) {
        throw new WapiiError('bad_input', `this system offers no secret store to encrypt the key with; set ${keyVariables(provider)[0]} in the environment before starting the app instead`);
      }
      const current = readKeyFile(file);
      const next: KeyFile = { version: 1, keys: { ...current.keys, [provider]: safeStorage.encryptString(trimmed).toString('base64') } };
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // Written beside and renamed: a crash leaves the old file or the new one, never half of one.
      const temporary = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, JSON.stringify(next), { mode: 0o600 });
      fs.renameSync(temporary, file);
      decrypted.set(provider, trimmed);
    },
  };
}
