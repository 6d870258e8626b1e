/**
 * Paging through sessions, most recently updated first: the page sizes, and the cursor that
 * carries the last row's position (`updated_at`, `id`) to the next request. The cursor is
 * opaque and checked on the way in, so anything but a next_cursor this service returned is
 * refused instead of being read as some other position.
 */
import type { SessionSummary } from './sessionRecords.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface SessionPage {
  sessions: SessionSummary[];
  /** Pass as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** An opaque page cursor: the last row's `updated_at|id`, base64url. */
export function encodeCursor(updatedAt: string, id: string): string {
  return Buffer.from(`${updatedAt}|${id}`, 'utf8').toString('base64url');
}

const isoTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The position a cursor stands for, or undefined when it is not one this store made. */
export function decodeCursor(cursor: string): { updatedAt: string; id: string } | undefined {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  if (bar < 0) return undefined;
  const updatedAt = text.slice(0, bar);
  const id = text.slice(bar + 1);
  // Ids this store makes have no control characters (a U+0000 would fail PostgreSQL's text).
  if (!isoTimestamp.test(updatedAt) || id === '' || /\p{Cc}/u.test(id) || encodeCursor(updatedAt, id) !== cursor) return undefined;
  return { updatedAt, id };
}
