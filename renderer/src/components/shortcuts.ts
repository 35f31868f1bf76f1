import { useEffect, useRef } from 'react';
import { create } from 'zustand';

/**
 * Keyboard shortcuts: `j`, `ArrowDown`, `Escape`, `/`, `?`, or a two-key sequence such as `g r`.
 * Hand-written rather than a hotkeys library: it is one keydown listener, and the app also needs
 * the list of active shortcuts for its help sheet, which a registry here gives for free.
 */
export interface Shortcut {
  readonly keys: string;
  readonly description: string;
  readonly run: () => void;
  /** Also fires while the focus is in a text field (Escape does by default). */
  readonly inFields?: boolean;
}

interface Registry {
  groups: { id: number; title: string; shortcuts: readonly Shortcut[] }[];
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

/** Registers shortcuts while the calling component is mounted; the latest `run` functions are used. */
export function useShortcuts(title: string, shortcuts: readonly Shortcut[]): void {
  const latest = useRef(shortcuts);
  latest.current = shortcuts;
  const signature = shortcuts.map((s) => `${s.keys}:${s.description}`).join('|');
  useEffect(() => {
    const id = nextId++;
    useShortcutRegistry.setState((s) => ({ groups: [...s.groups, { id, title, shortcuts: latest.current }] }));
    const onKey = (event: KeyboardEvent): void => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      const key = event.key;
      const inField = isField(event.target);
      const sequence = pending && Date.now() - pending.at < 1000 ? `${pending.key} ${key}` : undefined;
      for (const shortcut of latest.current) {
        const matches = shortcut.keys === sequence || shortcut.keys === key;
        if (!matches) continue;
        if (inField && !(shortcut.inFields || key === 'Escape')) continue;
        event.preventDefault();
        pending = undefined;
        shortcut.run();
        return;
      }
      if (!inField && latest.current.some((s) => s.keys.startsWith(`${key} `))) pending = { key, at: Date.now() };
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      useShortcutRegistry.setState((s) => ({ groups: s.groups.filter((g) => g.id !== id) }));
    };
  }, [title, signature]);
}

/** The item one step before or after `current` (the first or last when none is current); stops at the ends. */
export function step<T>(items: readonly T[], current: T | undefined, by: 1 | -1, same: (a: T, b: T) => boolean = Object.is): T | undefined {
  if (items.length === 0) return undefined;
  const index = current === undefined ? -1 : items.findIndex((x) => same(x, current));
  if (index < 0) return by === 1 ? items[0] : items[items.length - 1];
  return items[Math.min(items.length - 1, Math.max(0, index + by))];
}
