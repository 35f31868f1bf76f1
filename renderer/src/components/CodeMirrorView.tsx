import { javascript } from '@codemirror/lang-javascript';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState, RangeSet } from '@codemirror/state';
import { Decoration, EditorView, lineNumbers } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { useEffect, useRef } from 'react';
import './codeColors.css';

/**
 * CodeMirror's default highlight style with its colours as CSS variables (codeColors.css), so the
 * code reads in the dark scheme too: the default's fixed colours (#00f, #708 …) fell to 1.2–2.5:1
 * on the dark panel.
 */
const highlightStyle = HighlightStyle.define([
  { tag: tags.meta, color: 'var(--cm-meta)' },
  { tag: tags.link, textDecoration: 'underline' },
  { tag: tags.heading, textDecoration: 'underline', fontWeight: 'bold' },
  { tag: tags.emphasis, fontStyle: 'italic' },
  { tag: tags.strong, fontWeight: 'bold' },
  { tag: tags.strikethrough, textDecoration: 'line-through' },
  { tag: tags.keyword, color: 'var(--cm-keyword)' },
  { tag: [tags.atom, tags.bool, tags.url, tags.contentSeparator, tags.labelName], color: 'var(--cm-atom)' },
  { tag: [tags.literal, tags.inserted], color: 'var(--cm-literal)' },
  { tag: [tags.string, tags.deleted], color: 'var(--cm-string)' },
  { tag: [tags.regexp, tags.escape, tags.special(tags.string)], color: 'var(--cm-regexp)' },
  { tag: tags.definition(tags.variableName), color: 'var(--cm-definition)' },
  { tag: tags.local(tags.variableName), color: 'var(--cm-local)' },
  { tag: [tags.typeName, tags.namespace], color: 'var(--cm-type)' },
  { tag: tags.className, color: 'var(--cm-class)' },
  { tag: [tags.special(tags.variableName), tags.macroName], color: 'var(--cm-special)' },
  { tag: tags.definition(tags.propertyName), color: 'var(--cm-property-definition)' },
  { tag: tags.comment, color: 'var(--cm-comment)' },
  { tag: tags.invalid, color: 'var(--cm-invalid)' },
]);

const extracted = Decoration.mark({ class: 'cm-extracted', attributes: { title: 'the extracted call' } });

/** Read-only JavaScript in CodeMirror 6, with one range (the extracted call) highlighted (loaded through CodeView). */
export function CodeMirrorView({ code, highlight, label }: { code: string; highlight?: readonly [number, number] | null; label: string }): React.JSX.Element {
  const host = useRef<HTMLDivElement>(null);
  const from = highlight?.[0];
  const to = highlight?.[1];
  useEffect(() => {
    if (!host.current) return;
    const ranges = from !== undefined && to !== undefined && to > from && to <= code.length ? [extracted.range(from, to)] : [];
    const view = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: code,
        extensions: [
          lineNumbers(),
          javascript(),
          syntaxHighlighting(highlightStyle),
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          EditorView.lineWrapping,
          EditorView.decorations.of(RangeSet.of(ranges)),
          EditorView.contentAttributes.of({ 'aria-label': label }),
        ],
      }),
    });
    return () => view.destroy();
  }, [code, from, to, label]);
  return <div className="code-view" ref={host} data-testid="code-view" />;
}
