import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/paths.js';
import { keyStatus } from '../service/apiKeys.js';
import { safeStorageKeys, type SafeStorageLike } from './keyStore.js';

const KEY = 'AIzaSyFakeSafeStorageKey-0123456789';

/** A stand-in for safeStorage: reversible, but nothing like the plain text (XOR with a secret byte, then reversed). */
function fakeSafeStorage(options: { available?: boolean; backend?: string } = {}): SafeStorageLike & { calls: number } {
  const fake = {
    calls: 0,
    isEncryptionAvailable: () => options.available ?? true,
    encryptString: (text: string) => {
      fake.calls++;
      return Buffer.from(Buffer.from(text, 'utf8').map((b) => b ^ 0x5a)).reverse();
    },
    decryptString: (cipher: Buffer) => {
      fake.calls++;
      return Buffer.from(Buffer.from(cipher).reverse().map((b) => b ^ 0x5a)).toString('utf8');
    },
    ...(options.backend ? { getSelectedStorageBackend: () => options.backend! } : {}),
  };
  return fake;
}

describe('the Electron key store (safeStorage)', () => {
  it('stores a saved key encrypted in its file, never in plain text, and reads it back in a new process', () => {
    const file = path.join(tempDir('wapii-keys-'), 'userData', 'api-keys.json');
    const safeStorage = fakeSafeStorage();
    const store = safeStorageKeys({ file, safeStorage, env: {} });
    expect(keyStatus(store, 'gemini')).toEqual({ provider: 'gemini', set: false, source: 'none' });
    store.save!('gemini', `  ${KEY}\n`);
    expect(keyStatus(store, 'gemini')).toEqual({ provider: 'gemini', set: true, source: 'saved' });
    const bytes = fs.readFileSync(file);
    expect(bytes.includes(KEY)).toBe(false);
    expect(bytes.includes(Buffer.from(KEY).toString('base64'))).toBe(false);
    expect(fs.statSync(file).mode & 0o077).toBe(0);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['api-keys.json']);
    // A fresh store (the next start of the app) decrypts it.
    const again = safeStorageKeys({ file, safeStorage: fakeSafeStorage(), env: {} });
    expect(again.get('gemini')).toEqual({ key: KEY, source: 'saved' });
    expect(again.get('openai')).toBeUndefined();
  });

  it('falls back to the environment; a saved key wins over it', () => {
    const file = path.join(tempDir('wapii-keys-'), 'api-keys.json');
    const store = safeStorageKeys({ file, safeStorage: fakeSafeStorage(), env: { GEMINI_API_KEY: 'from-env', OPENAI_API_KEY: 'sk-env' } });
    expect(store.get('gemini')).toEqual({ key: 'from-env', source: 'environment' });
    store.save!('gemini', KEY);
    expect(store.get('gemini')).toEqual({ key: KEY, source: 'saved' });
    expect(store.get('openai')).toEqual({ key: 'sk-env', source: 'environment' });
  });

  it('refuses to save where there is no secret store (no encryption, or Linux basic_text), and writes nothing', () => {
    for (const safeStorage of [fakeSafeStorage({ available: false }), fakeSafeStorage({ backend: 'basic_text' })]) {
      const dir = tempDir('wapii-keys-');
      const store = safeStorageKeys({ file: path.join(dir, 'api-keys.json'), safeStorage, env: {} });
      expect(() => store.save!('gemini', KEY)).toThrow(/no secret store .* set GEMINI_API_KEY/);
      expect(fs.readdirSync(dir)).toEqual([]);
    }
  });

  it('a file it cannot decrypt or parse reads as no key saved', () => {
    const dir = tempDir('wapii-keys-');
    const file = path.join(dir, 'api-keys.json');
    fs.writeFileSync(file, JSON.stringify({ version: 1, keys: { gemini: 'AAAA' } }));
    const broken: SafeStorageLike = { ...fakeSafeStorage(), decryptString: () => { throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.'); } };
    expect(safeStorageKeys({ file, safeStorage: broken, env: {} }).get('gemini')).toBeUndefined();
    fs.writeFileSync(file, '{not json');
    const store = safeStorageKeys({ file, safeStorage: fakeSafeStorage(), env: {} });
    expect(store.get('gemini')).toBeUndefined();
    store.save!('openai', 'sk-test');
    expect(safeStorageKeys({ file, safeStorage: fakeSafeStorage(), env: {} }).get('openai')).toEqual({ key: 'sk-test', source: 'saved' });
  });
});

describe('saveApiKey through the service with the safeStorage store', () => {
  it('the key is in no response, no event, and not in the database or key file', async () => {
    const { localClient, openWorkbench } = await import('../service/index.js');
    const dir = tempDir('wapii-keys-service-');
    const file = path.join(dir, 'userData', 'api-keys.json');
    const seen: unknown[] = [];
    {
      using wb = openWorkbench({ db: path.join(dir, 'wapii.db'), apiKeys: safeStorageKeys({ file, safeStorage: fakeSafeStorage(), env: {} }) });
      wb.service.onEvent((e) => seen.push(e));
      const client = localClient(wb.service);
      seen.push(await client.saveApiKey({ provider: 'gemini', key: KEY }));
      seen.push(await client.getApiKeyStatus({}));
      expect(seen.at(-1)).toEqual([
        { provider: 'openai', set: false, source: 'none' },
        { provider: 'anthropic', set: false, source: 'none' },
        { provider: 'gemini', set: true, source: 'saved' },
        { provider: 'openai-compatible', set: false, source: 'none' },
      ]);
    }
    expect(JSON.stringify(seen)).not.toContain(KEY);
    for (const f of [...fs.readdirSync(dir).map((n) => path.join(dir, n)), file]) if (fs.statSync(f).isFile()) expect(fs.readFileSync(f).includes(KEY), f).toBe(false);
  });
});
