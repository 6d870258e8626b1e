/**
 * The guesses of a catalog draft, from table profiles (introspect.ts) alone, no database: which
 * columns are measures and which dimensions, which dimension is the period and which the
 * currency, which dimensions are near-unique (cardinality high), the logical names, and the
 * dimensions comparisons align on by default. Every guess a person should confirm carries a
 * `CHECK:` note, which the YAML rendering (render.ts) writes as a comment.
 */
import type { Dimension } from '../catalog.ts';
import type { ColumnProfile, TableProfile } from './introspect.ts';

/** A dimension as the catalog will hold it (catalog.ts), plus the notes of the draft. */
export interface DimensionDraft extends Pick<Dimension, 'name' | 'column' | 'type' | 'description' | 'examples' | 'cardinality'> {
  /** Why the cardinality is high (written next to it). */
  cardinalityNote?: string;
  /** True for a currency-key column (measures may point at it). */
  currency: boolean;
  checks: string[];
}

export interface MeasureDraft {
  name: string;
  column?: string;
  aggregation: 'sum' | 'count' | 'avg';
  description: string;
  currency_dimension?: string;
  unit?: string;
  checks: string[];
}

export interface SourceDraft {
  name: string;
  table: string;
  description: string;
  dimensions: DimensionDraft[];
  measures: MeasureDraft[];
  defaultMeasure?: string;
  checks: string[];
}

export interface AlignmentGuess {
  alignOn: string[];
  checks: string[];
}

/** Examples kept per dimension (fewer for near-unique ones: they are only illustrations). */
const EXAMPLES = 5;
const HIGH_CARDINALITY_EXAMPLES = 2;
/** Longer values are not useful examples (free text). */
const MAX_EXAMPLE_LENGTH = 60;
/** A numeric column with more distinct values than this (or half its rows) is a measure. */
const MANY_DISTINCT = 20;

const ISO_CURRENCIES = new Set(
  'AED ARS AUD BGN BRL CAD CHF CLP CNY COP CZK DKK EGP EUR GBP HKD HUF IDR ILS INR ISK JPY KRW KZT MAD MXN MYR NGN NOK NZD PEN PHP PKR PLN QAR RON RSD RUB SAR SEK SGD THB TRY TWD UAH USD VND ZAR'.split(' '),
);
const CURRENCY_NAME = /^(cur|ccy|currency|waers|waer)|(^|_)(cur|curr|currency|ccy|waers|curkey|curkey_[a-z]+)$|currency|curkey/i;
const PERIOD_NAME = /per|month|monat|date|datum|day|year|jahr|yr|quarter|week|time|calm|fisc/i;
const IDENTIFIER_NAME = /(^|_)(id|nr|no|num|number|key|code|docnr|belnr)$|docnr|belnr|^id$/i;
const QUANTITY_NAME = /qty|quan|menge|volume|pieces|(^|_)units?$|count|cnt|headcount|hours|fte/i;
const COMPANY_NAME = /compan|comp_?code|compcode|bukrs|entity|legal/i;
const RATE_NAME = /rate|price|pct|percent|ratio|share|factor|kurs|avg|average/i;
/** SAP-style amount suffixes naming the currency type of an amount (local, group, transaction, document…). */
const CURRENCY_TYPE_SUFFIXES = new Set(['lc', 'gc', 'tc', 'dc', 'rc', 'oc', 'fc', 'hc']);

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
export function periodFormat(values: readonly string[]): PeriodFormat | undefined {
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
export function isCurrencyColumn(column: string, values: readonly string[]): boolean {
  if (values.length === 0 || !values.every((value) => /^[A-Z]{3}$/.test(value))) return false;
  return values.some((value) => ISO_CURRENCIES.has(value)) || CURRENCY_NAME.test(column);
}

/**
 * A snake_case logical name from a column or table name (the catalog's logical-name rule).
 * @example
 * logicalName('CompCode'); // 'comp_code'
 * logicalName('2nd_Value'); // 'c_2nd_value'
 */
export function logicalName(physical: string): string {
  const snake = physical
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (snake === '') return 'column';
  return /^[a-z]/.test(snake) ? snake : `c_${snake}`;
}

/**
 * `name`, or `name_2`, `name_3`… when taken; records the name as taken.
 * @example
 * const used = new Set(['amount']);
 * uniqueName('amount', used); // 'amount_2'
 */
export function uniqueName(name: string, used: Set<string>): string {
  let candidate = name;
  for (let index = 2; used.has(candidate); index += 1) candidate = `${name}_${index}`;
  used.add(candidate);
  return candidate;
}

const suffixOf = (column: string) => (column.includes('_') ? column.slice(column.lastIndexOf('_') + 1).toLowerCase() : undefined);
const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const list = (values: readonly string[], at = 5) => values.slice(0, at).join(', ') + (values.length > at ? ', …' : '');

type ColumnRole =
  | { role: 'dimension'; type: 'text' | 'period'; currency: boolean; checks: string[] }
  | { role: 'measure'; aggregation: 'sum' | 'avg'; quantity: boolean; checks: string[] };

/** Measure or dimension, period, currency: the guess for one column. */
function roleOf(profile: ColumnProfile): ColumnRole {
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

/**
 * The source a table becomes, or the reason it cannot be one (no column fit for a dimension).
 * `usedNames` holds the source names already taken (the draft's name is added).
 * @example
 * const draft = draftSource(profile, new Set());
 * if (draft.ok) draft.source.measures.map((m) => m.name); // ['cs_trn_lc', 'quantity', 'row_count']
 */
export function draftSource(profile: TableProfile, usedNames: Set<string>): { ok: true; source: SourceDraft } | { ok: false; reason: string } {
  const used = new Set<string>();
  const dimensions: DimensionDraft[] = [];
  const measures: (MeasureDraft & { quantity: boolean })[] = [];
  const sourceChecks: string[] = profile.skipped.map((s) => `CHECK: column ${s.column} left out: ${s.reason}.`);
  for (const column of profile.columns) {
    if (column.nonNull === 0) {
      sourceChecks.push(`CHECK: column ${column.column} left out: it is NULL in every row${profile.sampled ? ' of the sample' : ''}.`);
      continue;
    }
    const guess = roleOf(column);
    const name = uniqueName(logicalName(column.column), used);
    const shape = `${column.kind}, ${count(column.distinct, 'distinct value')}`;
    if (guess.role === 'measure') {
      measures.push({
        name,
        column: column.column,
        aggregation: guess.aggregation,
        description: `Column ${column.column} (${shape}); meaning not described yet.`,
        quantity: guess.quantity,
        checks: guess.checks,
      });
      continue;
    }
    const high = column.distinct > 10_000 || (column.distinct >= 50 && column.distinct >= 0.5 * column.nonNull);
    const texts = column.top.map((t) => valueText(t.value)).filter((text) => text.trim() !== '' && text.length <= MAX_EXAMPLE_LENGTH);
    dimensions.push({
      name,
      column: column.column,
      type: guess.type,
      description: `Column ${column.column} (${shape}); meaning not described yet.`,
      examples: texts.slice(0, high ? HIGH_CARDINALITY_EXAMPLES : EXAMPLES),
      cardinality: high ? 'high' : 'low',
      ...(high ? { cardinalityNote: `CHECK: near-unique (${column.distinct} distinct values in ${column.nonNull} rows): comparisons aligned on it merge rows instead of pre-summing them` } : {}),
      currency: guess.currency,
      checks: guess.checks,
    });
  }
  if (dimensions.length === 0) return { ok: false, reason: 'no column fit for a dimension (text, period or a number with few values)' };
  // The catalog uses one period per source: the first (in table order) stays, the others become text.
  const [period, ...otherPeriods] = dimensions.filter((d) => d.type === 'period');
  for (const dimension of otherPeriods) {
    dimension.type = 'text';
    dimension.checks = [`CHECK: looks like a period too, but ${period!.column} was taken as the period (one per source); swap the type: period if this is the one.`];
  }

  const currencies = dimensions.filter((d) => d.currency);
  for (const measure of measures) {
    if (measure.quantity || measure.aggregation !== 'sum') continue;
    const suffix = suffixOf(measure.column!);
    const sameSuffix = currencies.find((c) => suffix !== undefined && suffixOf(c.column) === suffix);
    if (sameSuffix) {
      measure.currency_dimension = sameSuffix.name;
      measure.checks.push(`CHECK: amounts in the currency of ${sameSuffix.column} (same suffix _${suffix}); if not, set currency: (ISO code) or unit instead.`);
      continue;
    }
    const only = currencies.length === 1 ? currencies[0]! : undefined;
    const otherType = only && suffix !== undefined && CURRENCY_TYPE_SUFFIXES.has(suffix) && CURRENCY_TYPE_SUFFIXES.has(suffixOf(only.column) ?? '');
    if (only && !otherType) {
      measure.currency_dimension = only.name;
      measure.checks.push(`CHECK: amounts in the currency of ${only.column}, the table's only currency column? If not, set currency: (ISO code) or unit instead.`);
    } else if (currencies.length > 0) {
      measure.checks.push(`CHECK: no currency attached: ${currencies.map((c) => c.column).join(', ')} does not match the suffix _${suffix ?? ''}. If this is in one currency (group currency?), add currency: (ISO code, e.g. EUR); else currency_dimension or unit.`);
    } else {
      measure.checks.push('CHECK: no currency column found: add currency: (ISO code), currency_dimension, or unit.');
    }
  }
  const rowCount: MeasureDraft = {
    name: uniqueName('row_count', used),
    aggregation: 'count',
    unit: 'rows',
    description: 'Number of rows',
    checks: [],
  };
  const amount = measures.find((m) => m.currency_dimension !== undefined) ?? measures.find((m) => !m.quantity) ?? measures[0];
  const name = uniqueName(logicalName(profile.table), usedNames);
  const rows = profile.sampled ? `more than ${profile.rows} rows (the draft read the first ${profile.rows})` : count(profile.rows, 'row');
  return {
    ok: true,
    source: {
      name,
      table: profile.table,
      description: `Table ${profile.table}, ${rows} when drafted; what one row is and what the table holds is not described yet.`,
      dimensions,
      measures: [...measures.map(({ quantity: _quantity, ...measure }) => measure), rowCount],
      defaultMeasure: (amount ?? rowCount).name,
      checks: sourceChecks,
    },
  };
}

/**
 * The dimensions comparisons align on by default: company and period when most sources have
 * them; else the dimensions most sources share (more than half of them, low cardinality): a
 * shared one that is neither period nor currency (company-like names first, then the most
 * shared), then the shared period.
 * @example
 * guessAlignOn(sources).alignOn; // ['compcode', 'fiscper']
 */
export function guessAlignOn(sources: readonly SourceDraft[]): AlignmentGuess {
  const shared = new Map<string, { count: number; period: boolean; currency: boolean }>();
  for (const source of sources) {
    for (const dimension of source.dimensions) {
      if (dimension.cardinality === 'high') continue;
      const entry = shared.get(dimension.name) ?? { count: 0, period: false, currency: false };
      entry.count += 1;
      entry.period ||= dimension.type === 'period';
      entry.currency ||= dimension.currency;
      shared.set(dimension.name, entry);
    }
  }
  const most = (name: string) => (shared.get(name)?.count ?? 0) > sources.length / 2;
  const among = (name: string) => `${name} in ${shared.get(name)!.count} of ${sources.length} sources`;
  if (most('company') && most('period')) {
    return { alignOn: ['company', 'period'], checks: [`CHECK: guessed from the dimensions most sources share (${among('company')}, ${among('period')}).`] };
  }
  // Company-like names first (company is what the bundled skills align on), then the most shared, then the first seen.
  const candidates = [...shared.entries()]
    .filter(([name]) => most(name))
    .map((entry, index) => ({ entry, index, company: COMPANY_NAME.test(entry[0]) }))
    .sort((a, b) => Number(b.company) - Number(a.company) || b.entry[1].count - a.entry[1].count || a.index - b.index)
    .map(({ entry }) => entry);
  const other = candidates.find(([, entry]) => !entry.period && !entry.currency)?.[0];
  const period = candidates.find(([, entry]) => entry.period)?.[0];
  const alignOn = [other, period].filter((name): name is string => name !== undefined);
  const checks = [
    alignOn.length > 0
      ? `CHECK: guessed from the dimensions most sources share (${alignOn.map(among).join(', ')}).`
      : 'CHECK: no dimension is shared by most sources: list the dimensions comparisons align on.',
    'The bundled skills expect the logical names company and period here and in each source: rename those dimensions (and this list) to match.',
  ];
  return { alignOn, checks };
}
