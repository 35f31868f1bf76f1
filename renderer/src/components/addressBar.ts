/**
 * Whether the address bar still shows the page at `path` (`/datasets`, `/runs/4`).
 *
 * React Router applies a navigation as a transition: while the next page's code is fetched, the
 * page being left stays mounted and its effects still run. A page that mirrors its state into the
 * URL (a replace) asks this first, or a write that lands in that window undoes the user's navigation.
 */
export function addressShows(path: string): boolean {
  return window.location.hash.slice(1).split('?')[0] === path;
}
