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

/** Runs an action; a failure becomes the banner and `undefined`. */
export async function attempt<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (error) {
    useNotices.getState().showError(error);
    return undefined;
  }
}
