/**
 * Bounded echoes: a name a client sent (a tool name, a URL path) is shown in errors and log lines
 * cut to a fixed length, so one request with a 60,000-character name cannot make a 60 KB answer
 * or log line, and a log reader still sees where it began.
 */

/** How many characters of a client's name an error or log line shows. */
export const DISPLAY_NAME_CHARS = 100;

/**
 * `text` when it is at most `max` characters (Unicode code points), else its first `max - 1` and
 * an ellipsis, never cutting a character in two.
 * @example
 * truncateForDisplay('query_source'); // 'query_source'
 * truncateForDisplay('x'.repeat(60_000)).length; // 100 ('xxx…x…')
 */
export function truncateForDisplay(text: string, max = DISPLAY_NAME_CHARS): string {
  // Cheap first test: UTF-16 length is never less than the code point count.
  if (text.length <= max) return text;
  const characters = Array.from(text.slice(0, max * 2));
  return characters.length <= max && text.length <= max * 2 ? text : `${characters.slice(0, max - 1).join('')}…`;
}
