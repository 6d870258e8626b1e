/**
 * Size limits on what callers may send, in one place: every string a tool accepts has a
 * maximum length, so no argument can make a parser, a regex or a fuzzy match run long on the
 * event loop. The limits appear in the tools' JSON Schemas (`maxLength`, `maxItems`), and a
 * value over them is an `invalid_arguments` error that names the limit.
 */
import { z } from 'zod';

/** A name: source, measure, dimension, skill, tool, or an id such as a comparison_id. */
export const MAX_NAME_CHARS = 200;
/** One filter value, range bound or key value ("1000", "December 2024"). */
export const MAX_VALUE_CHARS = 200;
/** Values in one filter list (`{"company": ["1000", "2000", …]}`). */
export const MAX_FILTER_VALUES = 500;
/** Dimensions filtered in one filters object. */
export const MAX_FILTER_DIMENSIONS = 30;
/** A free-text search query (e.g. of the knowledge skill's search tool). */
export const MAX_SEARCH_QUERY_CHARS = 500;
/** An order_by written as text ("amount desc, company"). */
export const MAX_ORDER_BY_CHARS = 1_000;
/**
 * The ceiling for any string anywhere in tool arguments (object keys included), checked before a
 * tool's own schema: it bounds the work even for a skill whose schema forgot a `max`.
 */
export const MAX_ANY_ARGUMENT_CHARS = 2_000;

/**
 * A non-empty name argument of at most {@link MAX_NAME_CHARS} characters.
 * @example
 * const input = z.strictObject({ source: nameArgument().describe('source name from the catalog') });
 */
export function nameArgument() {
  return z.string().min(1).max(MAX_NAME_CHARS);
}

/**
 * A text value argument (a filter value, a key value) of at most {@link MAX_VALUE_CHARS} characters.
 * @example
 * const key = z.record(nameArgument(), z.union([valueArgument(), z.null()]));
 */
export function valueArgument() {
  return z.string().max(MAX_VALUE_CHARS);
}
