/**
 * Everything the offline model can recognise, as phrases of words with what each means:
 * source names and aliases, dimension names and synonyms, value codes and business labels,
 * measure names and synonyms, subjects the data does not hold (all from the catalog), and the
 * intent words of the core and of every question form. Built once per catalog and form set.
 */
import type { Catalog } from '../../catalog/catalog.ts';
import { parsePeriod, type PeriodCalendar } from '../../catalog/periods.ts';
import type { QuestionForm } from '../../skills/questionForms.ts';
import { phraseWords } from './tokens.ts';
import { coreIntents, fillerWords, groupMarkers, meaningWords, relativePeriodPhrases } from './words.ts';

export type Meaning =
  | { kind: 'source'; name: string }
  | { kind: 'dimension'; name: string }
  | { kind: 'value'; dimension: string; values: string[] }
  | { kind: 'measure'; name: string; generic: boolean }
  | { kind: 'intent'; names: string[] }
  | { kind: 'group' }
  | { kind: 'relative_period' }
  | { kind: 'not_held'; reason: string };

export interface Phrase {
  words: string[];
  meaning: Meaning;
}

export interface Vocabulary {
  /** Phrases by their first word, longest first. */
  byFirstWord: Map<string, Phrase[]>;
  /** Every word of every phrase, filler and month names: words it knows. */
  words: Set<string>;
  /**
   * What a misspelling is corrected to, with what each word means ("catalog:…", "intent:…",
   * "meaning:…", "filler"): the catalog's words, month names, intent and meaning-changing
   * words and filler. Only words no dictionary knows are corrected, so "talking" never
   * becomes "lacking"; a capitalised word in mid-sentence only to a catalog word (a name).
   */
  spellings: Map<string, string>;
  /** Words of the catalog's names: one found alone ("Contoso") is asked back, never filler. */
  catalogWords: Set<string>;
  /** The fiscal year a month or quarter named without one belongs to: the latest the catalog's periods show. */
  defaultYear: number;
  /** Every year the catalog's periods show, ascending: "period 6" needs one, or a question back. */
  years: number[];
  /**
   * How the catalog's periods are spelt and when its fiscal year starts: "April 2025" is the
   * fiscal period April falls in, "202504" a month where the data stores calendar months.
   */
  calendar: PeriodCalendar;
  /** Value codes of the catalog (lower case), so a bare "2000" reads as company 2000, not as a year. */
  valueCodes: Set<string>;
  /** Shapes of the catalog's codes that hold a digit ("PC9999") → the dimensions whose values have it. */
  codeShapes: Map<string, string[]>;
  /**
   * Dimensions whose values the catalog names (company, currency, …) → their codes (lower case):
   * the whole list, so a code outside it names nothing the model can answer for.
   */
  namedValues: Map<string, Set<string>>;
}

const monthWords = ['january', 'february', 'march', 'april', 'june', 'july', 'august', 'september', 'october', 'november', 'december', 'quarter', 'half', 'year', 'period'];

/**
 * Builds the vocabulary of a catalog and a set of question forms.
 *
 * @example
 * const vocabulary = buildVocabulary(catalog, forms);
 * vocabulary.byFirstWord.get('contoso') // phrases such as "contoso uk ltd" → company 3000
 */
export function buildVocabulary(catalog: Catalog, forms: readonly QuestionForm[]): Vocabulary {
  const phrases = new Map<string, Phrase>();
  const valueCodes = new Set<string>();
  const codeShapes = new Map<string, string[]>();
  const namedValues = new Map<string, Set<string>>();
  const add = (text: string, meaning: Meaning) => {
    const words = phraseWords(text);
    if (words.length === 0) return;
    const key = words.join(' ');
    const existing = phrases.get(key);
    // One label for several values ("intercompany" on both intercompany accounts), or one phrase
    // for several intents ("month over month": the core's trend and a form's own): all of them.
    if (existing?.meaning.kind === 'value' && meaning.kind === 'value' && existing.meaning.dimension === meaning.dimension) {
      existing.meaning.values = [...new Set([...existing.meaning.values, ...meaning.values])];
      return;
    }
    if (existing?.meaning.kind === 'intent' && meaning.kind === 'intent') {
      existing.meaning.names = [...new Set([...existing.meaning.names, ...meaning.names])];
      return;
    }
    if (!existing || priority(meaning) < priority(existing.meaning)) phrases.set(key, { words, meaning });
  };

  for (const source of catalog.sources.values()) {
    for (const name of [source.name, source.name.replace(/_/g, ' '), ...source.aliases]) add(name, { kind: 'source', name: source.name });
    for (const dimension of source.dimensions.values()) {
      for (const word of [dimension.name, dimension.name.replace(/_/g, ' '), ...dimension.synonyms]) add(word, { kind: 'dimension', name: dimension.name });
      if (dimension.type === 'period') continue;
      const codes = new Set([...dimension.examples, ...dimension.values.keys()]);
      for (const code of codes) {
        add(code, { kind: 'value', dimension: dimension.name, values: [code] });
        valueCodes.add(code.toLowerCase());
        if (/\d/.test(code) && /[A-Za-z]/.test(code)) {
          const shape = shapeOf(code);
          codeShapes.set(shape, [...new Set([...(codeShapes.get(shape) ?? []), dimension.name])]);
        }
      }
      for (const [code, labels] of dimension.values) for (const label of labels) add(label, { kind: 'value', dimension: dimension.name, values: [code] });
      if (dimension.values.size) namedValues.set(dimension.name, new Set([...(namedValues.get(dimension.name) ?? []), ...[...dimension.values.keys()].map((code) => code.toLowerCase())]));
    }
    for (const measure of source.measures.values()) {
      // "result", "value": everyday words for the default measure give way to a specific one ("translated to EUR").
      const isDefault = source.defaultMeasures.includes(measure.name);
      // "FI amount in group currency": a default measure's one-word name ("amount") is everyday
      // English too, and gives way to a measure named more precisely.
      const everyday = isDefault && !measure.name.includes('_');
      for (const word of [measure.name, measure.name.replace(/_/g, ' ')]) add(word, { kind: 'measure', name: measure.name, generic: everyday });
      for (const word of measure.synonyms) add(word, { kind: 'measure', name: measure.name, generic: isDefault });
    }
  }
  for (const subject of catalog.notHeld) for (const term of subject.terms) add(term, { kind: 'not_held', reason: subject.reason });
  for (const [intent, words] of Object.entries(coreIntents)) for (const word of words) add(word, { kind: 'intent', names: [intent] });
  for (const form of forms) for (const [intent, words] of Object.entries(form.intents ?? {})) for (const word of words) add(word, { kind: 'intent', names: [intent] });
  for (const marker of groupMarkers) add(marker, { kind: 'group' });
  for (const phrase of relativePeriodPhrases) add(phrase, { kind: 'relative_period' });

  const byFirstWord = new Map<string, Phrase[]>();
  for (const phrase of phrases.values()) {
    const list = byFirstWord.get(phrase.words[0]!) ?? [];
    list.push(phrase);
    byFirstWord.set(phrase.words[0]!, list);
  }
  for (const list of byFirstWord.values()) list.sort((x, y) => y.words.length - x.words.length);
  const words = new Set([...[...phrases.values()].flatMap((p) => p.words), ...fillerWords, ...monthWords]);
  const catalogPhrases = [...phrases.values()].filter((p) => p.meaning.kind !== 'intent' && p.meaning.kind !== 'group' && p.meaning.kind !== 'relative_period');
  const catalogWords = new Set(catalogPhrases.flatMap((p) => p.words).filter((word) => !fillerWords.has(word)));
  // First meaning wins: a word of the catalog is corrected as a catalog word.
  const spellings = new Map<string, string>();
  const spell = (word: string, meaning: string) => spellings.has(word) || spellings.set(word, meaning);
  for (const word of [...catalogWords, ...monthWords]) spell(word, `catalog:${word}`);
  for (const phrase of phrases.values()) if (phrase.meaning.kind === 'intent') for (const word of phrase.words) spell(word, `intent:${phrase.meaning.names.join(',')}`);
  for (const phrases of Object.values(meaningWords)) for (const word of phrases.flatMap(phraseWords)) spell(word, `meaning:${word}`);
  for (const word of fillerWords) spell(word, 'filler');
  const allYears = years(catalog);
  return { byFirstWord, words, spellings, catalogWords, defaultYear: allYears.at(-1) ?? new Date().getFullYear(), years: allYears, valueCodes, codeShapes, namedValues, calendar: catalog.periodCalendar };
}

/** When one phrase means two things, the more specific wins: a source name over a value over a measure… */
function priority(meaning: Meaning): number {
  return ['source', 'not_held', 'value', 'measure', 'dimension', 'relative_period', 'intent', 'group'].indexOf(meaning.kind);
}

function years(catalog: Catalog): number[] {
  const found = [...catalog.sources.values()].flatMap((source) =>
    // Fiscal years: "202603" is March 2026, in fiscal 2025 when the year starts in April.
    [...source.dimensions.values()].filter((d) => d.type === 'period').flatMap((d) => d.examples.map((e) => Number((parsePeriod(e, d.calendar) ?? e).slice(0, 4)))),
  );
  return [...new Set(found.filter(Number.isFinite))].sort((x, y) => x - y);
}

/** "PC2020" → "PC9999": letters kept, digits masked, so codes of one family share a shape. */
export function shapeOf(code: string): string {
  return code.toUpperCase().replace(/\d/g, '9');
}

/**
 * The longest phrase starting at `index`, if any.
 *
 * @example
 * longestPhrase(vocabulary, ['profit', 'centre', 'pc1020'], 0) // { words: ['profit', 'centre'], meaning: dimension profit_center }
 */
export function longestPhrase(vocabulary: Vocabulary, words: readonly string[], index: number): Phrase | undefined {
  for (const phrase of vocabulary.byFirstWord.get(words[index]!) ?? []) {
    if (phrase.words.every((word, offset) => words[index + offset] === word)) return phrase;
  }
  return undefined;
}
