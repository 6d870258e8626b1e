/**
 * The guesses of a catalog draft, from table profiles (introspect.ts) alone, no database: the
 * sources tables become, from each column's guess (columnRole.ts: measure or dimension, period
 * and its format, currency) and its logical name and synonyms (the ERP dictionary,
 * vocabulary.ts, else logicalNames.ts); which dimensions are near-unique (cardinality high), one
 * period per source (a monthly notation before a date; a fiscal year and a period number held in
 * two columns make one), which currency each amount is in, and the dimensions comparisons align
 * on by default. Every guess a person should confirm carries a `CHECK:` note, which the YAML
 * rendering (render.ts) writes as a comment; every decision carries how sure it is, for the report.
 */
import type { Dimension } from '../catalog.ts';
import { roleOf, valueText, type Confidence } from './columnRole.ts';
import type { TableProfile } from './introspect.ts';
import { logicalName, uniqueName } from './logicalNames.ts';
import type { PeriodFormat } from './periodFormat.ts';
import { ROW_COUNT_WORDS, type Term } from './vocabulary.ts';

/** A dimension as the catalog will hold it (catalog.ts), plus the notes of the draft. */
export interface DimensionDraft extends Pick<Dimension, 'name' | 'column' | 'type' | 'description' | 'examples' | 'cardinality' | 'synonyms'> {
  /** Why the cardinality is high (written next to it). */
  cardinalityNote?: string;
  /** True for a currency-key column (measures may point at it). */
  currency: boolean;
  /** For the period: its notation (schema.ts `format`), and the fiscal year's column for `year_period`. */
  format?: PeriodFormat;
  yearColumn?: string;
  /** Business names of values (value → [label, other names…]), from master data (masterData.ts). */
  values: Record<string, string[]>;
  /** The dictionary's concept (company, account…), when the name is in it. */
  concept?: string;
  /** Every value is a year / a period number 1..16 (the halves of a split period). */
  year: boolean;
  periodNumber: boolean;
  confidence: Confidence;
  basis: string;
  checks: string[];
}

export interface MeasureDraft {
  name: string;
  column?: string;
  aggregation: 'sum' | 'count' | 'avg';
  description: string;
  currency_dimension?: string;
  unit?: string;
  synonyms: string[];
  confidence: Confidence;
  basis: string;
  checks: string[];
}

export interface SourceDraft {
  name: string;
  table: string;
  description: string;
  /** The catalog connection the table is on (default unless drafted from files). */
  connection?: string;
  aliases: string[];
  /** Dimensions every row has one value of (version ACTUAL / BUDGET of a drafted pair, pairing.ts). */
  implied: Record<string, string>;
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

const COMPANY_NAME = /compan|comp_?code|compcode|bukrs|entity|legal/i;
/** SAP-style amount suffixes naming the currency type of an amount (local, group, transaction, document…). */
const CURRENCY_TYPE_SUFFIXES = new Set(['lc', 'gc', 'tc', 'dc', 'rc', 'oc', 'fc', 'hc']);
/** Monthly notations are better periods than a date column (a posting date). */
const FORMAT_RANK: Record<PeriodFormat, number> = { YYYYPPP: 0, YYYYMM: 0, 'YYYY-MM': 0, year_period: 1, date: 2 };

const suffixOf = (column: string) => (column.includes('_') ? column.slice(column.lastIndexOf('_') + 1).toLowerCase() : undefined);
const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
/** Labels and language keys name only master data; in a fact table they keep their own name. */
const nameOf = (term: Term | undefined, column: string) => (term && term.role !== 'label' && term.role !== 'language' ? term.name : logicalName(column));

/**
 * The source a table becomes, or the reason it cannot be one (no column fit for a dimension).
 * `usedNames` holds the source names already taken (the draft's name is added).
 * @example
 * const draft = draftSource(profile, new Set());
 * if (draft.ok) draft.source.measures.map((m) => m.name); // ['cs_trn_lc', 'quantity', 'row_count']
 */
export function draftSource(profile: TableProfile, usedNames: Set<string>): { ok: true; source: SourceDraft } | { ok: false; reason: string } {
  const sourceChecks: string[] = profile.skipped.map((s) => `CHECK: column ${s.column} left out: ${s.reason}.`);
  const guessed = profile.columns.flatMap((column) => {
    if (column.nonNull > 0) return [{ column, guess: roleOf(column) }];
    sourceChecks.push(`CHECK: column ${column.column} left out: it is NULL in every row${profile.sampled ? ' of the sample' : ''}.`);
    return [];
  });
  // One period per source: a monthly notation first, the dictionary's period names before others, then table order.
  const periods = guessed
    .map((entry, index) => ({ ...entry, index }))
    .filter(({ guess }) => guess.role === 'dimension' && guess.type === 'period')
    .sort((a, b) => rank(a.guess) - rank(b.guess) || a.index - b.index);
  let period = periods[0];
  // No period column, but a period number (monat 1..12) beside a fiscal year (gjahr): they are one period.
  const year = guessed.find(({ guess }) => guess.role === 'dimension' && guess.year);
  const split = !period && year ? guessed.find(({ guess }) => guess.role === 'dimension' && guess.periodNumber) : undefined;
  const chosen = period?.column ?? split?.column;

  // The chosen period names first, so it gets `period` even when a demoted one comes earlier; then
  // the dictionary's primary holders of a name (rhcur is `currency` even after rtcur, which has an alternative).
  const used = new Set<string>();
  const names = new Map<string, string>();
  const order = (entry: (typeof guessed)[number]) => (entry.column === chosen ? 0 : entry.guess.term?.alternative ? 2 : 1);
  for (const { column, guess } of [...guessed].sort((a, b) => order(a) - order(b))) {
    const wanted = nameOf(guess.term, column.column);
    names.set(column.column, uniqueName(used.has(wanted) ? (guess.term?.alternative ?? logicalName(column.column)) : wanted, used));
  }

  const dimensions: DimensionDraft[] = [];
  const measures: (MeasureDraft & { quantity: boolean; currencyColumns?: readonly string[]; anyCurrency?: boolean })[] = [];
  for (const { column, guess } of guessed) {
    const name = names.get(column.column)!;
    const shape = `${column.kind}, ${count(column.distinct, 'distinct value')}`;
    const meaning = guess.term && guess.term.role !== 'label' && guess.term.role !== 'language' ? `${guess.term.meaning} (column ${column.column}, ${shape}); CHECK the meaning.` : `Column ${column.column} (${shape}); meaning not described yet.`;
    const synonyms = !guess.term || guess.term.role === 'label' || guess.term.role === 'language' ? [] : name === guess.term.alternative ? [name.replace(/_/g, ' ')] : [...guess.term.synonyms];
    if (guess.role === 'measure') {
      measures.push({ name, column: column.column, aggregation: guess.aggregation, description: meaning, synonyms, quantity: guess.quantity, currencyColumns: guess.term?.currencyColumns, anyCurrency: guess.term?.anyCurrency, confidence: guess.confidence, basis: guess.basis, checks: guess.checks });
      continue;
    }
    const high = guess.term?.cardinality === 'high' || column.distinct > 10_000 || (column.distinct >= 50 && column.distinct >= 0.5 * column.nonNull);
    const texts = column.top.map((t) => valueText(t.value)).filter((text) => text.trim() !== '' && text.length <= MAX_EXAMPLE_LENGTH);
    const dimension: DimensionDraft = {
      name,
      column: column.column,
      type: 'text',
      description: meaning,
      examples: texts.slice(0, high ? HIGH_CARDINALITY_EXAMPLES : EXAMPLES),
      cardinality: high ? 'high' : 'low',
      ...(high ? { cardinalityNote: `${guess.term?.cardinality === 'high' ? '' : 'CHECK: '}near-unique (${column.distinct} distinct values in ${column.nonNull} rows): comparisons aligned on it merge rows instead of pre-summing them` } : {}),
      synonyms,
      values: {},
      currency: guess.currency,
      ...(guess.term ? { concept: guess.term.name } : {}),
      year: guess.year,
      periodNumber: guess.periodNumber,
      confidence: guess.confidence,
      basis: guess.basis,
      checks: guess.checks,
    };
    if (column.column === period?.column.column && guess.type === 'period') {
      Object.assign(dimension, { type: 'period', format: guess.format });
    } else if (column.column === split?.column.column) {
      Object.assign(dimension, { type: 'period', format: 'year_period', yearColumn: year!.column.column, confidence: 'likely', basis: `${guess.basis}, with the fiscal year in ${year!.column.column}` });
      dimension.checks = [`CHECK: the period is held in two columns: fiscal year ${year!.column.column} and period ${column.column} (format year_period).`];
    } else if (guess.periodNumber) {
      dimension.checks = [`CHECK: period numbers (${dimension.examples.slice(0, 3).join(', ')}) ${period ? `beside the period ${period.column.column}` : 'without a fiscal-year column'}: drafted as text.`];
    } else if (guess.type === 'period') {
      dimension.checks = [`CHECK: looks like a period too (${guess.format}), but ${period!.column.column} was taken as the period (one per source); swap the type: period if this is the one.`];
    }
    dimensions.push(dimension);
  }
  if (dimensions.length === 0) return { ok: false, reason: 'no column fit for a dimension (text, a date or period, a key)' };
  attachCurrencies(dimensions, measures);

  const rowCount: MeasureDraft = { name: uniqueName('row_count', used), aggregation: 'count', unit: 'rows', description: 'Number of rows', synonyms: [...ROW_COUNT_WORDS], confidence: 'sure', basis: 'every source counts its rows', checks: [] };
  const amount = measures.find((m) => m.name === 'amount') ?? measures.find((m) => m.currency_dimension !== undefined) ?? measures.find((m) => !m.quantity) ?? measures[0];
  const name = uniqueName(logicalName(profile.table), usedNames);
  const rows = profile.sampled ? `more than ${profile.rows} rows (the draft read the first ${profile.rows})` : count(profile.rows, 'row');
  return {
    ok: true,
    source: {
      name,
      table: profile.table,
      description: `Table ${profile.table}, ${rows} when drafted; what one row is and what the table holds is not described yet.`,
      aliases: [],
      implied: {},
      dimensions,
      measures: [...measures.map(({ quantity: _q, currencyColumns: _c, anyCurrency: _a, ...measure }) => measure), rowCount],
      defaultMeasure: (amount ?? rowCount).name,
      checks: sourceChecks,
    },
  };
}

function rank(guess: ReturnType<typeof roleOf>): number {
  const format = guess.role === 'dimension' ? guess.format : undefined;
  return (format ? FORMAT_RANK[format] : 3) * 2 + (guess.term?.role === 'period' ? 0 : 1);
}

/**
 * Each amount's currency: the dictionary's currency column for it (hsl → rhcur, rwcur, waers…),
 * else a currency column with the same suffix (cs_trn_lc → curkey_lc), else the table's only
 * currency column unless the amount is in a fixed currency (group currency).
 */
function attachCurrencies(dimensions: DimensionDraft[], measures: (MeasureDraft & { quantity: boolean; currencyColumns?: readonly string[]; anyCurrency?: boolean })[]): void {
  const currencies = dimensions.filter((d) => d.currency);
  for (const measure of measures) {
    if (measure.quantity || measure.aggregation !== 'sum') continue;
    const named = measure.currencyColumns?.map((wanted) => currencies.find((c) => logicalName(c.column) === wanted)).find((c) => c !== undefined);
    if (named) {
      measure.currency_dimension = named.name;
      continue;
    }
    const suffix = suffixOf(measure.column!);
    const sameSuffix = currencies.find((c) => suffix !== undefined && suffixOf(c.column) === suffix);
    if (sameSuffix) {
      measure.currency_dimension = sameSuffix.name;
      measure.checks.push(`CHECK: amounts in the currency of ${sameSuffix.column} (same suffix _${suffix}); if not, set currency: (ISO code) or unit instead.`);
      continue;
    }
    const only = currencies.length === 1 ? currencies[0]! : undefined;
    const otherType = measure.anyCurrency === false || (only && suffix !== undefined && CURRENCY_TYPE_SUFFIXES.has(suffix) && CURRENCY_TYPE_SUFFIXES.has(suffixOf(only.column) ?? ''));
    if (only && !otherType) {
      measure.currency_dimension = only.name;
      measure.checks.push(`CHECK: amounts in the currency of ${only.column}, the table's only currency column? If not, set currency: (ISO code) or unit instead.`);
    } else if (currencies.length > 0) {
      measure.checks.push(`CHECK: no currency attached: ${currencies.map((c) => c.column).join(', ')} does not go with ${measure.column}. If this is in one currency (group currency?), add currency: (ISO code, e.g. EUR); else currency_dimension or unit.`);
    } else {
      measure.checks.push('CHECK: no currency column found: add currency: (ISO code), currency_dimension, or unit.');
    }
  }
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
