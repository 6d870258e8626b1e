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
  /** First word of the question or of a sentence in it: a capital there names nothing. */
  opensSentence: boolean;
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
  let end = 0;
  for (const match of normalised.matchAll(tokenPattern)) {
    const whole = match[0];
    const opensSentence = tokens.length === 0 || /[.?!:;\n"“(]/.test(normalised.slice(end, match.index));
    end = match.index + whole.length;
    let parts = periodLike.test(whole) || /^\d+(?:\.\d+)+$/.test(whole) ? [whole] : whole.split(/[-/]/);
    // "jan-mar": two months joined by a hyphen are a range.
    if (parts.length === 2 && /-/.test(whole) && parts.every((part) => part.length >= 3 && monthNumber(part) !== undefined)) parts = [parts[0]!, 'to', parts[1]!];
    // "periods 1-3": two small numbers joined by a hyphen are a range too.
    if (parts.length === 2 && /-/.test(whole) && parts.every((part) => /^\d{1,2}$/.test(part))) parts = [parts[0]!, 'to', parts[1]!];
    for (const [index, part] of parts.entries()) {
      const original = part.replace(/['’]s$/i, '').replace(/\.+$/, '');
      const word = original.toLowerCase();
      if (original) tokens.push({ word: abbreviations[word] ?? word, original, opensSentence: opensSentence && index === 0 });
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
 * four to six letters, two for longer ones, a swap of two neighbouring letters counting as one
 * edit ("bugdet", "hihgest"). Of equally close candidates, the one sharing more of the word's
 * letters wins ("compair": "compare" over "company"); two of different meanings that share as
 * many are a tie, and a tie is no correction. Candidates of one meaning are no tie
 * ("duplicats": "duplicates" or "duplicate", the one ending like the word). A word holding a
 * digit is never guessed ("PC1060" must not become "PC1010"). `vocabulary` maps each
 * candidate to what it means; `accept` keeps only candidates of some meanings.
 *
 * @example
 * spellingOf('octobr', new Map([['october', 'october'], ['november', 'november']])) // 'october'
 */
export function spellingOf(word: string, vocabulary: ReadonlyMap<string, string>, accept: (meaning: string) => boolean = () => true): string | undefined {
  if (word.length < 4 || /\d/.test(word)) return undefined;
  const allowed = word.length <= 6 ? 1 : 2;
  let closest: string[] = [];
  let bestDistance = allowed;
  for (const [candidate, meaning] of vocabulary) {
    if (Math.abs(candidate.length - word.length) > allowed || candidate.length < 4 || /\d/.test(candidate) || !accept(meaning)) continue;
    let d = distance(word, candidate);
    // A swap costs two plain edits: only then is the slower count with swaps worth it.
    if (d > 1 && d <= 2 * allowed) d = distanceWithSwaps(word, candidate);
    if (d > bestDistance) continue;
    if (d < bestDistance) [closest, bestDistance] = [[], d];
    closest.push(candidate);
  }
  if (closest.length === 0) return undefined;
  const shared = (candidate: string) => sharedLetters(word, candidate);
  const most = Math.max(...closest.map(shared));
  const best = closest.filter((candidate) => shared(candidate) === most);
  if (new Set(best.map((candidate) => vocabulary.get(candidate))).size > 1) return undefined;
  return best.find((candidate) => candidate.at(-1) === word.at(-1)) ?? best[0];
}

/** Edit distance where swapping two neighbouring letters is one edit (optimal string alignment). */
function distanceWithSwaps(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/** How many letters two words share, counted with repeats. */
function sharedLetters(a: string, b: string): number {
  const counts = new Map<string, number>();
  for (const letter of a) counts.set(letter, (counts.get(letter) ?? 0) + 1);
  let shared = 0;
  for (const letter of b) {
    const left = counts.get(letter) ?? 0;
    if (left === 0) continue;
    counts.set(letter, left - 1);
    shared += 1;
  }
  return shared;
}
