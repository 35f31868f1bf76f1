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
export const taskComment = (task: string): string => task.split(/\r?\n/).map((line) => `// ${line}`).join('\n');
