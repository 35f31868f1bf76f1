import { create } from 'zustand';

/**
 * Whether the page still hears the server (`wapii serve`'s event stream). When the stream drops,
 * every page says so above its content (progress and ETAs on screen stop moving then), and the
 * stream is opened again, with the page's cookie, until serve is back.
 */
export interface Connection {
  /** Since when (ms since the epoch) the stream is down; undefined while it is up. */
  lostAt: number | undefined;
  /** Why it stays down when the server answers but refuses the page (a restart with a new token). */
  refused: string | undefined;
}

export const useConnection = create<Connection>()(() => ({ lostAt: undefined, refused: undefined }));
