/**
 * Text → search terms for endpoint retrieval. Spec text names things in code style
 * (`calendarList`, `task_gid`, `/spreadsheets/{id}/values:append`) while tasks are prose
 * ("append values to the spreadsheet"), so identifiers are split at case changes, underscores and
 * path punctuation before both sides meet in one vocabulary.
 */

/** Words that carry no endpoint identity in tasks or specs. */
const STOPWORDS: ReadonlySet<string> = new Set(
  ('a an and are as at be by for from has have in into is it its of on or that the this to was were will with ' +
    'which who whom whose my me i you your we our us their them they he she his her all any each ' +
    'using use via given named called id ids gid').split(' '),
);

/**
 * A small suffix stripper (Harman's S-stemmer plus `-ing`/`-ed`/`-es`), hand-written because the
 * installed search library ships none and a full Porter stemmer would be a new dependency for the
 * few plural and tense forms that separate task prose from spec identifiers
 * ("attachments" / `attachment`, "archived" / `archive`, "updating" / `update`).
 */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) return word.slice(0, -3) + 'y';
  if (word.endsWith('sses') || word.endsWith('shes') || word.endsWith('ches') || word.endsWith('xes')) return word.slice(0, -2);
  if (word.endsWith('es') && !word.endsWith('aes') && !word.endsWith('ees') && !word.endsWith('oes')) return stemE(word.slice(0, -1));
  if (word.endsWith('s') && !word.endsWith('us') && !word.endsWith('ss')) return stemE(word.slice(0, -1));
  if (word.endsWith('ing') && word.length > 5) return stemE(word.slice(0, -3) + 'e');
  if (word.endsWith('ed') && word.length > 4) return stemE(word.slice(0, -1));
  return stemE(word);
}

/** Drops a final `e` so that "update", "updated" and "updating" meet at `updat`. */
function stemE(word: string): string {
  const doubled = /([bdfglmnprt])\1e$/.exec(word);
  if (doubled) return word.slice(0, -2);
  return word.length > 3 && word.endsWith('e') ? word.slice(0, -1) : word;
}

/** Splits identifiers and prose into lower-case words: `calendarList/{calendarId}` → calendar, list, calendar, id. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** The search terms of a text: split, stopwords dropped, stemmed. */
export function terms(text: string): string[] {
  return words(text)
    .filter((w) => !STOPWORDS.has(w) && !/^\d+$/.test(w))
    .map(stem);
}
