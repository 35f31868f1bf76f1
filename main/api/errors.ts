import { WapiiError, type ErrorInfo } from './result.js';

/**
 * Turns anything thrown by a service method into what may cross a transport: a WapiiError keeps
 * its code and message; anything else is a bug, logged in full and shown as one line.
 */
export function toErrorInfo(error: unknown, log: (message: string) => void = (m) => console.error(m)): ErrorInfo {
  if (error instanceof WapiiError) return { code: error.code, message: error.message };
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return { code: 'internal', message: `internal error: ${message}` };
}

export const HTTP_STATUS: Record<ErrorInfo['code'], number> = {
  bad_input: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  internal: 500,
};
