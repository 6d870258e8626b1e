/**
 * What the shape of a written word tells the offline model beyond its spelling: a capitalised
 * word in mid-sentence may be a name, a word in capitals is a code or a name, codes follow a
 * dimension word ("company 1000 and 2000"), and "that" / "it" point back at the question before.
 */
import type { Token } from './tokens.ts';
import type { Vocabulary } from './vocabulary.ts';

/** "that", "this": pointing back when they stand for a thing ("is that right?", "break that down"), not "lines that lack". */
const pointers = new Set(['that', 'this', 'those', 'these']);
const pointerVerbs = new Set(['is', 'was', 'are', 'were', 'break', 'split', 'show', 'compare', 'explain', 'explains', 'of', 'for', 'in', 'about', 'behind', 'down', 'with', 'by', 'to', 'does', 'did', 'do', 'make', 'see', 'check', 'give', 'list', 'on', 'at', 'from', 'caused', 'causes', 'drives', 'drove']);

/**
 * True when the question points back at the one before ("how big is that in EUR?", "break it down").
 *
 * @example
 * refersBack(['how', 'big', 'is', 'that']) // true
 * refersBack(['lines', 'that', 'lack', 'a', 'segment']) // false
 */
export function refersBack(words: readonly string[]): boolean {
  return words.some((word, at) => word === 'it' || word === 'them' || (pointers.has(word) && (at === 0 || pointerVerbs.has(words[at - 1]!))));
}

/**
 * "Apple" in mid-sentence of a question not written in capitals: it could be a name.
 *
 * @example
 * nameLike({ word: 'apple', original: 'Apple', opensSentence: false }, 'revenue for Apple') // true
 */
export function nameLike(token: Token, text: string): boolean {
  return !token.opensSentence && /^\p{Lu}\p{Ll}+$/u.test(token.original) && /\p{Ll}/u.test(text);
}

/**
 * "SAP", "IS": a word in capitals in a question that is not all capitals is a code or a name.
 *
 * @example
 * shouted({ word: 'sap', original: 'SAP', opensSentence: false }, 'revenue in SAP') // true
 */
export function shouted(token: Token, text: string): boolean {
  return token.original.length >= 2 && /^\p{Lu}+$/u.test(token.original) && /\p{Ll}/u.test(text);
}

/**
 * Codes right after a dimension word: "company 1000 and 2000", "PC1020", "account 6000000".
 *
 * @example
 * codesAfter(tokens, ['company', '1000', 'and', '2000'], 1, vocabulary) // [{ code: '1000', end: 2 }, { code: '2000', end: 4 }]
 */
export function codesAfter(tokens: readonly Token[], words: readonly string[], index: number, vocabulary: Vocabulary): { code: string; end: number }[] {
  const codes: { code: string; end: number }[] = [];
  let at = index;
  while (at < words.length) {
    const original = tokens[at]!.original;
    const known = vocabulary.byFirstWord.has(words[at]!) && !vocabulary.valueCodes.has(words[at]!);
    const looksLikeCode = !known && (/\d/.test(original) || /^[A-Z0-9_]{2,}$/.test(original) || vocabulary.valueCodes.has(words[at]!));
    if (!looksLikeCode || /^\d{7}$/.test(original) && /^20\d{5}$/.test(original) && !vocabulary.valueCodes.has(words[at]!)) break;
    codes.push({ code: vocabulary.valueCodes.has(words[at]!) ? canonical(original) : original.toUpperCase() === original ? original : original.toUpperCase(), end: at + 1 });
    at += 1;
    if ((words[at] === 'and' || words[at] === 'or') && at + 1 < words.length && /\d|^[A-Z0-9_]{2,}$/.test(tokens[at + 1]!.original)) at += 1;
    else break;
  }
  return codes;
}

/** Catalog codes are stored as written in the catalog; numbers and upper-case codes read the same. */
function canonical(original: string): string {
  return /^[a-z0-9_]+$/i.test(original) ? original.toUpperCase() : original;
}
