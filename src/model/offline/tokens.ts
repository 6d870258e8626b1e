/**
 * Words of a question, as the offline model reads them: lower-cased tokens that keep the
 * spellings people use for periods and codes ("2024-12", "dec-24", "12/2024", "P&L",
 * "SEG_RET") whole and split everything else on hyphens and slashes, so "group-currency"
 * reads like "group currency". Linear in the input, and the input is bounded: a question can
 * never make the parser slow.
 */
import { distance } from 'fastest-levenshtein';
import { monthNumber } from '../../catalog/periods.ts';

export interface Token {
  /** Lower-cased word, possessive "'s" removed. */
  word: string;
  /** The word as written. */
  original: string;
}

/** Short forms read as the word they stand for. */
const abbreviations: Record<string, string> = { yr: 'year', yrs: 'year', mth: 'month', mths: 'month', qtr: 'quarter', amt: 'amount', whats: 'what' };

/** Longer questions are asked back to be shortened, so no input can make reading it slow. */
export const MAX_QUESTION_CHARACTERS = 2_000;

// One alternation per token shape, each with a fixed first character class: linear time.
const tokenPattern = /[\p{L}\p{N}_&]+(?:[-/.'’][\p{L}\p{N}_&]+)*/gu;
/** Period spellings kept whole: 2024-12, 2024/12, 2024.12, 12/2024, 12.2024, dec-24, dec'24. */
const periodLike = /^(?:\d{4}[-/.]\d{1,3}|\d{1,3}[-/.]\d{4}|[a-z]{3,9}[-'’]\d{2})$/i;

/**
 * Splits text into tokens.
 *
 * @example
 * tokenize("Contoso UK's group-currency total for Dec-24").map((t) => t.word)
 * // ['contoso', 'uk', 'group', 'currency', 'total', 'for', 'dec-24']
 */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  // "Jan–Mar" is a range; a lone "#" is SAP's "not assigned".
  const normalised = text
    .slice(0, MAX_QUESTION_CHARACTERS)
    .replace(/\s*[–—]\s*/g, ' to ')
    .replace(/(^|\s)#(?=\s|$|[?.,;:!])/g, '$1notassigned')
    .replace(/\.?['’]s\b/g, '');
  for (const match of normalised.matchAll(tokenPattern)) {
    const whole = match[0];
    let parts = periodLike.test(whole) || /^\d+(?:\.\d+)+$/.test(whole) ? [whole] : whole.split(/[-/]/);
    // "jan-mar": two months joined by a hyphen are a range.
    if (parts.length === 2 && /-/.test(whole) && parts.every((part) => part.length >= 3 && monthNumber(part) !== undefined)) parts = [parts[0]!, 'to', parts[1]!];
    for (const part of parts) {
      const original = part.replace(/['’]s$/i, '').replace(/\.+$/, '');
      const word = original.toLowerCase();
      if (original) tokens.push({ word: abbreviations[word] ?? word, original });
    }
  }
  return tokens;
}

/** The words of a phrase, tokenized like a question. */
export function phraseWords(phrase: string): string[] {
  return tokenize(phrase).map((token) => token.word);
}

/**
 * The vocabulary word a misspelt word most likely stands for: one edit away for words of
 * four to six letters, two for longer ones; none when two candidates are equally close or the
 * word holds a digit (a code is never guessed: "PC1060" must not become "PC1010").
 *
 * @example
 * spellingOf('octobr', new Set(['october', 'november'])) // 'october'
 */
export function spellingOf(word: string, vocabulary: ReadonlySet<string>): string | undefined {
  if (word.length < 4 || /\d/.test(word)) return undefined;
  const allowed = word.length <= 6 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = allowed + 1;
  let tie = false;
  for (const candidate of vocabulary) {
    if (Math.abs(candidate.length - word.length) > allowed || candidate.length < 4 || /\d/.test(candidate)) continue;
    const d = distance(word, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
      tie = false;
    } else if (d === bestDistance && candidate !== best) {
      tie = true;
    }
  }
  return best !== undefined && bestDistance <= allowed && !tie ? best : undefined;
}
