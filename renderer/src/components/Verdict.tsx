/** A verdict as a coloured badge; the class names carry the colour (styles.css `.v-*`). */
export function Verdict({ value, title }: { value: string | null | undefined; title?: string }): React.JSX.Element {
  if (!value) return <span className="muted">–</span>;
  return (
    <span className={`verdict v-${value.split(' ')[0]}`} title={title}>
      {value.replace(/_/g, ' ')}
    </span>
  );
}
