import { useEffect, useRef } from 'react';
import { create } from 'zustand';

/**
 * Keyboard shortcuts: `j`, `ArrowDown`, `Escape`, `/`, `?`, or a two-key sequence such as `g r`.
 * Hand-written rather than a hotkeys library: it is one keydown listener over a registry, and the
 * registry also feeds the help sheet (`?`).
 */
export interface Shortcut {
  readonly keys: string;
  readonly description: string;
  readonly run: () => void;
}

interface Group {
  readonly id: number;
  readonly title: string;
  readonly shortcuts: { current: readonly Shortcut[] };
}
interface Registry {
  groups: Group[];
}
export const useShortcutRegistry = create<Registry>()(() => ({ groups: [] }));
let nextId = 1;

const isField = (target: EventTarget | null): boolean => {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement) return true;
  return target instanceof HTMLInputElement && !['checkbox', 'radio', 'button', 'submit'].includes(target.type);
};

let pending: { key: string; at: number } | undefined;

function onKey(event: KeyboardEvent): void {
  if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
  const key = event.key;
  // In a text field only Escape counts (it leaves the field's page state, e.g. closes a panel).
  if (isField(event.target) && key !== 'Escape') return;
  // The group registered last (an open sheet, the page) wins over the layout's.
  const groups = [...useShortcutRegistry.getState().groups].reverse();
  const all = groups.flatMap((g) => g.shortcuts.current);
  const sequence = pending && Date.now() - pending.at < 1000 ? `${pending.key} ${key}` : undefined;
  pending = undefined;
  const match = (sequence && all.find((s) => s.keys === sequence)) || all.find((s) => s.keys === key);
  if (match) {
    event.preventDefault();
    match.run();
  } else if (all.some((s) => s.keys.startsWith(`${key} `))) {
    pending = { key, at: Date.now() };
  }
}

/** Registers shortcuts while the calling component is mounted; the latest `run` functions are used. */
export function useShortcuts(title: string, shortcuts: readonly Shortcut[]): void {
  const latest = useRef(shortcuts);
  latest.current = shortcuts;
  useEffect(() => {
    const id = nextId++;
    const { groups } = useShortcutRegistry.getState();
    if (groups.length === 0) window.addEventListener('keydown', onKey);
    useShortcutRegistry.setState({ groups: [...groups, { id, title, shortcuts: latest }] });
    return () => {
      const rest = useShortcutRegistry.getState().groups.filter((g) => g.id !== id);
      useShortcutRegistry.setState({ groups: rest });
      if (rest.length === 0) window.removeEventListener('keydown', onKey);
    };
  }, [title]);
}

/** The item one step before or after `current` (the first or last when none is current); stops at the ends. */
export function step<T>(items: readonly T[], current: T | undefined, by: 1 | -1, same: (a: T, b: T) => boolean = Object.is): T | undefined {
  if (items.length === 0) return undefined;
  const index = current === undefined ? -1 : items.findIndex((x) => same(x, current));
  if (index < 0) return by === 1 ? items[0] : items[items.length - 1];
  return items[Math.min(items.length - 1, Math.max(0, index + by))];
}
