/**
 * A labelled select for a filter that takes one value of a list, or none (the first option, value
 * ''). Options read as `text` says (default: verdict-style names with spaces for underscores).
 */
export function OneOf<T extends string>(props: {
  label: string;
  aria: string;
  any: string;
  options: readonly T[];
  value: T | undefined;
  onChange: (value: T | undefined) => void;
  text?: (value: T) => string;
}): React.JSX.Element {
  const text = props.text ?? ((v: T) => v.replace(/_/g, ' '));
  return (
    <label>
      {props.label}
      <select aria-label={props.aria} value={props.value ?? ''} onChange={(e) => props.onChange((e.target.value || undefined) as T | undefined)}>
        <option value="">{props.any}</option>
        {props.options.map((v) => (
          <option key={v} value={v}>
            {text(v)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Option text for names shown as they are (APIs, review states). */
export const verbatim = (v: string): string => v;
