import { useEffect, useState } from 'react';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useConnection } from '../connection.js';
import { useNotices } from '../notices.js';
import { useShortcuts, useShortcutRegistry } from './shortcuts.js';

const KEY_NAMES: Record<string, string> = { ArrowDown: '↓', ArrowUp: '↑', Escape: 'Esc', Enter: '↵ Enter', ' ': 'Space' };

export interface NavItem {
  readonly to: string;
  readonly label: string;
  /** The second key of its `g …` shortcut. */
  readonly key: string;
}

export function Layout({ items }: { items: readonly NavItem[] }): React.JSX.Element {
  const navigate = useNavigate();
  const [help, setHelp] = useState(false);
  const { pathname } = useLocation();
  // An error belongs to the page it happened on.
  useEffect(() => useNotices.getState().dismissError(), [pathname]);
  useShortcuts('Anywhere', [
    ...items.map((item) => ({ keys: `g ${item.key}`, description: `go to ${item.label}`, run: () => void navigate(item.to) })),
    { keys: '?', description: 'show or hide these shortcuts', run: () => setHelp((h) => !h) },
  ]);
  return (
    <div className="app">
      <nav className="topbar" aria-label="Pages">
        <h1>WAPII Workbench</h1>
        {items.map((item) => (
          <NavLink key={item.to} to={item.to} end={item.to === '/runs'} className={({ isActive }) => (isActive ? 'nav active' : 'nav')} title={`g ${item.key}`}>
            {item.label}
          </NavLink>
        ))}
        <span className="spacer" />
        <button className="link" onClick={() => setHelp(true)} title="Keyboard shortcuts (?)" aria-label="Keyboard shortcuts">
          ⌨ ?
        </button>
      </nav>
      <ConnectionBanner />
      <ErrorBanner />
      <Outlet />
      {help && <ShortcutsHelp onClose={() => setHelp(false)} />}
    </div>
  );
}

/** Every page's line while the server cannot be heard: what is on screen (progress, ETAs) has stopped following it. */
function ConnectionBanner(): React.JSX.Element | null {
  const lostAt = useConnection((s) => s.lostAt);
  const refused = useConnection((s) => s.refused);
  if (lostAt === undefined) return null;
  const at = new Date(lostAt).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return (
    <div className="error connection-lost" role="status" data-testid="connection-lost">
      <span>
        {refused
          ? `Disconnected since ${at}: ${refused}.`
          : `The server is gone (no word from it since ${at}): what this page shows, progress and ETAs included, has stopped updating. Reconnecting when it is back…`}
      </span>
    </div>
  );
}

function ErrorBanner(): React.JSX.Element | null {
  const error = useNotices((s) => s.error);
  const dismiss = useNotices((s) => s.dismissError);
  if (!error) return null;
  return (
    <div className="error" role="alert">
      <span>{error}</span>
      <button className="link" onClick={dismiss} aria-label="Dismiss">
        ✕
      </button>
    </div>
  );
}

function ShortcutsHelp({ onClose }: { onClose: () => void }): React.JSX.Element {
  const groups = useShortcutRegistry((s) => s.groups);
  useShortcuts('This sheet', [{ keys: 'Escape', description: 'close', run: onClose }]);
  return (
    <div className="dialog-backdrop" role="dialog" aria-label="Keyboard shortcuts" onClick={onClose}>
      <div className="dialog shortcuts" onClick={(e) => e.stopPropagation()}>
        <h2>Keyboard shortcuts</h2>
        {groups
          .filter((g) => g.title !== 'This sheet')
          .map((g) => (
            <section key={g.id}>
              <h3>{g.title}</h3>
              <dl>
                {g.shortcuts.current.map((s) => (
                  <div key={s.keys}>
                    <dt>
                      {s.keys.split(' ').map((k, i) => (
                        <kbd key={i}>{KEY_NAMES[k] ?? k}</kbd>
                      ))}
                    </dt>
                    <dd>{s.description}</dd>
                  </div>
                ))}
              </dl>
            </section>
          ))}
        <div className="row">
          <button className="secondary" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </div>
  );
}
