import type { RequestConfig } from '../api/schemas.js';

/** The paper's two setups: the model completes after `axios.`, or after `axios.<method>('<url>',`. */
export type Setup = 'full' | 'argument';
export type Quote = 'single' | 'double' | 'backtick';
export const QUOTES: Record<Quote, string> = { single: "'", double: '"', backtick: '`' };

/** A JavaScript string literal in the given quote style. */
export function stringLiteral(value: string, quote: Quote = 'single'): string {
  const q = QUOTES[quote];
  let body = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  body = body.split(q).join(`\\${q}`);
  if (quote === 'backtick') body = body.replace(/\$\{/g, '\\${');
  return q + body + q;
}

/** The comment line(s) stating the task; a newline in the task starts another comment line. */
const taskComment = (task: string): string => task.split(/\r?\n/).map((line) => `// ${line}`).join('\n');

/**
 * The starter code of a setup, as WAPIIBench writes it: the task as a comment, the Axios import,
 * then `axios.` (full completion) or `axios.<method>('<url>',` (argument completion).
 */
export function starterCode(setup: Setup, task: string, config: Pick<RequestConfig, 'method' | 'url'>, quote: Quote = 'single', awaitStyle = false): string {
  const head = `${taskComment(task)}\nconst axios = require('axios');\n\n${awaitStyle ? 'const response = await ' : ''}axios.`;
  return setup === 'full' ? head : `${head}${config.method.toLowerCase()}(${stringLiteral(config.url, quote)},`;
}
