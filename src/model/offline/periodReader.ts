/**
 * Reads period expressions from a question's words: a period code (2024012), a date-like
 * spelling (2024-12, 12/2024, Dec-24), a month with or without a year, P12, quarters ("Q4",
 * "quarter 4", "the last quarter of 2024"), halves ("H1", "first half"), a year ("2024", "FY
 * 2024", "full year"), year to date ("YTD at November") and ranges ("from October to
 * December"). Works on words, so it is linear and cannot be made slow by the input.
 */
import { FISCAL_CALENDAR, fiscalPeriodOf, formatPeriod, monthNumber, type PeriodCalendar } from '../../catalog/periods.ts';

export type PeriodValue = { point: string } | { span: { from: string; to: string } };

export interface PeriodMatch {
  /** How many words the expression took. */
  length: number;
  value: PeriodValue;
  /** Read from "year to date at …": a follow-up naming another month keeps it year to date. */
  yearToDate?: boolean;
  /**
   * No year named ("P6", "Q2", "H2", "January"): dated by the data's latest fiscal year, or by the
   * question before in a conversation; asked back when the data holds several years and nothing
   * before dates it.
   */
  undated?: boolean;
  /**
   * A bare year ("2025", "full year 2025") where the fiscal year does not start in January: it
   * may be the calendar year or the fiscal year named after it, so it is asked back.
   */
  ambiguousYear?: number;
  /** The calendar month a month spelling named, to date the start of "from June to December 2025". */
  month?: { year: number; month: number };
}

const ordinals: Record<string, number> = { first: 1, '1st': 1, second: 2, '2nd': 2, third: 3, '3rd': 3, fourth: 4, '4th': 4, last: 4, final: 4 };
const rangeWords = new Set(['to', 'through', 'thru', 'until', 'till']);
/** "period 6", "periods 1 to 3", and the short forms "per. 4", "pd 4". */
const periodWords = new Set(['period', 'periods', 'per', 'pd']);
const monthPrepositions = new Set(['for', 'in', 'of', 'from', 'to', 'until', 'till', 'through', 'at', 'since', 'during', 'and', 'about', 'by', 'end']);

/**
 * The period expression starting at `index`, if there is one.
 *
 * @param isValueCode a bare number the catalog knows as a value (company "2000") is not a year.
 * @example
 * readPeriod(['last', 'quarter', 'of', '2024'], 0, 2024, () => false) // { length: 4, value: { span: { from: '2024010', to: '2024012' } } }
 */
export function readPeriod(words: readonly string[], index: number, defaultYear: number, isValueCode: (word: string) => boolean, calendar: PeriodCalendar = FISCAL_CALENDAR): PeriodMatch | undefined {
  const first = readOne(words, index, defaultYear, isValueCode, calendar);
  if (!first) return undefined;
  // "from October to December", "between Q1 and Q2", "2024001 through 2024006".
  const joiner = words[index + first.length];
  const between = words[index - 1] === 'between' && joiner === 'and';
  if (joiner && (rangeWords.has(joiner) || between)) {
    const at = index + first.length + 1;
    // "periods 1 to 3": the end of a range of period numbers may be a bare number.
    const numbered = periodWords.has(words[index]!) && /^\d{1,2}$/.test(words[at] ?? '') && Number(words[at]) >= 1 && Number(words[at]) <= 12;
    const second = numbered ? { ...point(1, yearOf(first.value) ?? defaultYear, Number(words[at])), ...(first.undated ? { undated: true } : {}) } : readOne(words, at, first.month?.year ?? yearOf(first.value) ?? defaultYear, isValueCode, calendar);
    if (second) {
      // A month without a year before "to December 2024" takes the year of the end: "from
      // November to February 2025" starts in November 2024.
      const endYear = yearOf(second.value);
      const start = first.value;
      const from = 'point' in start ? start.point : start.span.from;
      const explicit = hasExplicitYear(words, index, first.length);
      const adjustedFrom = explicit
        ? from
        : first.month && second.month
          ? fiscalPeriodOf(second.month.year - (first.month.month > second.month.month ? 1 : 0), first.month.month, calendar.fiscalYearStart)
          : endYear !== undefined
            ? `${endYear}${from.slice(4)}`
            : from;
      // "from November 2024 to February": the first February after the start.
      const to = first.month && second.month && second.undated && !first.undated
        ? fiscalPeriodOf(first.month.year + (second.month.month < first.month.month ? 1 : 0), second.month.month, calendar.fiscalYearStart)
        : 'point' in second.value ? second.value.point : second.value.span.to;
      if (adjustedFrom <= to) return { length: first.length + 1 + second.length, value: { span: { from: adjustedFrom, to } }, ...(first.undated && second.undated ? { undated: true } : {}) };
    }
  }
  return first;
}

function readOne(words: readonly string[], index: number, defaultYear: number, isValueCode: (word: string) => boolean, calendar: PeriodCalendar): PeriodMatch | undefined {
  const word = words[index];
  // A calendar month, as the fiscal period it falls in; months 13-16 ("2024-13") are special periods.
  const month = (length: number, year: number, number: number): PeriodMatch =>
    number > 12 ? point(length, year, number) : { length, value: { point: fiscalPeriodOf(year, number, calendar.fiscalYearStart) }, month: { year, month: number } };
  // "2025", "full year 2025": which year, when the fiscal year is not the calendar year, is asked back.
  const plainYear = (length: number, year: number): PeriodMatch => ({ ...yearSpan(length, year), ...(calendar.fiscalYearStart !== 1 ? { ambiguousYear: year } : {}) });
  if (word === undefined) return undefined;
  const next = words[index + 1];
  const yearAfter = (offset: number): { year: number; length: number } | undefined => {
    let at = index + offset;
    if (words[at] === 'of' || words[at] === 'in') at += 1;
    const candidate = words[at];
    if (candidate === undefined) return undefined;
    if (/^(?:19|20)\d{2}$/.test(candidate) && !isValueCode(candidate)) return { year: Number(candidate), length: at - index + 1 };
    if (/^fy\d{2,4}$/.test(candidate)) return { year: expandYear(candidate.slice(2)), length: at - index + 1 };
    if (/^['’]?\d{2}$/.test(candidate) && offset === 1) return { year: expandYear(candidate.replace(/['’]/, '')), length: 2 };
    return undefined;
  };

  // 2024012
  let match = /^(\d{4})(\d{3})$/.exec(word);
  if (match && validPeriod(Number(match[2]))) return point(1, Number(match[1]), Number(match[2]));
  // 202504 where the data stores calendar months (YYYYMM): the month its users write.
  match = /^(\d{4})(\d{2})$/.exec(word);
  if (match && calendar.format !== 'YYYYPPP' && calendar.format !== 'year_period' && Number(match[2]) >= 1 && Number(match[2]) <= 12 && !isValueCode(word)) return month(1, Number(match[1]), Number(match[2]));
  // 2024-12, 2024/12, 2024.12 and 12/2024, 12.2024
  match = /^(\d{4})[-/.](\d{1,3})$/.exec(word);
  if (match && validPeriod(Number(match[2]))) return month(1, Number(match[1]), Number(match[2]));
  match = /^(\d{1,3})[-/.](\d{4})$/.exec(word);
  if (match && validPeriod(Number(match[1]))) return month(1, Number(match[2]), Number(match[1]));
  // dec-24
  match = /^([a-z]{3,9})[-'’](\d{2})$/.exec(word);
  if (match && monthNumber(match[1]!)) return month(1, expandYear(match[2]!), monthNumber(match[1]!)!);
  // P12, period 12 [2024]
  match = /^p(\d{1,2})$/.exec(word);
  // "per. 4", "pd 4": short forms of "period" before a period number.
  if ((match || (periodWords.has(word) && next && /^\d{1,2}$/.test(next))) && !(word === 'period' && next && /^\d{7}$/.test(next))) {
    const number = Number(match ? match[1] : next);
    const used = match ? 1 : 2;
    if (!validPeriod(number)) return undefined;
    const year = yearAfter(used);
    return { ...point(used + (year ? year.length - used : 0), year?.year ?? defaultYear, number), ...(year ? {} : { undated: true }) };
  }
  // Q4 [2024], quarter 4 [2024], the fourth/last quarter [of 2024]
  match = /^q([1-4])$/.exec(word);
  let quarter = match ? Number(match[1]) : undefined;
  let used = 1;
  if (quarter === undefined && word === 'quarter' && next && /^[1-4]$/.test(next)) [quarter, used] = [Number(next), 2];
  if (quarter === undefined && ordinals[word] !== undefined && next === 'quarter') [quarter, used] = [ordinals[word], 2];
  if (quarter !== undefined) {
    const year = yearAfter(used);
    // "last quarter" without a year depends on today's date: left to be asked back.
    if ((word === 'last' || word === 'final') && !year) return undefined;
    const y = year?.year ?? defaultYear;
    return { ...span(year ? year.length : used, formatPeriod(y, quarter * 3 - 2), formatPeriod(y, quarter * 3)), ...(year ? {} : { undated: true }) };
  }
  // H1 [2024], first/second half [of 2024]
  match = /^h([12])$/.exec(word);
  let half = match ? Number(match[1]) : undefined;
  used = 1;
  if (half === undefined && (word === 'first' || word === 'second' || word === '1st' || word === '2nd') && (next === 'half' || next === 'halfyear')) [half, used] = [ordinals[word], 2];
  if (half !== undefined && half <= 2) {
    const year = yearAfter(used);
    const y = year?.year ?? defaultYear;
    return { ...span(year ? year.length : used, formatPeriod(y, half * 6 - 5), formatPeriod(y, half * 6)), ...(year ? {} : { undated: true }) };
  }
  // YTD / year to date [at|through|as of] <month> [year]
  const ytdLength = word === 'ytd' ? 1 : word === 'year' && next === 'to' && words[index + 2] === 'date' ? 3 : 0;
  if (ytdLength) {
    let at = index + ytdLength;
    while (['at', 'through', 'thru', 'until', 'till', 'to', 'as', 'of', 'up', 'end', 'the', 'in', 'for'].includes(words[at] ?? '')) at += 1;
    const end = readOne(words, at, defaultYear, isValueCode, calendar);
    if (end && 'point' in end.value) return { ...span(at - index + end.length, `${end.value.point.slice(0, 4)}001`, end.value.point), yearToDate: true };
    return undefined;
  }
  // full year / fiscal year / FY [2024], FY2024, and a bare 2024
  if (/^fy\d{2,4}$/.test(word)) return yearSpan(1, expandYear(word.slice(2)));
  // "fiscal 2025": the fiscal year, as "FY2025".
  if (word === 'fiscal' && next && /^(?:19|20)\d{2}$/.test(next)) return yearSpan(2, Number(next));
  const yearWords = (word === 'full' || word === 'whole' || word === 'fiscal' || word === 'entire') && next === 'year' ? 2 : word === 'fy' || word === 'annual' ? 1 : 0;
  if (yearWords) {
    const year = yearAfter(yearWords);
    const fiscal = word === 'fiscal' || word === 'fy' || /^fy/.test(words[index + (year?.length ?? 1) - 1] ?? '');
    return year && !fiscal ? plainYear(year.length, year.year) : yearSpan(year ? year.length : yearWords, year?.year ?? defaultYear);
  }
  if (/^(?:19|20)\d{2}$/.test(word) && !isValueCode(word)) return plainYear(1, Number(word));
  // "over the year", "for the whole year": the year the data is about.
  if (word === 'year' && ['the', 'whole', 'full', 'entire', 'over'].includes(words[index - 1] ?? '')) return yearSpan(1, defaultYear);
  // December [2024], Dec '24, Octobr (corrected before it gets here)
  const named = word.length >= 3 ? monthNumber(word) : undefined;
  if (named !== undefined) {
    const year = yearAfter(1);
    // "may" is a verb unless a year follows or a preposition comes before ("for May").
    if (word === 'may' && !year && !monthPrepositions.has(words[index - 1] ?? '')) return undefined;
    // "Dec FY25" is the December of fiscal 2025; "December 2025" a calendar month.
    const fiscalYear = year && /^fy/.test(words[index + year.length - 1] ?? '');
    // Without a year, the month of the default fiscal year: "January" is January 2026 in fiscal 2025.
    const inFiscalYear = (fiscal: number) => (calendar.fiscalYearStart > named ? fiscal + 1 : fiscal);
    if (!year) return { ...month(1, inFiscalYear(defaultYear), named), undated: true };
    return fiscalYear ? month(year.length, inFiscalYear(year.year), named) : month(year.length, year.year, named);
  }
  return undefined;
}

const validPeriod = (period: number) => period >= 1 && period <= 16;
const expandYear = (text: string) => (text.length === 2 ? 2000 + Number(text) : Number(text));
const point = (length: number, year: number, period: number): PeriodMatch => ({ length, value: { point: formatPeriod(year, period) } });
const span = (length: number, from: string, to: string): PeriodMatch => ({ length, value: { span: { from, to } } });
const yearSpan = (length: number, year: number): PeriodMatch => span(length, formatPeriod(year, 1), formatPeriod(year, 12));

function yearOf(value: PeriodValue): number | undefined {
  return Number(('point' in value ? value.point : value.span.to).slice(0, 4));
}

function hasExplicitYear(words: readonly string[], index: number, length: number): boolean {
  return words.slice(index, index + length).some((word) => /\d{4}|^fy|^['’]?\d{2}$/.test(word) || /-\d{2}$/.test(word));
}
