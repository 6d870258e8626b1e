/**
 * The meaning-changing words of a question (the closed list in words.ts) that no vocabulary
 * phrase took: each one found here stops the question, and the question back names it. Also
 * reads the count of a ranking ("top 3", "the five largest"), so forms never re-read the text.
 * Linear in the words: every lookup is by the word at hand.
 */
import { meaningWords, numberWords, type MeaningKind } from './words.ts';
import { phraseWords } from './tokens.ts';

export interface MeaningMatch {
  /** The words as the question has them, e.g. "more than". */
  phrase: string;
  kind: MeaningKind;
  length: number;
}

/** The meaning phrases by their first word, longest first; built on the first question (not at every start). */
let byFirstWord: Map<string, { words: string[]; kind: MeaningKind }[]> | undefined;
function phrasesStartingWith(word: string): { words: string[]; kind: MeaningKind }[] {
  if (!byFirstWord) {
    byFirstWord = new Map();
    for (const [kind, phrases] of Object.entries(meaningWords) as [MeaningKind, string[]][]) {
      for (const phrase of phrases) {
        const words = phraseWords(phrase);
        if (!words.length) continue;
        const list = byFirstWord.get(words[0]!) ?? [];
        list.push({ words, kind });
        byFirstWord.set(words[0]!, list);
      }
    }
    for (const list of byFirstWord.values()) list.sort((x, y) => y.words.length - x.words.length);
  }
  return byFirstWord.get(word) ?? [];
}
const rankingWords = new Set(meaningWords.ranking);

/** Prepositions that put a negation on a scope: "not in BPC", "isn't included". */
const scopeWords = new Set(['in', 'from', 'for', 'including', 'include', 'includes', 'included', 'counting', 'counted', 'incl', 'within', 'part', 'among', 'on']);
const articles = new Set(['a', 'an', 'the', 'any']);

/** What the question around a word says: where a scope starts, and whether a comparison was read. */
export interface MeaningContext {
  /** What starts at `at`: a catalog 'source', 'value', 'dimension' or 'measure', a 'code' or a 'period'; undefined for anything else. */
  scopeAt(at: number): string | undefined;
  /** A form's intent was read before this word ("higher", "different"): a later "than" belongs to it. */
  compared: boolean;
}

/**
 * The meaning-changing phrase at `index` that changes the figures here, if any.
 *
 * @example
 * meaningAt(['the', 'highest', 'month'], 1, { scopeAt: () => undefined, compared: false }) // { phrase: 'highest', kind: 'ranking', length: 1 }
 * meaningAt(['does', 'fi', 'not', 'match'], 2, { scopeAt: () => undefined, compared: false }) // undefined: "not" negates the verb
 */
export function meaningAt(words: readonly string[], index: number, { scopeAt, compared }: MeaningContext): MeaningMatch | undefined {
  const word = words[index]!;
  // "isn't in BPC": a contraction is the negation of a verb, unless a scope follows it.
  if (/n['’]t$/.test(word)) return scopeWords.has(words[index + 1] ?? '') ? { phrase: word, kind: 'exclusion', length: 1 } : undefined;
  const match = phrasesStartingWith(word).find((phrase) => phrase.words.every((w, offset) => words[index + offset] === w));
  if (!match) return undefined;
  const next = (from: number) => {
    let at = from;
    while (articles.has(words[at] ?? '')) at += 1;
    return at;
  };
  const after = next(index + 1);
  if (word === 'not' && match.words.length === 1 && !(scopeWords.has(words[after] ?? '') || scopeAt(after))) return undefined;
  // "only the manual entries" is a filter like any other; "only in FI" asks for one side.
  if (word === 'only' && match.words.length === 1 && !((words[index + 1] === 'in' || words[index + 1] === 'on') && scopeAt(next(index + 2)) === 'source')) return undefined;
  if (word === 'than' && (compared || ['different', 'differently', 'rather'].includes(words[index - 1] ?? ''))) return undefined;
  // "so far under budget", "so far off": a degree, not "up to now".
  if (match.words.join(' ') === 'so far' && ['under', 'over', 'below', 'above', 'behind', 'ahead', 'off', 'out', 'short', 'from', 'apart'].includes(words[index + 2] ?? '')) return undefined;
  if (word === 'share' && words[index + 1] !== 'of' && !['what', 'the', 'a', 'its', 'their', 'which'].includes(words[index - 1] ?? '')) return undefined;
  return { phrase: words.slice(index, index + match.words.length).join(' '), kind: match.kind, length: match.words.length };
}

/**
 * The count of a ranking, when the word at `index` is a number next to a ranking word: "top 3",
 * "3 largest", "the five biggest". Numbers up to 100 only: larger ones are codes or amounts.
 *
 * @example
 * countAt(['top', '3', 'accounts'], 1) // 3
 * countAt(['company', '3'], 1) // undefined
 */
export function countAt(words: readonly string[], index: number): number | undefined {
  const word = words[index]!;
  const value = /^\d{1,3}$/.test(word) ? Number(word) : numberWords[word];
  if (value === undefined || value < 1 || value > 100) return undefined;
  return rankingWords.has(words[index - 1] ?? '') || rankingWords.has(words[index + 1] ?? '') ? value : undefined;
}
