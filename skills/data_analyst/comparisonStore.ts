/**
 * Remembers recent comparisons by id, so follow-up calls (the next page of differences, a
 * drill-down) reuse them instead of recomputing. Bounded in count and age: an unknown or
 * expired id is an error that tells the model to run the comparison again.
 *
 * The comparison is kept in the context's state: in a conversation (/chat) the session's (the
 * session store), so its id works after a restart and on another instance; for POST /tools and
 * MCP the calling key's. Without a state (a tool called directly) it is kept in this process's
 * LRU cache.
 */
import type { z } from 'zod';
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { ToolError, type ToolContext } from '../../src/skills/api.ts';
import type { differenceRow } from './schemas.ts';

/** How long a comparison id stays usable, and how many are kept. */
export const COMPARISON_TTL_MS = 30 * 60 * 1000;
export const MAX_STORED_COMPARISONS = 200;
/** Differences kept per comparison for paging (the largest first). */
export const STORED_DIFFERENCES = 200;

export interface StoredComparison {
  /** The compare_sources arguments, to re-run or refine the comparison. */
  args: Record<string, unknown>;
  /** The compare_sources result, with up to STORED_DIFFERENCES differences. */
  result: Record<string, unknown> & { top_differences: z.infer<typeof differenceRow>[] };
}

export interface ComparisonStore {
  remember(comparison: StoredComparison): string;
  /** @throws ToolError unknown_value when the id is unknown or expired. */
  recall(id: string): StoredComparison;
}

/** A store; `now` (milliseconds) is for tests. */
export function createComparisonStore(options: { ttlMs?: number; max?: number; now?: () => number } = {}): ComparisonStore {
  const ttlMs = options.ttlMs ?? COMPARISON_TTL_MS;
  const cache = new LRUCache<string, StoredComparison>({
    max: options.max ?? MAX_STORED_COMPARISONS,
    ttl: ttlMs,
    ttlResolution: 0,
    ...(options.now ? { perf: { now: options.now } } : {}),
  });
  return {
    remember(comparison) {
      const id = `cmp_${randomBytes(9).toString('base64url')}`;
      cache.set(id, comparison);
      return id;
    },
    recall(id) {
      const found = cache.get(id);
      if (found) return found;
      throw unknownComparison(id, ttlMs);
    },
  };
}

/** The store the data_analyst tools share. */
export const comparisons = createComparisonStore();

const stateKey = (id: string) => `data_analyst.comparison.${id}`;

/**
 * Keeps a comparison and returns its new id: in the conversation's state when the context has
 * one, else in the process's store.
 * @example
 * const id = await rememberComparison(context, { args, result }); // 'cmp_…'
 */
export async function rememberComparison(context: Pick<ToolContext, 'state'>, comparison: StoredComparison, store: ComparisonStore = comparisons): Promise<string> {
  if (!context.state) return store.remember(comparison);
  const id = `cmp_${randomBytes(9).toString('base64url')}`;
  await context.state.set(stateKey(id), comparison);
  return id;
}

/**
 * The comparison behind `id`, from the context's state, or the process's store without one.
 * @throws ToolError unknown_value when neither knows it.
 * @example
 * const { args, result } = await recallComparison(context, 'cmp_…');
 */
export async function recallComparison(context: Pick<ToolContext, 'state'>, id: string, store: ComparisonStore = comparisons): Promise<StoredComparison> {
  if (!context.state) return store.recall(id);
  // Only the context's own state: an id kept for another conversation or caller does not exist here.
  const kept = (await context.state.get(stateKey(id))) as StoredComparison | undefined;
  if (!kept) throw unknownComparison(id, COMPARISON_TTL_MS);
  return kept;
}

function unknownComparison(id: string, ttlMs: number): ToolError {
  return new ToolError('unknown_value', `Comparison '${id}' is unknown or has expired (ids last ${Math.round(ttlMs / 60000)} minutes).`, {
    hint: 'Run compare_sources again with the same arguments to get a new comparison_id.',
    details: { argument: 'comparison_id', value: id },
  });
}
