/**
 * Result-size limits of the data_analyst tools: one tool result must never flood the
 * model's context, whatever the data size.
 */

/** Rows query_source returns when the caller gives no limit. */
export const DEFAULT_QUERY_ROWS = 100;
/** Hard cap on rows per query_source result. */
export const MAX_QUERY_ROWS = 500;
/** Serialised rows beyond this many characters are cut (≈ 6k tokens). */
export const MAX_ROWS_CHARS = 24_000;
/** Largest differences compare_sources lists by default. */
export const DEFAULT_TOP_DIFFERENCES = 10;
