/**
 * Reads one question into an Understanding: every word is matched to something the
 * vocabulary knows (a source, a dimension, a value, a measure, a period, an intent), or
 * recognised as filler, or kept as a word it could not place. Misspellings are corrected to
 * the nearest vocabulary word first ("Octobr", "fi_reportin"), and the corrections are kept so
 * the answer can say how the question was read.
 */
import type { FilterValue, Understanding } from '../../skills/questionForms.ts';
import { readPeriod, type PeriodValue } from './periodReader.ts';
import { MAX_QUESTION_CHARACTERS, spellingOf, tokenize } from './tokens.ts';
import { longestPhrase, shapeOf, type Vocabulary } from './vocabulary.ts';
import { actionLeadIns, actionPhrases, actionVerbs, fillerWords, followUpOpeners } from './words.ts';

/** Words a finished question does not end on. */
const danglingWords = new Set(['and', 'to', 'from', 'between', 'for', 'of', 'in', 'by', 'with', 'vs', 'versus', 'than', 'at', 'the', 'or']);

/** Intents that qualify a question rather than name its kind: "and why?" is still a follow-up. */
export const qualifyingIntents = new Set(['why', 'thanks', 'net', 'meaning', 'year_to_date', 'trend']);

/** What the core needs beyond the slots: how the question was read, and what it asks of the core. */
export interface Reading extends Understanding {
  /** Misspellings read as another word: "octobr" → "october". */
  corrections: { from: string; to: string }[];
  /** Relative periods it cannot place ("last month"). */
  relativePeriods: string[];
  /** Subjects the catalog says the data does not hold, with the reason. */
  notHeld: { term: string; reason: string }[];
  /** A request to change data ("post a correcting entry"). */
  action: string | undefined;
  /** The question is longer than the model reads. */
  tooLong: boolean;
  /** The question ends in the middle ("… between October and"). */
  truncated: boolean;
  /** Words that name a kind, measure, grouping or source: such a question starts fresh. */
  complete: boolean;
  /** The question opens like a follow-up ("and …", "what about …", "same for …"). */
  elliptical: boolean;
}

/**
 * Reads a question.
 *
 * @example
 * understand('revenue of Contoso UK in Octobr', vocabulary)
 * // { filters: { group_account: 'G4000000', company: '3000', period: '2024010' }, corrections: [{ from: 'octobr', to: 'october' }], … }
 */
export function understand(text: string, vocabulary: Vocabulary): Reading {
  const tokens = tokenize(text);
  const corrections: Reading['corrections'] = [];
  const words = tokens.map((token) => {
    if (isKnown(token.word, vocabulary)) return token.word;
    const corrected = spellingOf(token.word, vocabulary.spellings);
    if (corrected) corrections.push({ from: token.original, to: corrected });
    return corrected ?? token.word;
  });
  const isValueCode = (word: string) => vocabulary.valueCodes.has(word);

  const sources: string[] = [];
  const dimensions: string[] = [];
  const groupBy: string[] = [];
  const values = new Map<string, string[]>();
  const periods: PeriodValue[] = [];
  const intents = new Set<string>();
  const unknown: string[] = [];
  const relativePeriods: string[] = [];
  const notHeld: Reading['notHeld'] = [];
  let measure: string | undefined;
  let measureIsGeneric = false;
  let grouping = false;

  const addValue = (dimension: string, found: string[]) => values.set(dimension, [...new Set([...(values.get(dimension) ?? []), ...found])]);
  for (let index = 0; index < words.length; ) {
    const word = words[index]!;
    const phrase = longestPhrase(vocabulary, words, index);
    // "profit centre PC1030", "company 4000": a dimension word, then codes the catalog may not list.
    if (phrase?.meaning.kind === 'dimension') {
      const codes = codesAfter(tokens, words, index + phrase.words.length, vocabulary);
      if (codes.length) {
        addValue(phrase.meaning.name, codes.map((c) => c.code));
        dimensions.push(phrase.meaning.name);
        index = codes.at(-1)!.end;
        continue;
      }
    }
    const period = phrase?.meaning.kind === 'source' || phrase?.meaning.kind === 'value' ? undefined : readPeriod(words, index, vocabulary.defaultYear, isValueCode);
    if (period) {
      periods.push(period.value);
      if (period.yearToDate) intents.add('year_to_date');
      index += period.length;
      grouping = false;
      continue;
    }
    if (phrase) {
      const meaning = phrase.meaning;
      switch (meaning.kind) {
        case 'source':
          if (!sources.includes(meaning.name)) sources.push(meaning.name);
          break;
        case 'dimension':
          dimensions.push(meaning.name);
          if (grouping) groupBy.push(meaning.name);
          break;
        case 'value':
          addValue(meaning.dimension, meaning.values);
          break;
        case 'measure':
          if (measure === undefined || (measureIsGeneric && !meaning.generic)) [measure, measureIsGeneric] = [meaning.name, meaning.generic];
          break;
        case 'intent':
          for (const name of meaning.names) intents.add(name);
          break;
        case 'relative_period':
          relativePeriods.push(phrase.words.join(' '));
          break;
        case 'not_held':
          notHeld.push({ term: phrase.words.join(' '), reason: meaning.reason });
          break;
        case 'group':
          grouping = true;
          index += phrase.words.length;
          continue;
      }
      // "by company and group account": the grouping goes on over "and" and commas.
      if (!(grouping && meaning.kind === 'dimension')) grouping = false;
      index += phrase.words.length;
      continue;
    }
    if (!(grouping && (word === 'and' || word === 'the'))) grouping = false;
    // "PC2020": a code shaped like one dimension's values (letters and digit count) is a value of it.
    const shaped = /\d/.test(word) ? vocabulary.codeShapes.get(shapeOf(tokens[index]!.original)) : undefined;
    if (shaped && shaped.length === 1) {
      addValue(shaped[0]!, [tokens[index]!.original.toUpperCase()]);
      index += 1;
      continue;
    }
    if (!fillerWords.has(word)) unknown.push(tokens[index]!.original);
    index += 1;
  }

  // "company 1000 or 2000" where the catalog names every company but not 2000 (absent, or outside
  // the key's scope): a tool answers a list with the rows of the values that exist, and an answer
  // "for company 1000, 2000" would name a value it had no row for. Such a code is asked back.
  for (const [dimension, found] of values) {
    const named = vocabulary.namedValues.get(dimension);
    if (!named || found.length < 2 || found.every((code) => named.has(code.toLowerCase()))) continue;
    unknown.push(...found.filter((code) => !named.has(code.toLowerCase())));
    const placed = found.filter((code) => named.has(code.toLowerCase()));
    if (placed.length) values.set(dimension, placed);
    else values.delete(dimension);
  }

  const filters: Record<string, FilterValue> = {};
  for (const [dimension, found] of values) if (dimension !== 'version') filters[dimension] = found.length === 1 ? found[0]! : found;
  const versions = values.get('version') ?? [];
  if (versions.length === 1) filters.version = versions[0]!;
  const points = periods.filter((p): p is { point: string } => 'point' in p).map((p) => p.point);
  const spans = periods.filter((p): p is { span: { from: string; to: string } } => 'span' in p).map((p) => p.span);
  if (spans.length === 1 && points.length === 0) filters.period = spans[0]!;
  else if (spans.length === 0 && points.length > 0) filters.period = points.length === 1 ? points[0]! : [...new Set(points)];
  else if (spans.length > 0) filters.period = { from: [...spans.map((s) => s.from), ...points].sort()[0]!, to: [...spans.map((s) => s.to), ...points].sort().at(-1)! };
  if (intents.has('trend') && !groupBy.includes('period')) groupBy.push('period');

  // "What is a delta load?", "how does currency translation work?", "what is the acquisition
  // layer for?": a question about meaning, not about figures.
  const [w0, w1, w2] = words;
  const noFigures = Object.keys(filters).length === 0 && measure === undefined;
  const noScope = filters.company === undefined && typeof filters.period !== 'object' && !/^\d{7}$/.test(String(filters.period ?? ''));
  if (
    (w0 === 'what' && (w1 === 'are' || (w1 === 'is' && (w2 === 'a' || w2 === 'an')))) ||
    (w0 === 'how' && (w1 === 'does' || w1 === 'do' || w1 === 'is' || w1 === 'are') && noScope && sources.length < 2) ||
    (w0 === 'what' && (w1 === 'is' || w1 === 'are') && sources.length > 0 && noFigures) ||
    // "Why shouldn't I add up USD and EUR?": a why about no data in particular is a question about rules.
    (w0 === 'why' && noScope && sources.length === 0 && !intents.has('net'))
  ) {
    intents.add('meaning');
  }
  const first = words.find((word) => !actionLeadIns.has(word));
  const joined = ` ${words.join(' ')} `;
  const action = (first && actionVerbs.has(first) ? first : undefined) ?? actionPhrases.find((phrase) => joined.includes(` ${phrase} `));
  const kindIntents = [...intents].filter((intent) => !qualifyingIntents.has(intent));
  return {
    text,
    sources,
    measure,
    filters,
    groupBy: [...new Set(groupBy)],
    dimensions: [...new Set(dimensions)],
    versions,
    periods: points,
    intents,
    unknown,
    corrections,
    relativePeriods,
    notHeld,
    action,
    tooLong: text.length > MAX_QUESTION_CHARACTERS,
    // "revenue between October and": the question was cut off; answering the part would broaden it.
    truncated: words.length > 0 && danglingWords.has(words.at(-1)!) && !/[?.!]\s*$/.test(text),
    complete: kindIntents.length > 0 || measure !== undefined || groupBy.length > 0,
    elliptical: (followUpOpeners.has(words[0] ?? '') || ((words[0] === 'what' || words[0] === 'how') && words[1] === 'about')) && words.length <= 12,
  };
}

function isKnown(word: string, vocabulary: Vocabulary): boolean {
  return vocabulary.words.has(word) || fillerWords.has(word) || actionVerbs.has(word) || /\d/.test(word) || word.length < 4;
}

/** Codes right after a dimension word: "company 1000 and 2000", "PC1020", "account 6000000". */
function codesAfter(tokens: ReturnType<typeof tokenize>, words: readonly string[], index: number, vocabulary: Vocabulary): { code: string; end: number }[] {
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
