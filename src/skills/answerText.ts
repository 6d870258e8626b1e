/**
 * Building blocks for wording answers from tool results, shared by the skills' question
 * forms: amounts and percentages in the reader's locale, periods read as months, filters as
 * a phrase, and labels for the two sides of a comparison that a reader can tell apart.
 */
import { calendarMonthOf, describePeriod, storedSpelling, type PeriodCalendar } from '../catalog/periods.ts';
import { formatAmount, formatPercent } from '../shared/format.ts';
import { sideLabelsOf } from './presentation.ts';

type Json = Record<string, any>;

/** Number formatting in one locale. */
export interface TextFormat {
  locale: string;
  amount(value: number, unit?: string | null): string;
  /** Signed: "+24.8%", "-2.2%". */
  percent(value: number): string;
  /** A filter value, periods as months of this locale ("Dezember 2024 (2024012)"). */
  value(name: string, value: unknown): string;
  /** A period as a month of this locale, without its code ("December 2024"). */
  month(period: string): string;
  /** A span of periods as months: "November 2024", or "July 2024–September 2024". */
  span(range: { from: string; to: string }): string;
  /** Filters as a phrase, periods as months of this locale. */
  filters(filters: Json | undefined, skip?: string[]): string;
}

/**
 * How periods are named: the fiscal year's first month alone (1 = January: with 4, 2025001 is
 * April 2025), or the catalog's whole calendar, whose stored notation then spells the code
 * shown beside the month ("September 2024 (202409)" where the data stores YYYYMM).
 */
export type PeriodNaming = number | PeriodCalendar;

const fiscalStartOf = (naming: PeriodNaming) => (typeof naming === 'number' ? naming : naming.fiscalYearStart);

/**
 * Formatting for a locale; periods are named by month in the catalog's fiscal year.
 *
 * @example
 * textFormat('de-DE').amount(110000, 'EUR') // '110.000,00 EUR'
 * textFormat('en-US', 4).month('2025001') // 'April 2025'
 * textFormat('en-US', { format: 'YYYYMM', fiscalYearStart: 4 }).value('period', '2024006') // 'September 2024 (202409)'
 */
export function textFormat(locale = 'en-US', naming: PeriodNaming = 1): TextFormat {
  const fiscalYearStart = fiscalStartOf(naming);
  return {
    locale,
    amount: (value, unit) => formatAmount(value, unit, locale),
    percent: (value) => formatPercent(value, { signed: true, locale }),
    value: (name, value) => describeValue(name, value, locale, naming),
    month: (period) => monthOf(period, locale, fiscalYearStart),
    span: (range) => (range.from === range.to ? monthOf(range.from, locale, fiscalYearStart) : `${monthOf(range.from, locale, fiscalYearStart)}–${monthOf(range.to, locale, fiscalYearStart)}`),
    filters: (filters, skip = []) => describeFilters(filters, skip, locale, naming),
  };
}

/**
 * A filter value as a reader says it; periods read as months ("December 2024 (2024012)").
 *
 * @example
 * describeValue('period', { from: '2024010', to: '2024012' }) // 'October 2024 (2024010) to December 2024 (2024012)'
 */
export function describeValue(name: string, value: unknown, locale = 'en-US', naming: PeriodNaming = 1): string {
  if (Array.isArray(value)) return value.map((v) => describeValue(name, v, locale, naming)).join(', ');
  if (value && typeof value === 'object') {
    const range = value as { from?: string; to?: string };
    return `${range.from ? describeValue(name, range.from, locale, naming) : '…'} to ${range.to ? describeValue(name, range.to, locale, naming) : '…'}`;
  }
  if (value === null || value === '') return '(blank)';
  const text = String(value);
  if (name !== 'period' || !/^\d{7}$/.test(text)) return text;
  // The code as the data spells it, which is also what a reader can type back.
  return `${monthOf(text, locale, fiscalStartOf(naming))} (${typeof naming === 'number' ? text : storedSpelling(text, naming)})`;
}

/** "2024012" → "December 2024", or the locale's month name ("Dezember 2024"); special periods stay "period 13 2024". */
export function monthOf(period: string, locale = 'en-US', fiscalYearStart = 1): string {
  const month = calendarMonthOf(period, fiscalYearStart);
  if (locale.startsWith('en') || !month) return describePeriod(period, fiscalYearStart);
  try {
    return new Intl.DateTimeFormat(locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(Date.UTC(month.year, month.month - 1, 1)));
  } catch {
    return describePeriod(period, fiscalYearStart);
  }
}

/**
 * Filters as a phrase: "company 1000, period December 2024 (2024012)".
 *
 * @example
 * describeFilters({ company: '1000', version: 'BUDGET' }, ['version']) // 'company 1000'
 */
export function describeFilters(filters: Json | undefined, skip: string[] = [], locale = 'en-US', naming: PeriodNaming = 1): string {
  return Object.entries(filters ?? {})
    .filter(([name]) => !skip.includes(name))
    .map(([name, value]) => `${name.replace(/_/g, ' ')} ${describeValue(name, value, locale, naming)}`)
    .join(', ');
}

/**
 * Labels for the two sides of a comparison: the source names, or, when both sides read one
 * source, the source with what distinguishes the sides ("consolidation_mart ACTUAL" vs
 * "consolidation_mart BUDGET"; "fi_reporting November 2024" vs "fi_reporting December 2024").
 * The same names as the web chat's tables and legends: both come from sideLabelsOf
 * (presentation.ts), its period placeholders written here in English.
 *
 * @example
 * sideLabels({ source_a: 'consolidation_mart', source_b: 'consolidation_mart', filters_a: { version: 'ACTUAL' }, filters_b: { version: 'BUDGET' } })
 * // ['consolidation_mart ACTUAL', 'consolidation_mart BUDGET']
 */
export function sideLabels(result: Json): [string, string] {
  if (result.source_a !== result.source_b) return [String(result.source_a), String(result.source_b)];
  const labels = sideLabelsOf({ source_a: String(result.source_a), source_b: String(result.source_b), filters_a: result.filters_a ?? {}, filters_b: result.filters_b ?? {} })!;
  const words = (label: string) => label.replace(/\{period:(\d{7})(?:\/(\d{7}))?\}/g, (_whole, from: string, to?: string) => (to ? `${describePeriod(from)}–${describePeriod(to)}` : describePeriod(from)));
  return [words(labels.a), words(labels.b)];
}

/** "a, b and c". */
export function listOf(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** "3 lines", "1 line". */
export function countText(count: number, noun: string): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? noun : `${noun}s`}`;
}

/**
 * A failed tool call, explained with the error's own message and hint.
 *
 * @example
 * errorAnswer('count_rows', { message: "Value '4000' not found for company.", hint: 'Did you mean 3000?' })
 */
export function errorAnswer(toolName: string, error: Json): string {
  return `I could not answer with ${toolName}: ${error.message}${error.hint ? ` ${error.hint}` : ''}`;
}

/**
 * The answer when a call of this turn failed: its error, said plainly; undefined when none did.
 *
 * @example
 * return failedStep(done) ?? { answer: totalAnswer(done[0]!.result) };
 */
export function failedStep(done: readonly { name: string; result: any }[]): { answer: string } | undefined {
  const failure = done.find((call) => call.result?.error);
  return failure ? { answer: errorAnswer(failure.name, failure.result.error) } : undefined;
}
