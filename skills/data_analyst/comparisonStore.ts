/**
 * Remembers recent comparisons by id, so follow-up calls (the next page of differences, a
 * drill-down) reuse them instead of recomputing. Bounded in count and age: an unknown or
 * expired id is an error that tells the model to run the comparison again.
 */
import { randomBytes } from 'node:crypto';
import { ToolError } from '../../src/skills/api.ts';
import { LRUCache } from 'lru-cache';

/** How long a comparison id stays usable, and how many are kept. */
export const COMPARISON_TTL_MS = 30 * 60 * 1000;
export const MAX_STORED_COMPARISONS = 200;
/** Differences kept per comparison for paging (the largest first). */
export const STORED_DIFFERENCES = 200;

export interface StoredComparison {
  /** The compare_sources arguments, normalised, to re-run or refine the comparison. */
  args: Record<string, unknown>;
  /** The compare_sources result as returned, but with up to STORED_DIFFERENCES differences. */
  result: Record<string, unknown> & { top_differences: Record<string, unknown>[] };
}

const store = new LRUCache<string, StoredComparison>({ max: MAX_STORED_COMPARISONS, ttl: COMPARISON_TTL_MS });

/** Stores a comparison and returns its id. */
export function rememberComparison(comparison: StoredComparison): string {
  const id = `cmp_${randomBytes(9).toString('base64url')}`;
  store.set(id, comparison);
  return id;
}

/** @throws ToolError unknown_value when the id is unknown or expired. */
export function recallComparison(id: string): StoredComparison {
  const found = store.get(id);
  if (found) return found;
  throw new ToolError('unknown_value', `Comparison '${id}' is unknown or has expired (ids last ${COMPARISON_TTL_MS / 60000} minutes).`, {
    hint: 'Run compare_sources again with the same arguments to get a new comparison_id.',
    details: { argument: 'comparison_id', value: id },
  });
}
