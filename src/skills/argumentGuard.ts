/**
 * A size check on tool arguments that runs before any tool's own schema: every string (object
 * keys included) within MAX_ANY_ARGUMENT_CHARS, nesting and element counts bounded. Tools
 * declare tighter limits themselves (src/shared/inputLimits.ts); this ceiling keeps a skill
 * whose schema forgot one from handing megabytes of text to its parsers on the event loop.
 */
import { MAX_ANY_ARGUMENT_CHARS } from '../shared/inputLimits.ts';
import { truncateForDisplay } from '../shared/truncate.ts';

/** Deeper nesting than this is refused: no tool argument is nested more than a few levels. */
const MAX_DEPTH = 16;
/** Values (strings, numbers, objects, array elements…) looked at in one argument object. */
const MAX_NODES = 20_000;
/** Path segments are cut to this many characters in messages (a key may be the oversized string). */
const MAX_SEGMENT_CHARS = 40;

export interface ArgumentIssue {
  path: string;
  message: string;
}

/**
 * The first argument over the limits, or undefined when every one is within them. Linear in
 * the size of `value` and stops at the first problem.
 * @example
 * oversizedArgument({ filters: { period: ' '.repeat(5000) } });
 * // { path: 'filters.period', message: 'is 5000 characters long; at most 2000 are accepted' }
 */
export function oversizedArgument(value: unknown, maxChars = MAX_ANY_ARGUMENT_CHARS): ArgumentIssue | undefined {
  const stack: { value: unknown; path: string[] }[] = [{ value, path: [] }];
  let nodes = 0;
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    nodes += 1;
    if (nodes > MAX_NODES) return { path: pathText(path), message: `the arguments hold more than ${MAX_NODES} values` };
    if (typeof current === 'string') {
      if (current.length > maxChars) return { path: pathText(path), message: `is ${current.length} characters long; at most ${maxChars} are accepted` };
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (path.length >= MAX_DEPTH) return { path: pathText(path), message: `is nested more than ${MAX_DEPTH} levels deep` };
    if (Array.isArray(current)) {
      current.forEach((item, index) => stack.push({ value: item, path: [...path, String(index)] }));
      continue;
    }
    for (const [key, item] of Object.entries(current)) {
      if (key.length > maxChars) return { path: pathText([...path, key]), message: `this name is ${key.length} characters long; at most ${maxChars} are accepted` };
      stack.push({ value: item, path: [...path, key] });
    }
  }
  return undefined;
}

/**
 * A path for messages: segments joined with dots, each cut so an oversized key cannot make
 * the error itself oversized.
 * @example
 * pathText(['filters', 'x'.repeat(500)]); // 'filters.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…'
 */
export function pathText(path: readonly (string | number | symbol)[]): string {
  return path.map((segment) => truncateForDisplay(String(segment), MAX_SEGMENT_CHARS + 1)).join('.');
}
