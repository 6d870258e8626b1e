/**
 * The guess for one profiled column of a catalog draft: measure or dimension, period or text,
 * currency key or not, with the `CHECK:` notes a person should confirm. Read from the column's
 * name and its most frequent values only (introspect.ts), so it needs no database; guess.ts
 * assembles these guesses into sources.
 */
import { logicalName } from './logicalNames.ts';
import type { ColumnProfile } from './introspect.ts';

/** A numeric column with more distinct values than this (or half its rows) is a measure. */
const MANY_DISTINCT = 20;

const ISO_CURRENCIES = new Set(
  'AED ARS AUD BGN BRL CAD CHF CLP CNY COP CZK DKK EGP EUR GBP HKD HUF IDR ILS INR ISK JPY KRW KZT MAD MXN MYR NGN NOK NZD PEN PHP PKR PLN QAR RON RSD RUB SAR SEK SGD THB TRY TWD UAH USD VND ZAR'.split(' '),
);
const CURRENCY_NAME = /^(cur|ccy|currency|waers|waer)|(^|_)(cur|curr|currency|ccy|waers|curkey|curkey_[a-z]+)$|currency|curkey/i;
const PERIOD_NAME = /per|month|monat|date|datum|day|year|jahr|yr|quarter|week|time|calm|fisc/i;
const IDENTIFIER_NAME = /(^|_)(id|nr|no|num|number|key|code|docnr|belnr)$|docnr|belnr|^id$/i;
const QUANTITY_NAME = /qty|quan|menge|volume|pieces|(^|_)units?$|count|cnt|headcount|hours|fte/i;
const RATE_NAME = /rate|price|pct|percent|ratio|share|factor|kurs|avg|average/i;

/**
 * A database value as catalog text: numbers as JS prints them, dates as YYYY-MM-DD (or ISO time).
 * @example
 * valueText(2024012); // '2024012'
 * valueText(new Date('2024-12-31T00:00:00Z')); // '2024-12-31'
 */
export function valueText(value: unknown): string {
  if (value instanceof Date) {
    const iso = value.toISOString();
    return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
  }
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

export type PeriodFormat = 'YYYYPPP' | 'YYYYMM' | 'YYYY-MM' | 'YYYYMMDD' | 'date';
const PERIOD_PATTERNS: [PeriodFormat, RegExp][] = [
  ['YYYYPPP', /^(19|20)\d{2}0(0[1-9]|1[0-6])$/],
  ['YYYYMM', /^(19|20)\d{2}(0[1-9]|1[0-2])$/],
  ['YYYY-MM', /^(19|20)\d{2}[-/.](0?[1-9]|1[0-2])$/],
  ['YYYYMMDD', /^(19|20)\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])$/],
  ['date', /^(19|20)\d{2}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([T ][\d:.]+(Z|[+-][\d:]+)?)?$/],
];

/**
 * The period notation all the values share, if any.
 * @example
 * periodFormat(['2024001', '2024012']); // 'YYYYPPP'
 * periodFormat(['2024-12', '2025-01']); // 'YYYY-MM'
 * periodFormat(['1000', '2000']); // undefined
 */
function periodFormat(values: readonly string[]): PeriodFormat | undefined {
  if (values.length === 0) return undefined;
  return PERIOD_PATTERNS.find(([, pattern]) => values.every((value) => pattern.test(value)))?.[0];
}

/**
 * Whether a column holds currency keys: three upper-case letters, at least one a known ISO
 * code; or a currency-like name (cur*, currency, waers) over three-letter codes.
 * @example
 * isCurrencyColumn('curkey_lc', ['EUR', 'USD', 'GBP']); // true
 * isCurrencyColumn('segment', ['IND', 'RET']); // false
 */
function isCurrencyColumn(column: string, values: readonly string[]): boolean {
  if (values.length === 0 || !values.every((value) => /^[A-Z]{3}$/.test(value))) return false;
  return values.some((value) => ISO_CURRENCIES.has(value)) || CURRENCY_NAME.test(column);
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const list = (values: readonly string[], at = 5) => values.slice(0, at).join(', ') + (values.length > at ? ', …' : '');

export type ColumnRole =
  | { role: 'dimension'; type: 'text' | 'period'; currency: boolean; checks: string[] }
  | { role: 'measure'; aggregation: 'sum' | 'avg'; quantity: boolean; checks: string[] };

/**
 * Measure or dimension, period, currency: the guess for one column.
 * @example
 * roleOf(profile); // { role: 'measure', aggregation: 'sum', quantity: false, checks: [] } for a decimal amount column
 */
export function roleOf(profile: ColumnProfile): ColumnRole {
  const texts = profile.top.map((t) => valueText(t.value));
  const { kind, distinct, nonNull } = profile;
  // Names are read in snake_case, so DocId reads like doc_id.
  const column = logicalName(profile.column);
  const shape = `${kind === 'decimal' ? 'decimal' : kind}, ${count(distinct, 'distinct value')} in ${count(nonNull, 'non-NULL row')}`;
  if (kind === 'date') {
    return {
      role: 'dimension',
      type: 'period',
      currency: false,
      checks: [`CHECK: a ${profile.declaredType} column drafted as the period. Period filters are written as YYYYPPP (2024012); they only match a column that holds YYYYPPP, so expose one in a view (or set type: text).`],
    };
  }
  // The most frequent values (all of them when there are few) must all read as periods.
  const format = kind === 'text' || kind === 'integer' ? periodFormat(texts) : undefined;
  if (format) {
    if (!PERIOD_NAME.test(column)) {
      return { role: 'dimension', type: 'text', currency: false, checks: [`CHECK: the values look like periods (${format}: ${list(texts, 3)}); set type: period if this is the period.`] };
    }
    const checks = format === 'YYYYPPP'
      ? [`CHECK: period guessed from values ${list(texts, 3)} (YYYYPPP).`]
      : [`CHECK: period guessed from values ${list(texts, 3)} (${format}). Period filters are written as YYYYPPP (2024012); they only match a column that holds YYYYPPP, so expose one in a view (or set type: text).`];
    return { role: 'dimension', type: 'period', currency: false, checks };
  }
  if (kind === 'text' && isCurrencyColumn(column, texts)) {
    return { role: 'dimension', type: 'text', currency: true, checks: [`CHECK: currency guessed from values ${list(texts)}${CURRENCY_NAME.test(column) ? ' and the name' : ''}.`] };
  }
  if (kind === 'integer' || kind === 'decimal') {
    const many = distinct > MANY_DISTINCT || (distinct > 2 && distinct >= 0.5 * nonNull);
    const identifier = kind === 'integer' && IDENTIFIER_NAME.test(column);
    if (many && !identifier) {
      const checks: string[] = [];
      if (kind === 'integer') checks.push(`CHECK: is this a measure or an identifier? (${shape})`);
      if (RATE_NAME.test(column)) {
        checks.push('CHECK: avg guessed from the name (rates, prices and ratios must not be summed).');
        return { role: 'measure', aggregation: 'avg', quantity: true, checks };
      }
      const quantity = QUANTITY_NAME.test(column);
      if (quantity) checks.push('CHECK: a quantity by its name, so no currency: add unit (e.g. PC, KG, hours) if it has one.');
      return { role: 'measure', aggregation: 'sum', quantity, checks };
    }
    return {
      role: 'dimension',
      type: 'text',
      currency: false,
      checks: [identifier ? `CHECK: an identifier by its name, drafted as a dimension: is it a measure? (${shape})` : `CHECK: a number with only ${count(distinct, 'distinct value')}, drafted as a dimension: is it a measure?`],
    };
  }
  return { role: 'dimension', type: 'text', currency: false, checks: [] };
}
