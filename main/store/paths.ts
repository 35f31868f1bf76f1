import os from 'node:os';
import path from 'node:path';

const APP_DIR = 'wapii-workbench';

/**
 * The user's data directory, by platform convention. The Electron shell and the CLI share it so
 * both see the same database. Written here rather than via a library because it is three cases.
 */
export function userDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return path.join(env['APPDATA'] ?? path.join(os.homedir(), 'AppData', 'Roaming'), APP_DIR);
  if (platform === 'darwin') return path.join(os.homedir(), 'Library', 'Application Support', APP_DIR);
  return path.join(env['XDG_DATA_HOME'] || path.join(os.homedir(), '.local', 'share'), APP_DIR);
}

/** `--db` wins, then `WAPII_DB`, then the user's data directory. */
export function defaultDatabasePath(env: NodeJS.ProcessEnv = process.env): string {
  return env['WAPII_DB'] || path.join(userDataDir(env), 'wapii.db');
}
