import { lazy, Suspense } from 'react';

/** CodeMirror (with its JavaScript grammar, some 450 kB) is fetched the first time code is shown, not with the first page. */
const CodeMirrorView = lazy(async () => ({ default: (await import('./CodeMirrorView.js')).CodeMirrorView }));

export interface CodeViewProps {
  readonly code: string;
  readonly highlight?: readonly [number, number] | null;
  readonly label: string;
}

/** Read-only JavaScript with one range (the extracted call) highlighted; plain text until CodeMirror has loaded. */
export function CodeView(props: CodeViewProps): React.JSX.Element {
  return (
    <Suspense
      fallback={
        <pre className="code-view" data-testid="code-view" aria-label={props.label}>
          {props.code}
        </pre>
      }
    >
      <CodeMirrorView {...props} />
    </Suspense>
  );
}
