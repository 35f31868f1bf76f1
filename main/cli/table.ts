import Table from 'cli-table3';

/** A terminal table (cli-table3), with long cells cut so a row stays on one line. */
export function formatTable(headers: readonly string[], rows: readonly (readonly (string | number)[])[], maxCell = 60): string {
  const table = new Table({ head: [...headers], style: { head: [], border: [] } });
  for (const row of rows) {
    table.push(row.map((c) => {
      const text = String(c).replace(/\s+/g, ' ');
      return text.length > maxCell ? text.slice(0, maxCell - 1) + '…' : text;
    }));
  }
  return table.toString() + '\n';
}
