/**
 * Reads one question into an Understanding: every word is matched to something the
 * vocabulary knows (a source, a dimension, a value, a measure, a period, an intent), or
 * recognised as filler (the project's own list, then ordinary English from the word list),
 * or kept as a word it could not place. A meaning-changing word (words.ts) no phrase took is
 * kept too, with why it stops the question. Misspellings are corrected to the nearest
 * vocabulary word first ("Octobr", "fi_reportin", "totl"), and the corrections are kept so
 * the answer can say how the question was read.
 */
import { describePeriod, formatPeriod } from '../../catalog/periods.ts';
import type { FilterValue, Understanding } from '../../skills/questionForms.ts';
import { isEnglishWord } from './lexicon.ts';
import { countAt, meaningAt } from './meaning.ts';
import { readPeriod, type PeriodMatch, type PeriodValue } from './periodReader.ts';
import { MAX_QUESTION_CHARACTERS, spellingOf, tokenize } from './tokens.ts';
import { codesAfter, nameLike, refersBack, shouted } from './wordShapes.ts';
import { longestPhrase, shapeOf, type Vocabulary } from './vocabulary.ts';
import { actionLeadIns, actionPhrases, actionVerbs, breakdownMarkers, fillerWords, followUpOpeners, meaningKinds, meaningWords, numberWords } from './words.ts';

/** Ranking words: a noun follows them ("top accounts"), never a verb. */
const rankingWords = new Set(meaningWords.ranking);
/** Exclusion words that leave a value out when one follows them ("only", "minus" and "ex" do other things). */
const exclusionWords = new Set(meaningWords.exclusion.filter((word) => !['only', 'minus', 'ex'].includes(word)));

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
  /** Words that stop the question, with why ("'highest' asks for a ranking"); each is in `unknown` too. */
  stops: { phrase: string; reason: string }[];
  /** Ordinary words written like names ("Apple" in mid-sentence) that the answer did not use. */
  ignored: string[];
  /** Its periods, when none names a year ("Q2", "H2", "January", "P6"): dated by the question before. */
  undated: string[];
  /** It points back ("how big is that in EUR?", "break it down"): a follow-up of the question before. */
  refersBack: boolean;
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
  const guesses = new Map<string, string | undefined>();
  const words = tokens.map((token) => {
    // A code ("S_CONSO") is never guessed into a word.
    if (isKnown(token.word, vocabulary) || /^[A-Z0-9]+_[A-Z0-9_]+$/.test(token.original)) return token.word;
    // A capitalised word in mid-sentence may be a name: read as a catalog name or not at all.
    const asName = nameLike(token, text);
    const key = `${asName}:${token.word}`;
    if (!guesses.has(key)) guesses.set(key, spellingOf(token.word, vocabulary.spellings, asName ? (meaning) => meaning.startsWith('catalog:') : undefined));
    const corrected = guesses.get(key);
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
  const stops: Reading['stops'] = [];
  const ignored: string[] = [];
  const impliedVersions: string[] = [];
  const undated: string[] = [];
  const ordinaryWords: string[] = [];
  let measure: string | undefined;
  let measureIsGeneric = false;
  let grouping = false;
  let count: number | undefined;
  // Breakdown markers ("split", "per", "every"), whether a dimension was grouped by each, and
  // the dimension named right before it ("the segment split").
  const markers: { phrase: string; grouped: boolean; before: string | undefined }[] = [];
  let lastDimension: { name: string; end: number } | undefined;
  let lastValueEnd = -1;
  // An exclusion word just read ("excluding"), and the values it left out.
  let excluding: string | undefined;
  const exclusions: { phrase: string; dimension: string; values: string[] }[] = [];
  const stop = (at: number, length: number, reason: string) => {
    const phrase = tokens.slice(at, at + length).map((t) => t.original).join(' ');
    stops.push({ phrase, reason: `'${phrase}' ${reason}` });
    unknown.push(phrase);
  };
  const datePeriod = (match: PeriodMatch, at: number) => {
    if (match.ambiguousYear !== undefined) return stop(at, match.length, ambiguousYearReason(match.ambiguousYear, vocabulary.calendar.fiscalYearStart));
    periods.push(match.value);
    // Dated later: by the question before, or asked back when the data holds several years.
    if (match.undated) undated.push(tokens.slice(at, at + match.length).map((t) => t.original).join(' '));
  };
  // What starts at `at` (a catalog name, a code, a period): "not" before one excludes it.
  const scopeAt = (at: number) => {
    if (at >= words.length) return undefined;
    const kind = longestPhrase(vocabulary, words, at)?.meaning.kind;
    if (kind === 'source' || kind === 'value' || kind === 'dimension' || kind === 'measure') return kind;
    if (/\d/.test(words[at]!)) return 'code';
    return readPeriod(words, at, vocabulary.defaultYear, isValueCode, vocabulary.calendar) ? 'period' : undefined;
  };

  const addValue = (dimension: string, found: string[]) => values.set(dimension, [...new Set([...(values.get(dimension) ?? []), ...found])]);
  for (let index = 0; index < words.length; ) {
    const word = words[index]!;
    // "top 3", "the five largest": the count of a ranking, not a code.
    const counted = count === undefined ? countAt(words, index) : undefined;
    if (counted !== undefined) {
      count = counted;
      index += 1;
      continue;
    }
    const longest = longestPhrase(vocabulary, words, index);
    // "per account for company 1000": after a group marker a dimension is grouped by, not the start of "account for" (why).
    // So after a ranking word, a count or a value ("top 3 accounts for 1000", "expense accounts for 1000").
    const previousWord = words[index - 1] ?? '';
    const named = lastValueEnd === index || rankingWords.has(previousWord) || /^\d+$/.test(previousWord) || previousWord in numberWords;
    const phrase = (grouping || named) && longest?.meaning.kind === 'intent' ? ((vocabulary.byFirstWord.get(word) ?? []).find((p) => p.meaning.kind === 'dimension' && p.words.every((w, at) => words[index + at] === w)) ?? longest) : longest;
    // "without the manual adjustment": a value left out; "without a profit centre" stays a check for blanks.
    const leavingOut = phrase?.meaning.kind === 'intent' && phrase.words.length === 1 && exclusionWords.has(word) && longestPhrase(vocabulary, words, skipArticles(words, index + 1))?.meaning.kind === 'value';
    if (leavingOut) {
      excluding = tokens[index]!.original;
      index = skipArticles(words, index + 1);
      continue;
    }
    // "profit centre PC1030", "company 4000": a dimension word, then codes the catalog may not list.
    if (phrase?.meaning.kind === 'dimension') {
      // "period 6", "posting period 6 2024": a period number, not a code.
      const last = index + phrase.words.length - 1;
      // Special periods 13-16 are asked about as a concept ("what are special periods 13 to 16?"): left to the codes.
      const month = Number(/^\d{1,2}$/.test(words[last + 1] ?? '') ? words[last + 1] : 0);
      const numbered = (words[last] === 'period' || words[last] === 'periods') && month >= 1 && month <= 12 ? readPeriod(words, last, vocabulary.defaultYear, isValueCode, vocabulary.calendar) : undefined;
      if (numbered) {
        datePeriod(numbered, last);
        dimensions.push(phrase.meaning.name);
        index = last + numbered.length;
        grouping = false;
        continue;
      }
      const codes = codesAfter(tokens, words, index + phrase.words.length, vocabulary);
      if (codes.length) {
        addValue(phrase.meaning.name, codes.map((c) => c.code));
        dimensions.push(phrase.meaning.name);
        index = codes.at(-1)!.end;
        continue;
      }
    }
    const period = phrase?.meaning.kind === 'source' || phrase?.meaning.kind === 'value' ? undefined : readPeriod(words, index, vocabulary.defaultYear, isValueCode, vocabulary.calendar);
    if (period) {
      datePeriod(period, index);
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
          if (grouping) {
            groupBy.push(meaning.name);
            for (const marker of markers) marker.grouped = true;
          }
          lastDimension = { name: meaning.name, end: index + phrase.words.length };
          break;
        case 'value':
          if (excluding) exclusions.push({ phrase: excluding, dimension: meaning.dimension, values: meaning.values });
          else addValue(meaning.dimension, meaning.values);
          excluding = undefined;
          lastValueEnd = index + phrase.words.length;
          break;
        case 'measure':
          if (measure === undefined || (measureIsGeneric && !meaning.generic)) [measure, measureIsGeneric] = [meaning.name, meaning.generic];
          break;
        case 'intent':
          for (const name of meaning.names) intents.add(name);
          // "from budget", "vs plan": the intent names a version too, as a side to compare with (not a filter).
          for (const part of phrase.words) {
            const named = vocabulary.byFirstWord.get(part)?.find((p) => p.words.length === 1 && p.meaning.kind === 'value' && p.meaning.dimension === 'version');
            if (named?.meaning.kind === 'value') impliedVersions.push(...named.meaning.values);
          }
          break;
        case 'relative_period':
          relativePeriods.push(phrase.words.join(' '));
          break;
        case 'not_held':
          notHeld.push({ term: phrase.words.join(' '), reason: meaning.reason });
          break;
        case 'group': {
          const marker = phrase.words.join(' ');
          // "per the mart": according to a source, not a breakdown.
          const after = index + phrase.words.length + (words[index + phrase.words.length] === 'the' ? 1 : 0);
          const bySource = longestPhrase(vocabulary, words, after)?.meaning.kind === 'source';
          if (breakdownMarkers.has(marker) && !bySource) markers.push({ phrase: marker, grouped: false, before: lastDimension?.end === index ? lastDimension.name : undefined });
          // "a breakdown of the full year by quarter": "by" a grain a form reads (an intent word), not a dimension.
          const byGrain = ['by', 'per', 'each', 'every'].includes(phrase.words.at(-1)!) && words[after - 1] !== 'the' && longestPhrase(vocabulary, words, after)?.meaning.kind === 'intent' && !['how', 'much'].includes(words[after] ?? '');
          if (byGrain) for (const earlier of markers) earlier.grouped = true;
          grouping = true;
          index += phrase.words.length;
          continue;
        }
      }
      // "by company and group account": the grouping goes on over "and" and commas.
      if (!(grouping && meaning.kind === 'dimension')) grouping = false;
      index += phrase.words.length;
      continue;
    }
    if (!(grouping && (word === 'and' || word === 'the' || word === 'of'))) grouping = false;
    // "PC2020": a code shaped like one dimension's values (letters and digit count) is a value of it.
    const shaped = /\d/.test(word) ? vocabulary.codeShapes.get(shapeOf(tokens[index]!.original)) : undefined;
    if (shaped && shaped.length === 1) {
      addValue(shaped[0]!, [tokens[index]!.original.toUpperCase()]);
      index += 1;
      continue;
    }
    const compared = [...intents].some((intent) => !qualifyingIntents.has(intent));
    const changesMeaning = meaningAt(words, index, { scopeAt, compared });
    // "excluding intercompany", "without the manual adjustment": the value after it is left out.
    // "not counting the manual adjustments", "not including intercompany": the same.
    const counting = words[index] === 'not' && ['counting', 'including', 'incl'].includes(words[index + 1] ?? '') ? 1 : 0;
    const leftOut = changesMeaning?.kind === 'exclusion' && exclusionWords.has(words[index]!) ? skipArticles(words, index + changesMeaning.length + counting) : -1;
    if (changesMeaning && leftOut >= 0 && longestPhrase(vocabulary, words, leftOut)?.meaning.kind === 'value') {
      excluding = tokens.slice(index, index + changesMeaning.length).map((t) => t.original).join(' ');
      index = leftOut;
      continue;
    }
    if (changesMeaning) {
      stop(index, changesMeaning.length, `${meaningKinds[changesMeaning.kind]}, which I can't answer yet`);
      index += changesMeaning.length;
      continue;
    }
    const token = tokens[index]!;
    // Ordinary English is filler; a word of the catalog's names alone ("Contoso") or a
    // word in capitals ("SAP") is not.
    const ordinary = fillerWords.has(word) || (isEnglishWord(word) && !vocabulary.catalogWords.has(word) && !shouted(token, text));
    if (!ordinary) unknown.push(token.original);
    else if (!fillerWords.has(word)) (nameLike(token, text) ? ignored : ordinaryWords).push(token.original);
    index += 1;
  }

  // "the segment split": a breakdown by the dimension named before it. A breakdown of nothing
  // ("split it for me") is asked back, unless the question groups by something anyway.
  // "split the revenue between industry and retail": by the dimension of the values it lists.
  const listed = [...values].filter(([, found]) => found.length >= 2).map(([dimension]) => dimension);
  for (const marker of markers) {
    const by = marker.before ?? (listed.length === 1 ? listed[0] : undefined);
    if (marker.grouped || !by) continue;
    marker.grouped = true;
    if (!groupBy.includes(by)) groupBy.push(by);
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
  const excluded = leaveOut(exclusions, filters, (phrase, reason) => {
    stops.push({ phrase, reason: `'${phrase}' ${reason}` });
    unknown.push(phrase);
  });
  if (intents.has('trend') && !groupBy.includes('period')) groupBy.push('period');
  // "What will the weather be tomorrow?": when nothing names data, the ordinary words are the
  // topic, left unplaced so a knowledge search can look them up (or the question is asked back).
  if (!sources.length && !values.size && !periods.length && measure === undefined && !intents.size && !groupBy.length) unknown.push(...ordinaryWords, ...ignored.splice(0));
  const ungrouped = markers.find((marker) => !marker.grouped);
  if (ungrouped && groupBy.length === 0) {
    stops.push({ phrase: ungrouped.phrase, reason: `'${ungrouped.phrase}' ${meaningKinds.breakdown}, and I could not tell by what (company, account, segment, month, …)` });
    unknown.push(ungrouped.phrase);
  }

  // "What is a delta load?", "how does currency translation work?", "what is the acquisition
  // layer for?": a question about meaning, not about figures.
  const [w0, w1, w2] = words;
  const noFigures = Object.keys(filters).length === 0 && measure === undefined;
  const noScope = filters.company === undefined && typeof filters.period !== 'object' && !/^\d{7}$/.test(String(filters.period ?? ''));
  // "What is the sign convention here, are expenses negative?": the thing asked about is no catalog word.
  const asked = w0 === 'what' && (w1 === 'is' || w1 === 'are') && w2 === 'the' ? words[3] : undefined;
  const aboutConcept = asked !== undefined && !vocabulary.words.has(asked) && isEnglishWord(asked) && sources.length === 0 && measure === undefined && noScope;
  if (
    aboutConcept ||
    (w0 === 'what' && (w1 === 'are' || (w1 === 'is' && (w2 === 'a' || w2 === 'an')))) ||
    // "How does that compare with the budget?" refers to the figures just given: not a question about meaning.
    (w0 === 'how' && (w1 === 'does' || w1 === 'do' || w1 === 'is' || w1 === 'are') && noScope && sources.length < 2 && !(intents.has('compare') && refersBack(words))) ||
    (w0 === 'what' && (w1 === 'is' || w1 === 'are') && sources.length > 0 && noFigures) ||
    // "Why shouldn't I add up USD and EUR?": a why about no data in particular is a question about rules.
    (w0 === 'why' && noScope && sources.length === 0 && !intents.has('net'))
  ) {
    intents.add('meaning');
  }
  const firstAt = words.findIndex((word) => !actionLeadIns.has(word));
  const first = words[firstAt];
  // "Export revenue of SG01": a verb that starts a name of the catalog (a value, a measure) is that name.
  const startsName = firstAt >= 0 && (longestPhrase(vocabulary, words, firstAt)?.words.length ?? 0) > 1 && longestPhrase(vocabulary, words, firstAt)?.meaning.kind !== 'intent';
  // "Save a monthly check of …": a verb a skill's question form declares is that skill's to answer (its tool writes), not refused.
  const claimed = firstAt >= 0 && longestPhrase(vocabulary, words, firstAt)?.meaning.kind === 'intent';
  const joined = ` ${words.join(' ')} `;
  const action = (first && actionVerbs.has(first) && !startsName && !claimed ? first : undefined) ?? actionPhrases.find((phrase) => joined.includes(` ${phrase} `));
  const kindIntents = [...intents].filter((intent) => !qualifyingIntents.has(intent));
  return {
    text,
    sources,
    measure,
    filters,
    groupBy: [...new Set(groupBy)],
    dimensions: [...new Set(dimensions)],
    versions: [...new Set([...versions, ...impliedVersions])],
    periods: points,
    intents,
    unknown,
    ...(count !== undefined ? { count } : {}),
    ...(excluded ? { excluded } : {}),
    corrections,
    relativePeriods,
    stops,
    ignored,
    notHeld,
    refersBack: refersBack(words),
    // Only when no period of the question names a year: "Q2 FY2024 vs Q3" is dated.
    undated: undated.length === periods.length ? undated : [],
    action,
    tooLong: text.length > MAX_QUESTION_CHARACTERS,
    // "revenue between October and": the question was cut off; answering the part would broaden it.
    truncated: words.length > 0 && danglingWords.has(words.at(-1)!) && !/[?.!]\s*$/.test(text),
    complete: kindIntents.length > 0 || measure !== undefined || groupBy.length > 0,
    elliptical: (followUpOpeners.has(words[0] ?? '') || ((words[0] === 'what' || words[0] === 'how') && words[1] === 'about')) && words.length <= 12,
  };
}

/** "2025" where the fiscal year starts in April: the calendar year, or the fiscal year named after it? */
function ambiguousYearReason(year: number, fiscalYearStart: number): string {
  const fiscal = `${describePeriod(formatPeriod(year, 1), fiscalYearStart)} – ${describePeriod(formatPeriod(year, 12), fiscalYearStart)}`;
  return `may be the calendar year ${year} or fiscal year ${year} (${fiscal}): say "FY${year}" or name the months`;
}

function isKnown(word: string, vocabulary: Vocabulary): boolean {
  return vocabulary.words.has(word) || fillerWords.has(word) || actionVerbs.has(word) || /\d/.test(word) || word.length < 4 || isEnglishWord(word);
}

function skipArticles(words: readonly string[], from: number): number {
  let at = from;
  while (['a', 'an', 'the', 'any'].includes(words[at] ?? '')) at += 1;
  return at;
}

/**
 * Puts the values an exclusion left out into the question: a list filter of their dimension
 * loses them ("expenses except depreciation"); with no filter of it they are the question's
 * `excluded` slot, for a form to leave out ("excluding intercompany"). Leaving out what the
 * question does not hold ("revenue excluding depreciation"), all of a list, or a version, is
 * asked back.
 */
function leaveOut(exclusions: { phrase: string; dimension: string; values: string[] }[], filters: Record<string, FilterValue>, stop: (phrase: string, reason: string) => void): Record<string, string[]> | undefined {
  const excluded: Record<string, string[]> = {};
  for (const { phrase, dimension, values } of exclusions) {
    const filter = filters[dimension];
    if (filter === undefined && dimension !== 'version') {
      excluded[dimension] = [...new Set([...(excluded[dimension] ?? []), ...values])];
      continue;
    }
    const kept = Array.isArray(filter) ? filter.filter((value) => !values.includes(value)) : [];
    if (!Array.isArray(filter) || kept.length === 0 || kept.length === filter.length) {
      stop(phrase, `leaves out ${values.join(', ')}, which the rest of the question does not leave room for`);
      continue;
    }
    filters[dimension] = kept.length === 1 ? kept[0]! : kept;
  }
  return Object.keys(excluded).length ? excluded : undefined;
}
