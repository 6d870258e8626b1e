/**
 * The guesses of a catalog draft, from table profiles (introspect.ts) alone, no database: the
 * sources tables become, from each column's guess (columnRole.ts: measure or dimension, period,
 * currency) and its logical name (logicalNames.ts); which dimensions are near-unique (cardinality
 * high), one period per source, which currency each amount is in, and the dimensions comparisons
 * align on by default. Every guess a person should confirm carries a `CHECK:` note, which the
 * YAML rendering (render.ts) writes as a comment.
 */
import type { Dimension } from '../catalog.ts';
import { roleOf, valueText } from './columnRole.ts';
import type { TableProfile } from './introspect.ts';
import { logicalName, uniqueName } from './logicalNames.ts';

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

const COMPANY_NAME = /compan|comp_?code|compcode|bukrs|entity|legal/i;
/** SAP-style amount suffixes naming the currency type of an amount (local, group, transaction, document…). */
const CURRENCY_TYPE_SUFFIXES = new Set(['lc', 'gc', 'tc', 'dc', 'rc', 'oc', 'fc', 'hc']);

const suffixOf = (column: string) => (column.includes('_') ? column.slice(column.lastIndexOf('_') + 1).toLowerCase() : undefined);
const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

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
