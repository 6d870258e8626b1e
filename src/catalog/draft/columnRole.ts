/**
 * The guess for one profiled column of a catalog draft: measure or dimension, period (and its
 * format), fiscal year, currency key, with how sure the drafter is, why, and the `CHECK:` notes a
 * person should confirm. Read from the column's type, its most frequent values (introspect.ts)
 * and the dictionary of ERP column names (vocabulary.ts), never from counts of distinct values:
 * a numeric column that is not a key is a measure however few values it has. guess.ts assembles
 * these guesses into sources.
 */
import type { ColumnProfile } from './introspect.ts';
import { logicalName } from './logicalNames.ts';
import { isPeriodNumberColumn, isYearColumn, periodFormatOf, type PeriodFormat } from './periodFormat.ts';
import { termOf, type Term } from './vocabulary.ts';

const ISO_CURRENCIES = new Set(
  'AED ARS AUD BGN BRL CAD CHF CLP CNY COP CZK DKK EGP EUR GBP HKD HUF IDR ILS INR ISK JPY KRW KZT MAD MXN MYR NGN NOK NZD PEN PHP PKR PLN QAR RON RSD RUB SAR SEK SGD THB TRY TWD UAH USD VND ZAR'.split(' '),
);
const CURRENCY_NAME = /^(cur|ccy|currency|waers|waer)|(^|_)(cur|curr|currency|ccy|waers|curkey|curkey_[a-z]+)$|currency|curkey/i;
const IDENTIFIER_NAME = /(^|_)(id|nr|no|num|number|key|code|docnr|belnr|line|pos)$|docnr|belnr|^id$/i;
const QUANTITY_NAME = /qty|quan|menge|volume|pieces|(^|_)units?$|count|cnt|headcount|hours|fte/i;
const RATE_NAME = /rate|price|pct|percent|ratio|share|factor|kurs|avg|average/i;

/** How sure the drafter is: `sure` when the name (dictionary) and the data agree, `likely` from the data alone, `guess` when a person should look. */
export type Confidence = 'sure' | 'likely' | 'guess';

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

/**
 * Whether a column holds currency keys: three upper-case letters, at least one a known ISO
 * code; or a currency-like name (cur*, currency, waers) over three-letter codes.
 * @example
 * isCurrencyColumn('curkey_lc', ['EUR', 'USD', 'GBP']); // true
 * isCurrencyColumn('segment', ['IND', 'RET']); // false
 */
function isCurrencyColumn(column: string, values: readonly string[], term: Term | undefined): boolean {
  if (values.length === 0 || !values.every((value) => /^[A-Z]{3}$/.test(value))) return false;
  return term?.role === 'currency' || values.some((value) => ISO_CURRENCIES.has(value)) || CURRENCY_NAME.test(column);
}

const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const list = (values: readonly string[], at = 5) => values.slice(0, at).join(', ') + (values.length > at ? ', …' : '');

interface Why {
  /** The dictionary entry of the column's name, if any. */
  term?: Term;
  confidence: Confidence;
  /** Why, in a few words, for the report ("SAP name bukrs", "values 202401, 202402 read as YYYYMM"). */
  basis: string;
  checks: string[];
}

export type ColumnRole =
  | (Why & {
      role: 'dimension';
      type: 'text' | 'period';
      /** For type period: the notation of the values. */
      format?: Exclude<PeriodFormat, 'year_period'>;
      currency: boolean;
      /** Every value is a year (2024): a fiscal year, the partner of a period number. */
      year: boolean;
      /** Named like a period, every value 1..16: the period of a fiscal year held in another column. */
      periodNumber: boolean;
    })
  | (Why & { role: 'measure'; aggregation: 'sum' | 'avg'; quantity: boolean });

/**
 * Measure or dimension, period, currency: the guess for one column.
 * @example
 * roleOf(profile); // { role: 'measure', aggregation: 'sum', quantity: false, confidence: 'sure', basis: 'SAP/ERP name hsl (Amount in local (company code) currency)', … }
 */
export function roleOf(profile: ColumnProfile): ColumnRole {
  const texts = profile.top.map((t) => valueText(t.value));
  const { kind, distinct, nonNull } = profile;
  // Names are read in snake_case, so DocId reads like doc_id.
  const column = logicalName(profile.column);
  const term = termOf(profile.column);
  const named = term ? `ERP name ${profile.column} (${term.meaning})` : undefined;
  const shape = `${kind}, ${count(distinct, 'distinct value')} in ${count(nonNull, 'non-NULL row')}`;
  const dimension = (why: Why, extra: Partial<Extract<ColumnRole, { role: 'dimension' }>> = {}): ColumnRole => ({ role: 'dimension', type: 'text', currency: false, year: false, periodNumber: false, ...why, ...extra });
  const keyRole = term && ['dimension', 'currency', 'label', 'language'].includes(term.role);

  const format = periodFormatOf(kind, texts);
  if (format && !keyRole && term?.role !== 'measure') {
    const from = kind === 'date' ? `a ${profile.declaredType} column` : `values ${list(texts, 3)} read as ${format}`;
    const checks = term?.role === 'period' ? [] : [`CHECK: period recognised from ${from}.`];
    return dimension({ term, confidence: term?.role === 'period' ? 'sure' : 'likely', basis: `${from}${named ? `, ${named}` : ''}`, checks }, { type: 'period', format });
  }
  if (format && term?.role !== 'measure') {
    return dimension({ term, confidence: 'sure', basis: named!, checks: [`CHECK: the values look like periods (${format}: ${list(texts, 3)}), but the name says ${term!.meaning.toLowerCase()}.`] }, { currency: term!.role === 'currency' });
  }
  if (term?.role === 'fiscal_year' || (isYearColumn(kind, texts) && !keyRole && term?.role !== 'measure')) {
    return dimension({ term, confidence: term ? 'sure' : 'likely', basis: named ?? `values ${list(texts, 3)} are years`, checks: term ? [] : [`CHECK: every value is a year (${list(texts, 3)}): drafted as a year dimension.`] }, { year: true });
  }
  if (term?.role === 'period') {
    if (isPeriodNumberColumn(kind, texts)) return dimension({ term, confidence: 'likely', basis: `${named}, values ${list(texts, 3)}`, checks: [] }, { periodNumber: true });
    return dimension({ term, confidence: 'guess', basis: named!, checks: [`CHECK: named like a period, but its values (${list(texts, 3)}) are in no period format the drafter knows (YYYYPPP, YYYYMM, YYYY-MM, a date, or 1..16 beside a fiscal year): drafted as text.`] });
  }
  if ((kind === 'text' || term?.role === 'currency') && isCurrencyColumn(column, texts, term)) {
    return dimension({ term, confidence: term ? 'sure' : 'likely', basis: named ?? `values ${list(texts)} are currency codes`, checks: term ? [] : [`CHECK: currency guessed from values ${list(texts)}${CURRENCY_NAME.test(column) ? ' and the name' : ''}.`] }, { currency: true });
  }
  const numeric = kind === 'integer' || kind === 'decimal';
  if (term?.role === 'measure') {
    if (numeric) return { role: 'measure', aggregation: 'sum', quantity: term.name === 'quantity', term, confidence: 'sure', basis: `${named}, ${kind}`, checks: [] };
    return dimension({ term, confidence: 'guess', basis: named!, checks: [`CHECK: named like a measure (${term.meaning.toLowerCase()}) but holds ${kind} values (${list(texts, 3)}): drafted as a dimension.`] });
  }
  if (keyRole) {
    return dimension({ term, confidence: 'sure', basis: named!, checks: [] });
  }
  if (numeric) {
    if (kind === 'integer' && IDENTIFIER_NAME.test(column)) {
      return dimension({ confidence: 'guess', basis: `an integer named like an identifier`, checks: [`CHECK: an identifier by its name, drafted as a dimension: is it a measure? (${shape})`] });
    }
    if (kind === 'integer' && texts.every((text) => text === '0' || text === '1')) {
      return dimension({ confidence: 'guess', basis: 'an integer holding only 0 and 1 (a flag)', checks: [`CHECK: holds only 0 and 1, drafted as a flag (dimension): is it a measure?`] });
    }
    const checks: string[] = [];
    if (kind === 'integer') checks.push(`CHECK: is this a measure or an identifier? (${shape})`);
    if (RATE_NAME.test(column)) {
      checks.push('CHECK: avg guessed from the name (rates, prices and ratios must not be summed).');
      return { role: 'measure', aggregation: 'avg', quantity: true, confidence: 'guess', basis: `a ${kind} number named like a rate`, checks };
    }
    const quantity = QUANTITY_NAME.test(column);
    if (quantity) checks.push('CHECK: a quantity by its name, so no currency: add unit (e.g. PC, KG, hours) if it has one.');
    return { role: 'measure', aggregation: 'sum', quantity, confidence: kind === 'decimal' ? 'likely' : 'guess', basis: `a ${kind} number that is not a key`, checks };
  }
  return dimension({ confidence: 'likely', basis: `${kind} values`, checks: [] });
}
