import type { CompareResult } from '../api/evaluation.js';
import { formatTable } from './table.js';

/** The paired tests as a table: both, only A, only B, neither, p (exact McNemar). */
export function pairedTable(paired: CompareResult['paired'][number], a: number, b: number): string {
  return formatTable(
    ['paired outcome', 'both', `only run ${a}`, `only run ${b}`, 'neither', 'p (McNemar)'],
    Object.entries(paired).map(([name, t]) => [name, String(t.both), String(t.a_only), String(t.b_only), String(t.neither), `${t.p_value < 0.001 ? t.p_value.toExponential(1) : t.p_value.toFixed(3)}${t.p_value < 0.05 ? ' *' : ''}`]),
  );
}
