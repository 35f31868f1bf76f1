import { flexRender, type Table } from '@tanstack/react-table';

/** A TanStack table's header row: a click on a column sorts by it, ▲/▼ marks the sorted one. */
export function SortableHead<Row>({ table }: { table: Table<Row> }): React.JSX.Element {
  return (
    <thead>
      {table.getHeaderGroups().map((group) => (
        <tr key={group.id}>
          {group.headers.map((h) => (
            <th key={h.id} style={{ width: h.getSize() }} onClick={h.column.getToggleSortingHandler()}>
              {flexRender(h.column.columnDef.header, h.getContext())}
              {{ asc: ' ▲', desc: ' ▼' }[h.column.getIsSorted() as string] ?? ''}
            </th>
          ))}
        </tr>
      ))}
    </thead>
  );
}
