import { javascript } from '@codemirror/lang-javascript';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { EditorState, RangeSet } from '@codemirror/state';
import { Decoration, EditorView, lineNumbers } from '@codemirror/view';
import { useEffect, useRef } from 'react';

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
          syntaxHighlighting(defaultHighlightStyle),
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
