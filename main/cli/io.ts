/**
 * What a command writes to and listens on: the terminal in the real CLI, buffers in tests. Its own
 * file, so the commands and program.ts, which registers them, each import it without importing
 * each other.
 */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** serve: resolves when the server should stop (SIGINT/SIGTERM in the real CLI). */
  readonly untilStopped?: () => Promise<void>;
  /** run: aborted on Ctrl-C, so a run stops after the samples in flight and stays resumable. */
  readonly signal?: AbortSignal;
  /** Whether stderr is a terminal (progress redrawn in place) or a log (a line every 5%). */
  readonly isTTY?: boolean;
}
