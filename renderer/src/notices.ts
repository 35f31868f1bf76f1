import { create } from 'zustand';

/** The one-line error banner every page shares: the last failed action's message. */
export interface Notices {
  error: string | undefined;
  showError(error: unknown): void;
  dismissError(): void;
}

export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export const useNotices = create<Notices>()((set) => ({
  error: undefined,
  showError: (error) => set({ error: messageOf(error) }),
  dismissError: () => set({ error: undefined }),
}));

/** Runs a call; a failure becomes the banner and `undefined`. */
export async function attempt<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (error) {
    useNotices.getState().showError(error);
    return undefined;
  }
}

/**
 * Runs what the user asked for (a click, a key): as `attempt`, and a success also clears the
 * banner, since an error left from an earlier action would read as this one's. Background
 * refreshes use `attempt`, which leaves the banner as it is.
 */
export async function act<T>(fn: () => Promise<T>): Promise<T | undefined> {
  const value = await attempt(fn);
  if (value !== undefined && useNotices.getState().error !== undefined) useNotices.getState().dismissError();
  return value;
}

/** Whether an action was refused because what it changes changed since it was read (another tab, another process). */
export const isConflict = (error: unknown): boolean => typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'conflict';

/** What a reviewer reads when a save was refused as stale: it was not saved, why, and that the newer version is on screen. */
export const staleMessage = (error: unknown): string =>
  `Not saved: this sample changed since you opened it (${messageOf(error).replace(/; reload it and edit again$/, '')}). The newer version is shown; make your change again if it still applies.`;
