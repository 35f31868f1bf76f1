/**
 * A verdict as a coloured badge; the class names carry the colour (styles.css `.v-*`). A
 * non-executable sample shows its error verdict (`runtime error`) in the non-executable colour.
 */
export function Verdict({ value, title }: { value: string | null | undefined; title?: string }): React.JSX.Element {
  if (!value) return <span className="muted">–</span>;
  const error = /^nonexecutable \((.+)\)$/.exec(value)?.[1];
  const kind = error ? 'nonexecutable' : value;
  return (
    <span className={`verdict v-${kind}`} title={title ?? (error ? `nonexecutable: ${error.replace(/_/g, ' ')}` : undefined)} data-verdict={kind}>
      {(error ?? value).replace(/_/g, ' ')}
    </span>
  );
}
