/**
 * Shapes of questions that several skills' forms share, whatever they read: a ranking
 * ("highest", "top 3", "lowest", "rank"), a magnitude ("how big"), a difference ("how far
 * apart", "by how much", "how much more … than …") and a monthly average. (Breakdowns need no words here: the core reads "split", "per", "in every month" and
 * "which month" as grouping.) The words are plain English, not business vocabulary: which
 * dimension is ranked comes from the catalog's words the question names (the
 * `Understanding`'s groupBy and dimensions), never from these phrases.
 */
import type { Understanding } from './questionForms.ts';

/** The shapes' intent words, declared by a form (see QuestionForm.intents) so they join the vocabulary. */
export const shapeIntents: Record<string, string[]> = {
  rank_high: ['highest', 'largest', 'biggest', 'greatest', 'most', 'top', 'maximum', 'max', 'peak', 'best', 'strongest', 'heaviest', 'furthest', 'farthest'],
  rank_low: ['lowest', 'smallest', 'least', 'bottom', 'minimum', 'min', 'worst', 'weakest', 'fewest'],
  // Words of size: revenue and costs ranked together by how big they are, not by sign.
  rank_size: ['largest', 'biggest', 'greatest', 'top', 'heaviest', 'smallest', 'bottom', 'furthest', 'farthest'],
  rank_all: ['rank', 'ranked', 'ranking', 'rankings', 'rank them', 'sort', 'sorted', 'in order'],
  // "Average monthly revenue": the total over the months asked for, divided by their number.
  average: ['average', 'averages', 'averaged', 'avg', 'on average', 'monthly average', 'average monthly', 'per month on average'],
  // "Which quarter was highest": the periods ranked by quarter.
  quarter_grain: ['quarter', 'quarters', 'fiscal quarter', 'fiscal quarters', 'which quarter', 'what quarter'],
  // The size of one figure or gap: "how big is the gap", "how large was the duplicated load".
  magnitude: ['how big', 'how large', 'how wide', 'size of the gap', 'size of the difference', 'size of the'],
  // A difference between two sides: never answered with one side or their sum.
  difference: ['how far apart', 'far apart', 'apart', 'how far off', 'far off', 'by how much', 'how much higher', 'how much lower', 'how much more', 'how much less', 'how much bigger', 'how much smaller', 'how much greater', 'exceed', 'exceeds', 'exceeded', 'exceeding'],
};

/**
 * A dimension the question names with no single value (none, a list, a range: "which month
 * in Q4"): a ranking can run over it.
 */
const open = (q: Understanding, dimension: string) => typeof q.filters[dimension] !== 'string';

/** A ranking asked for: which end, how many, over which dimension (undefined: none named). */
export interface Ranking {
  /** "highest" ranks from the top, "lowest" from the bottom, "both" ("highest and lowest") lists both ends. */
  end: 'highest' | 'lowest' | 'both';
  /** How many to list: the question's count ("top 3"), else one; every value for "rank them". */
  count: number;
  /** Ranked by size whatever the sign ("the largest accounts"), not by signed value ("the lowest month"). */
  bySize: boolean;
  dimension: string | undefined;
  /** "quarter": the periods are summed into quarters before they are ranked. */
  grain?: 'quarter';
}

/**
 * The ranking a question asks for, or undefined when it asks none ("which month was highest" →
 * highest period; "top 3 accounts" → 3 highest group accounts).
 *
 * @example
 * rankingOf({ ...q, intents: new Set(['rank_high']), dimensions: ['period'], filters: { company: '1000' } }) // { end: 'highest', count: 1, dimension: 'period' }
 */
export function rankingOf(q: Understanding): Ranking | undefined {
  const low = q.intents.has('rank_low');
  const high = q.intents.has('rank_high') || (q.intents.has('rank_all') && !low);
  if (!high && !low) return undefined;
  const all = q.intents.has('rank_all') && q.count === undefined;
  // "the largest expense line": a label of several values ("expense" = five accounts) names what to rank.
  const listed = Object.keys(q.filters).filter((d) => Array.isArray(q.filters[d]) && d !== 'period');
  const named = q.dimensions.filter((d) => open(q, d));
  const candidates = q.groupBy.length ? q.groupBy : named.length ? named : listed;
  const quarters = candidates.length === 0 && q.intents.has('quarter_grain');
  return {
    end: high && low ? 'both' : high ? 'highest' : 'lowest',
    count: all ? Number.POSITIVE_INFINITY : (q.count ?? 1),
    bySize: q.intents.has('rank_size') || q.intents.has('net'),
    dimension: candidates[0],
    ...(quarters ? { grain: 'quarter' as const } : {}),
  };
}
