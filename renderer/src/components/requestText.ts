import type { RequestConfig } from '../../../main/api/schemas.js';

/**
 * A request edited as JSON text, read back: the config, or a one-line reason it is not one. Only
 * the shape is checked here; the service checks the request against the spec when it is saved.
 */
export function parseRequestText(text: string): { config?: RequestConfig; error?: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'the request must be a JSON object' };
  const v = value as Record<string, unknown>;
  if (typeof v['url'] !== 'string' || typeof v['method'] !== 'string') return { error: 'the request needs a string `url` and `method`' };
  return { config: value as RequestConfig };
}
