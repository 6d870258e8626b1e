/**
 * Turns a plain-language question into a safe FTS5 MATCH expression: words only (letters and
 * digits), stop words dropped, each word quoted (so FTS5 operators, column filters, quotes or
 * parentheses in the user's text are never syntax), longer words matched as prefixes, all
 * joined with OR so BM25 ranks passages by how many and how rare the matched words are.
 * Compound words ("year-to-date", "top-side", "fi_acquisition") are also searched as phrases.
 */

/** At most this many distinct words of a question are searched. */
export const MAX_QUERY_TERMS = 24;

/** Words at least this long also match longer words starting with them (after stemming). */
export const PREFIX_MIN_LENGTH = 5;

// Function words and question filler: they carry no topic and would only add noise.
const stopWords = new Set(
  (
    'a about above after again against all also am an and any are aren as at be because been before being below between both but by ' +
    'can cannot could couldn did didn do does doesn doing don down during each either else etc even ever every few for from further ' +
    'get gets got had hadn has hasn have haven having he her here hers herself him himself his how however i if in into is isn it its ' +
    'itself just let me might mine more most much must mustn my myself need needs no nor not now of off on once only or other ought our ' +
    'ours ourselves out over own please same shall shan she should shouldn so some such than that the their theirs them themselves then ' +
    'there these they this those through to too under until up upon us very via was wasn we were weren what when where whether which ' +
    'while who whom whose why will with within without won would wouldn yes yet you your yours yourself yourselves ' +
    'explain explains tell show give know want like kind thing things way ways mean means meaning'
  ).split(' '),
);

/** The distinct searchable words of a query, lower-cased, in order of first appearance. */
export function searchTerms(query: string): string[] {
  const words = query.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const terms: string[] = [];
  for (const word of words) {
    if (stopWords.has(word) || terms.includes(word)) continue;
    // Single characters ("s" of "FI's", "a", "3") carry no topic.
    if (word.length < 2) continue;
    terms.push(word);
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  return terms;
}

/** At most this many compound words of a question are searched as phrases. */
export const MAX_QUERY_PHRASES = 8;

/**
 * The compound words of a query as phrases of their parts: "year-to-date" → ["year", "to",
 * "date"], "fi_acquisition" → ["fi", "acquisition"]. Stop words stay inside a phrase; a
 * compound made only of stop words is dropped.
 */
export function searchPhrases(query: string): string[][] {
  // Words with optional joined parts, keeping those that have a part: a pattern requiring one
  // (`(…)+`) backtracked through every long word at every position, quadratic in its length.
  const compounds = (query.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}]+(?:[-_][\p{L}\p{N}]+)*/gu) ?? []).filter((word) => /[-_]/.test(word));
  const phrases: string[][] = [];
  for (const compound of compounds) {
    const parts = compound.split(/[-_]+/);
    if (parts.every((part) => stopWords.has(part) || part.length < 2)) continue;
    if (phrases.some((known) => known.join(' ') === parts.join(' '))) continue;
    phrases.push(parts);
    if (phrases.length === MAX_QUERY_PHRASES) break;
  }
  return phrases;
}

/** The FTS5 phrase for parts of a compound word, e.g. `"year to date"`. */
export function phraseExpression(parts: readonly string[]): string {
  return `"${parts.join(' ').replace(/"/g, '""')}"`;
}

/**
 * The FTS5 expression for `terms`, e.g. `"consolidation"* OR "fi"`. Terms hold only letters
 * and digits (from searchTerms), and each is quoted, so the expression is always valid.
 * @throws Error when `terms` is empty (callers check first).
 */
export function matchExpression(terms: readonly string[]): string {
  if (terms.length === 0) throw new Error('matchExpression needs at least one term');
  return terms
    .map((term) => {
      const quoted = `"${term.replace(/"/g, '""')}"`;
      return term.length >= PREFIX_MIN_LENGTH ? `${quoted}*` : quoted;
    })
    .join(' OR ');
}
