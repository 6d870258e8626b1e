/**
 * Fiscal periods in SAP BW notation (YYYYPPP, e.g. 2024012 = December 2024), and the
 * everyday spellings people and models use for them ("December 2024", "2024-12", "Q4 2024").
 * A catalog whose fiscal year starts in another month (`fiscal_year_start: 4`) or whose data
 * holds calendar months (YYYYMM, dates) passes a PeriodCalendar: month names and calendar
 * spellings are then calendar months, read as the fiscal period they fall in.
 */

/** How a period dimension's values are spelt and when its fiscal year starts. */
export interface PeriodCalendar {
  /** The stored notation; calendar notations make "202503" and "2025-03" calendar months. */
  format: 'YYYYPPP' | 'YYYYMM' | 'YYYY-MM' | 'date' | 'year_period';
  /** The calendar month period 1 is (1: January); the fiscal year is named by the year it starts in. */
  fiscalYearStart: number;
}

/** Fiscal YYYYPPP periods of a January year, spelt as they are: the default. */
export const FISCAL_CALENDAR: PeriodCalendar = { format: 'YYYYPPP', fiscalYearStart: 1 };

const calendarFormats = new Set<PeriodCalendar['format']>(['YYYYMM', 'YYYY-MM', 'date']);

/**
 * The fiscal YYYYPPP period a calendar month falls in.
 *
 * @example
 * fiscalPeriodOf(2025, 3, 4) // '2024012' (March 2025 closes the fiscal year that began in April 2024)
 */
export function fiscalPeriodOf(year: number, month: number, fiscalYearStart: number): string {
  return month >= fiscalYearStart ? formatPeriod(year, month - fiscalYearStart + 1) : formatPeriod(year - 1, month + 13 - fiscalYearStart);
}

/**
 * The calendar month of a fiscal period 1–12; undefined for special periods 13–16.
 *
 * @example
 * calendarMonthOf('2025001', 4) // { year: 2025, month: 4 }
 */
export function calendarMonthOf(period: string, fiscalYearStart: number): { year: number; month: number } | undefined {
  const match = /^(\d{4})(\d{3})$/.exec(period);
  if (!match) return undefined;
  const [year, number] = [Number(match[1]), Number(match[2])];
  if (number < 1 || number > 12) return undefined;
  const month = number + fiscalYearStart - 1;
  return month > 12 ? { year: year + 1, month: month - 12 } : { year, month };
}

/**
 * A period as the data stores it, for messages ("periods look like 202503").
 *
 * @example
 * storedSpelling('2024012', { format: 'YYYYMM', fiscalYearStart: 4 }) // '202503'
 */
export function storedSpelling(period: string, calendar: PeriodCalendar): string {
  const month = calendarFormats.has(calendar.format) ? calendarMonthOf(period, calendar.fiscalYearStart) : undefined;
  if (!month) return period;
  const mm = String(month.month).padStart(2, '0');
  if (calendar.format === 'YYYYMM') return `${month.year}${mm}`;
  if (calendar.format === 'YYYY-MM') return `${month.year}-${mm}`;
  return `${month.year}-${mm}-01`;
}

const monthNames = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** A month name or its first three letters ("dec", "Dec.", "December") → 1..12. */
export function monthNumber(word: string): number | undefined {
  const w = word.toLowerCase().replace(/\.$/, '');
  if (w.length < 3) return undefined;
  const index = monthNames.findIndex((name) => name === w || (w.length >= 3 && name.startsWith(w) && w.length <= name.length));
  return index === -1 ? undefined : index + 1;
}

/** YYYYPPP for a year and period number; periods 13–16 are SAP's special periods. */
export function formatPeriod(year: number, period: number): string {
  return `${year}${String(period).padStart(3, '0')}`;
}

const validYear = (y: number) => y >= 1900 && y <= 2999;
const validPeriod = (p: number) => p >= 1 && p <= 16;

/**
 * Longest text that can be a period or a span once whitespace is collapsed ("september, 2024" is
 * 15 characters): anything longer is refused before a pattern runs, so a value padded with
 * thousands of spaces costs one linear pass instead of a backtracking regex on the event loop.
 */
const MAX_PERIOD_TEXT = 32;

/** Trimmed, lower-cased, whitespace runs collapsed to one space; undefined when too long to be a period. */
function periodText(value: string): string | undefined {
  // Cheap length check first: the collapse below is linear, but need not run on 64 KB of padding.
  if (value.length > 4 * 1024) return undefined;
  const text = value.trim().replace(/\s+/g, ' ').toLowerCase();
  return text.length <= MAX_PERIOD_TEXT ? text : undefined;
}

/**
 * Parses one period in any common spelling into YYYYPPP, or undefined if it is not one.
 * Accepted: 2024012, 2024-12, 2024/12, 2024.12, 12/2024, 12.2024, 012.2024, P12 2024,
 * 2024 P12, December 2024, Dec 2024. Runs in time linear in the input (see MAX_PERIOD_TEXT).
 * @example
 * parsePeriod('Dec 2024'); // '2024012'
 * parsePeriod('2024' + ' '.repeat(65_000) + 'x'); // undefined, at once
 */
export function parsePeriod(value: string, calendar: PeriodCalendar = FISCAL_CALENDAR): string | undefined {
  const text = periodText(value);
  if (text === undefined) return undefined;
  // Calendar months ("March 2025", and "202503", "2025-03", "2025-03-31" where the data holds calendar months) fall in a fiscal period.
  const calendarMonth = (year: number, month: number) => (validYear(year) && month >= 1 && month <= 12 ? fiscalPeriodOf(year, month, calendar.fiscalYearStart) : undefined);
  const calendarData = calendarFormats.has(calendar.format);
  // Whitespace is one space at most here, so ` ?` stands for the former `\s*`.
  let match = /^(\d{4})(\d{3})$/.exec(text);
  if (match) return checked(Number(match[1]), Number(match[2]));
  if (calendarData) {
    match = /^(\d{4})(\d{2})$/.exec(text) ?? /^(\d{4}) ?[-/.] ?(\d{1,2})(?:[-/.]\d{1,2})?$/.exec(text);
    if (match) return calendarMonth(Number(match[1]), Number(match[2]));
    match = /^(\d{1,2}) ?[-/.] ?(\d{4})$/.exec(text);
    if (match) return calendarMonth(Number(match[2]), Number(match[1]));
  }
  match = /^(\d{4}) ?[-/.] ?(\d{1,3})$/.exec(text);
  if (match) return checked(Number(match[1]), Number(match[2]));
  match = /^(\d{1,3}) ?[-/.] ?(\d{4})$/.exec(text);
  if (match) return checked(Number(match[2]), Number(match[1]));
  match = /^p(?:eriod)? ?(\d{1,3}) ?[,/]? ?(\d{4})$/.exec(text);
  if (match) return checked(Number(match[2]), Number(match[1]));
  match = /^(\d{4}) ?[,/]? ?p(?:eriod)? ?(\d{1,3})$/.exec(text);
  if (match) return checked(Number(match[1]), Number(match[2]));
  match = /^([a-z]+\.?) ?,? ?(\d{4})$/.exec(text);
  if (match) {
    const month = monthNumber(match[1] ?? '');
    if (month) return calendarMonth(Number(match[2]), month);
  }
  return undefined;
}

function checked(year: number, period: number): string | undefined {
  return validYear(year) && validPeriod(period) ? formatPeriod(year, period) : undefined;
}

/**
 * Parses a span of periods: a year ("2024" → 2024001..2024012), a quarter ("Q4 2024")
 * or a half year ("H1 2024"). Returns undefined when the text is not a span. Linear in the input.
 * @example
 * parsePeriodSpan('Q4 2024'); // { from: '2024010', to: '2024012' }
 */
export function parsePeriodSpan(value: string): { from: string; to: string } | undefined {
  const text = periodText(value);
  if (text === undefined) return undefined;
  let match = /^(?:fy ?)?(\d{4})$/.exec(text);
  if (match && validYear(Number(match[1]))) return { from: formatPeriod(Number(match[1]), 1), to: formatPeriod(Number(match[1]), 12) };
  match = /^q([1-4]) ?[-/]? ?(\d{4})$/.exec(text) ?? swap(/^(\d{4}) ?[-/]? ?q([1-4])$/.exec(text));
  if (match) {
    const quarter = Number(match[1]);
    const year = Number(match[2]);
    return { from: formatPeriod(year, quarter * 3 - 2), to: formatPeriod(year, quarter * 3) };
  }
  match = /^h([12]) ?[-/]? ?(\d{4})$/.exec(text) ?? swap(/^(\d{4}) ?[-/]? ?h([12])$/.exec(text));
  if (match) {
    const half = Number(match[1]);
    const year = Number(match[2]);
    return { from: formatPeriod(year, half * 6 - 5), to: formatPeriod(year, half * 6) };
  }
  return undefined;
}

function swap(match: RegExpExecArray | null): RegExpExecArray | null {
  if (!match) return null;
  const [whole, first, second] = match;
  return Object.assign([whole, second, first], { index: match.index, input: match.input }) as unknown as RegExpExecArray;
}

/**
 * "2024012" → "December 2024" (special periods read "period 13 2024"); in a fiscal year from
 * April, "2025001" → "April 2025".
 */
export function describePeriod(period: string, fiscalYearStart = 1): string {
  const match = /^(\d{4})(\d{3})$/.exec(period);
  if (!match) return period;
  const month = calendarMonthOf(period, fiscalYearStart);
  const name = month ? monthNames[month.month - 1] : undefined;
  return name && month ? `${name[0]!.toUpperCase()}${name.slice(1)} ${month.year}` : `period ${Number(match[2])} ${match[1]}`;
}
