/**
 * JSON objects as tool results are read: the type and the guard. Kept apart from
 * messageText.ts (which imports LangChain) so the skill SDK, and the query worker's build of a
 * skill's reducer, can use them without loading LangChain.
 */

/** A parsed JSON object, as tool results are read. */
export type Json = Record<string, unknown>;

/**
 * A plain object (not null, not an array), so its fields can be read.
 * @example
 * isObject({ rows: [] }) // true
 * isObject([1, 2])       // false
 */
export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
