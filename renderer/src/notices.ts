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

/**
 * Runs an action; a failure becomes the banner and `undefined`. A success clears the banner: an
 * error left from an earlier action would read as this one's.
 */
export async function attempt<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    const value = await fn();
    if (useNotices.getState().error !== undefined) useNotices.getState().dismissError();
    return value;
  } catch (error) {
    useNotices.getState().showError(error);
    return undefined;
  }
}
