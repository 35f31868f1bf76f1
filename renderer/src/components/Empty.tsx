import type { ReactNode } from 'react';

/** What an empty page or list says: what is missing and what to do about it. */
export function Empty({ title, children, testId }: { title: string; children?: ReactNode; testId?: string }): React.JSX.Element {
  return (
    <div className="empty-state" data-testid={testId}>
      <p className="empty-title">{title}</p>
      {children && <div className="muted">{children}</div>}
    </div>
  );
}

/** A one-line loading note that only shows when loading takes longer than a blink. */
export function Loading({ what }: { what: string }): React.JSX.Element {
  return (
    <p className="loading" aria-busy="true">
      Loading {what}…
    </p>
  );
}

/** A list that could not load: the banner above says why; this offers to try again. */
export function Failed({ what, retry }: { what: string; retry: () => void }): React.JSX.Element {
  return (
    <div className="empty-state">
      <p className="empty-title">Could not load {what}.</p>
      <button className="secondary" onClick={retry}>
        Try again
      </button>
    </div>
  );
}
