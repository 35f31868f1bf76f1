/**
 * The paper's three-point checklist as a revision's reason carries it. Zod-free: the renderer
 * reads it back for the history.
 */
export interface Checklist {
  /** The task is unambiguous and solvable. */
  readonly unambiguous: boolean;
  /** The config solves the task. */
  readonly solves: boolean;
  /** Every argument of the config is reflected in the task and vice versa. */
  readonly reflected: boolean;
}

export const CHECKLIST_ITEMS: readonly (readonly [keyof Checklist, string])[] = [
  ['unambiguous', 'task unambiguous and solvable'],
  ['solves', 'config solves it'],
  ['reflected', 'arguments reflected both ways'],
];

/** The checklist as the revision's reason carries it: `[checklist: task unambiguous and solvable ✓; …]`. */
export function checklistNote(checklist: Checklist): string {
  return `[checklist: ${CHECKLIST_ITEMS.map(([k, label]) => `${label} ${checklist[k] ? '✓' : '✗'}`).join('; ')}]`;
}

/** Reads a checklist back from a revision's reason; undefined when the reason carries none. */
export function parseChecklist(reason: string): Checklist | undefined {
  const match = /\[checklist: ([^\]]*)\]/.exec(reason);
  if (!match?.[1]) return undefined;
  const parts = match[1].split('; ');
  const answer = (label: string): boolean | undefined => {
    const part = parts.find((p) => p.startsWith(`${label} `));
    return part === undefined ? undefined : part.endsWith('✓');
  };
  const [u, s, r] = CHECKLIST_ITEMS.map(([, label]) => answer(label));
  return u === undefined || s === undefined || r === undefined ? undefined : { unambiguous: u, solves: s, reflected: r };
}
