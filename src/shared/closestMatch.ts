/**
 * "Did you mean …?" for names a model or user got slightly wrong (sources, tools, values).
 */
import { distance } from 'fastest-levenshtein';

/** Inputs longer than this get no suggestion (and cost nothing to reject). */
const MAX_SUGGESTION_INPUT_CHARS = 256;

/**
 * Returns the choice closest to `input`, or undefined when nothing is reasonably close.
 * Case-insensitive; a choice that contains the input (or the reverse) counts as close,
 * so "fi" suggests "fi_reporting".
 */
export function closestMatch(input: string, choices: readonly string[]): string | undefined {
  // Edit distance costs length × length: an input far longer than any name is no misspelling of one.
  if (input.length > MAX_SUGGESTION_INPUT_CHARS) return undefined;
  const wanted = input.trim().toLowerCase();
  if (!wanted || choices.length === 0) return undefined;
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const choice of choices) {
    const candidate = choice.toLowerCase();
    if (candidate === wanted) return choice;
    const contained = candidate.includes(wanted) || wanted.includes(candidate);
    const relative = distance(wanted, candidate) / Math.max(wanted.length, candidate.length);
    // A prefix or fragment ("fi", "filter") is a strong hint; among several, the nearest wins.
    const score = contained ? relative / 4 : relative;
    if (score < bestScore) {
      bestScore = score;
      best = choice;
    }
  }
  // Beyond ~45% of the characters changed, a suggestion misleads more than it helps.
  return bestScore <= 0.45 ? best : undefined;
}

/**
 * The name in `names` that `input` misspells word for word ("Contoso Germny" → "Contoso Germany"),
 * or undefined. Stricter than closestMatch: every word of each must be close to a word of the
 * other, so sharing a word is no closeness ("Contoso XX" is not "Contoso DE", and "Contoso" alone
 * names none of the Contoso companies), and a hint never falls back to the only name there is.
 * @example
 * closestName('Contoso Germny', ['Contoso Germany', 'Contoso UK']) // 'Contoso Germany'
 * closestName('Contoso XX', ['Contoso DE']) // undefined
 */
export function closestName(input: string, names: readonly string[]): string | undefined {
  const words = wordsOf(input);
  const close = names.filter((name) => {
    const other = wordsOf(name);
    return words.every((word) => other.some((candidate) => similarWords(word, candidate))) && other.every((candidate) => words.some((word) => similarWords(word, candidate)));
  });
  return close.length ? closestMatch(input, close) : undefined;
}

const wordsOf = (text: string) => text.toLowerCase().split(/[\s,.]+/).filter(Boolean);

/** The same word, or a misspelling of it: at most ~45% of the characters changed, like closestMatch. */
function similarWords(a: string, b: string): boolean {
  return a === b || distance(a, b) / Math.max(a.length, b.length) <= 0.45;
}

/** Formats the standard hint: "Did you mean 'x'? Valid choices: a, b, c." */
export function suggestionHint(input: string, choices: readonly string[], limit = 30): string {
  const closest = closestMatch(input, choices);
  const listed = choices.slice(0, limit).map((c) => `'${c}'`).join(', ');
  const more = choices.length > limit ? ` (and ${choices.length - limit} more)` : '';
  return `${closest ? `Did you mean '${closest}'? ` : ''}Valid choices: ${listed}${more}.`;
}
