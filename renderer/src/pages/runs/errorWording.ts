/**
 * A stored generation error as a run's pages show it. The engine words its hints for the CLI
 * (`raise --context or lower --max-tokens`), which is where most runs start; on a page the hint
 * names what to change there: New run's Context and Max tokens fields, for a run queued again.
 */
export function pageWording(error: string): string {
  return error.replace(/raise --context or lower --max-tokens/g, 'queue it again from New run with a larger Context or fewer Max tokens');
}
