import type { Endpoint } from '../openapi/index.js';
import { stem, words } from './terms.js';

/**
 * Which things a task names by identifier. "the project with gid '123'", "workspace 12345",
 * "spreadsheet \"<spreadsheetId>\"": the word before an identifier names an entity the request
 * must address, and REST APIs put such identifiers in path parameters (`/projects/{project_gid}`).
 * BM25 sees "project" in both `GET /projects` and `GET /projects/{project_gid}`; this tells them apart.
 */
const VALUE = String.raw`(?:['"]?<[^>]+>['"]?|['"]?[A-Za-z]{0,3}\d[\w.:-]*['"]?|'[^']+'|"[^"]+")`;
const MENTION = new RegExp(String.raw`([A-Za-z]+)\s+(?:with\s+(?:the\s+)?)?(?:(?:user\s+)?(?:g?ids?|IDs?|gids)\s+)?(?:of\s+)?${VALUE}`, 'g');
const PLACEHOLDER = /<([A-Za-z_]+)>/g;
const ID_WORDS: ReadonlySet<string> = new Set(['id', 'ids', 'gid', 'gids', 'with', 'the', 'of', 'named', 'name', 'called', 'to', 'value', 'string', 'number']);

/** Stems of the entities a task names by identifier. */
export function identifiedEntities(task: string): Set<string> {
  const found = new Set<string>();
  for (const m of task.matchAll(MENTION)) {
    const word = (m[1] ?? '').toLowerCase();
    if (!ID_WORDS.has(word)) found.add(stem(word));
  }
  for (const m of task.matchAll(PLACEHOLDER)) {
    const entity = entityOf(m[1] ?? '');
    if (entity) found.add(entity);
  }
  return found;
}

/** `project_gid` → `project`, `calendarId` → `calendar`, `user_task_list_gid` → `list`. */
export function entityOf(parameterName: string): string | undefined {
  const parts = words(parameterName).filter((w) => w !== 'id' && w !== 'gid');
  const last = parts[parts.length - 1];
  return last ? stem(last) : undefined;
}

/** Path parameters of an endpoint whose entity the task names (matched) and those it does not (unmatched). */
export function pathParameterCoverage(endpoint: Endpoint, entities: ReadonlySet<string>): { matched: number; unmatched: number } {
  let matched = 0;
  let unmatched = 0;
  for (const m of endpoint.path.matchAll(/\{([^}]+)\}/g)) {
    const entity = entityOf(m[1] ?? '');
    if (entity && entities.has(entity)) matched++;
    else unmatched++;
  }
  return { matched, unmatched };
}
