/**
 * compare_sources: reconciles one measure between two sources (or two versions of one
 * source) on common dimensions, classifies every aligned row, and explains the result.
 */
import { z } from 'zod';
import { briefForModel, checkFilterValuesExist, closestMatch, commonDimensions, defaultFiltersNote, defineTool, filtersArgument, findMeasure, findSource, listedValuesNotHeld, measureUnit, nameArgument, resolveFilters, suggestionHint, thresholdSchema, ToolError, toWhere, type Catalog, type Condition, type FilterInput, type Measure, type Source, type ToolContext, type ValueNotHeld } from '../../src/skills/api.ts';
import { reconcile, type ComparisonOutcome, type KeyExpression, type Thresholds } from './classification.ts';
import { interpretComparison } from './interpretation.ts';
import { rememberComparison, STORED_DIFFERENCES } from './comparisonStore.ts';
import { presentComparison } from './presentations.ts';
import { comparisonOutput } from './schemas.ts';
import { describeComparison } from './summaries.ts';
import { DEFAULT_TOP_DIFFERENCES } from './limits.ts';

/** compare_sources arguments; explain_difference accepts them too. */
export const compareInput = z.strictObject({
  source_a: nameArgument(),
  source_b: nameArgument().describe('may equal source_a to compare versions'),
  measure: briefForModel(z.union([nameArgument(), z.strictObject({ a: nameArgument(), b: nameArgument() })])).describe('a measure, or {"a": …, "b": …} per side'),
  align_on: z.array(nameArgument()).max(8).optional().describe('default: company, period'),
  filters: filtersArgument('both sides'),
  filters_a: filtersArgument('side a only, e.g. {"version":"ACTUAL"}'),
  filters_b: filtersArgument('side b only'),
  thresholds: briefForModel(z.strictObject({ match: thresholdSchema.partial().optional(), minor: thresholdSchema.partial().optional() }).optional()).describe(
    '{"match"|"minor": {"absolute", "percent"}}; default: the catalog\'s',
  ),
  top: z.number().int().min(1).max(STORED_DIFFERENCES).optional().describe(`differences listed (default ${DEFAULT_TOP_DIFFERENCES})`),
});

export type CompareArguments = z.infer<typeof compareInput>;
export type ComparisonResult = Awaited<ReturnType<typeof compare>>;

const output = comparisonOutput.extend({
  comparison_id: z.string().describe('pass it to list_differences or explain_difference'),
  more_differences: z.string().optional(),
});

export const compareSources = defineTool({
  name: 'compare_sources',
  description: 'Reconcile a measure between two sources or two versions of one: totals, differing rows and a comparison_id.',
  input: compareInput,
  output,
  handler: async (args, context) => {
    const shown = args.top ?? DEFAULT_TOP_DIFFERENCES;
    const result = await compare({ ...args, top: Math.max(shown, STORED_DIFFERENCES) }, context, { checkSides: true });
    const comparisonId = await rememberComparison(context, { args: { ...args }, result });
    return {
      comparison_id: comparisonId,
      ...result,
      top_differences: result.top_differences.slice(0, shown),
      ...(result.top_differences.length > shown ? { more_differences: `list_differences with comparison_id '${comparisonId}' pages through up to ${STORED_DIFFERENCES} differences.` } : {}),
    };
  },
  summarize: describeComparison,
  present: presentComparison,
});

/** How compare() treats a side without rows. */
export interface CompareOptions {
  /**
   * A side without rows (or a listed filter value no row holds) is checked: a value the source
   * does not hold is an error, an empty combination is said as "no rows", never a 0.00 side.
   * For the comparison a caller asked for; explain_difference's drill-downs leave it off (a row
   * only in one source is what they explain).
   */
  checkSides?: boolean;
}

/** Runs a comparison as compare_sources describes it; explain_difference reuses it to drill down. */
export async function compare(args: CompareArguments, context: ToolContext, options: CompareOptions = {}) {
  const { catalog } = context;
  const sourceA = findSource(catalog, args.source_a);
  const sourceB = findSource(catalog, args.source_b);
  const measureA = findMeasure(sourceA, typeof args.measure === 'string' ? args.measure : args.measure.a);
  const measureB = findMeasure(sourceB, typeof args.measure === 'string' ? args.measure : args.measure.b);
  const common = commonDimensions(sourceA, sourceB);
  const alignOn = resolveAlignOn(catalog, sourceA, sourceB, common, args.align_on);
  const notes: string[] = [];
  const filtersA = resolveSide(sourceA, mergeFilters(args.filters, args.filters_a, sourceA, sourceB, 'a'), 'a');
  const filtersB = resolveSide(sourceB, mergeFilters(args.filters, args.filters_b, sourceA, sourceB, 'b'), 'b');
  const thresholds = mergeThresholds(catalog.thresholds, args.thresholds);
  const currencyKey = currencyAlignment(measureA, measureB, alignOn, notes);
  const keyNames = [...alignOn, ...(currencyKey.added ? ['currency'] : [])];
  const keyOf = (source: Source, measure: Measure): KeyExpression[] => [
    ...alignOn.map((name) => ({ column: source.dimensions.get(name)!.column })),
    ...(currencyKey.added ? [currencyExpression(source, measure)] : []),
  ];

  const outcome = await reconcile(context.data, {
    keyNames,
    a: { table: sourceA.table, connection: sourceA.connection, measure: { function: measureA.aggregation, column: measureA.column }, keys: keyOf(sourceA, measureA), where: toWhere(filtersA.conditions) },
    b: { table: sourceB.table, connection: sourceB.connection, measure: { function: measureB.aggregation, column: measureB.column }, keys: keyOf(sourceB, measureB), where: toWhere(filtersB.conditions) },
    thresholds,
    top: args.top ?? DEFAULT_TOP_DIFFERENCES,
    currencyKeyIndex: currencyKey.index,
    preAggregate: alignOn.every((name) => sourceA.dimensions.get(name)!.cardinality === 'low' && sourceB.dimensions.get(name)!.cardinality === 'low'),
  }, context.signal);
  const names = { a: labelOf(sourceA, filtersA.applied, sourceB, filtersB.applied, 'a'), b: labelOf(sourceA, filtersA.applied, sourceB, filtersB.applied, 'b') };
  const sides = { a: { source: sourceA, filters: filtersA }, b: { source: sourceB, filters: filtersB } };
  const withoutRows = emptySides(outcome);
  const notHeld: (ValueNotHeld & { side: 'a' | 'b' })[] = [];
  if (outcome.alignedRows === 0) await explainNoRows(sourceA, sourceB, filtersA.conditions, filtersB.conditions, context, notes);
  else if (options.checkSides) {
    for (const side of ['a', 'b'] as const) {
      const { source, filters } = sides[side];
      const details = { side };
      if (withoutRows.includes(side)) await checkFilterValuesExist(source, filters.conditions, context, { details });
      else notHeld.push(...(await listedValuesNotHeld(source, filters.conditions, context)).map((value) => ({ side, ...value })));
    }
    for (const value of notHeld) notes.push(`Side ${value.side}: ${value.statement} Its figures cover the other listed values only.`);
    for (const side of withoutRows) notes.push(`${names[side]} has no rows for ${describeApplied(sides[side].filters.applied)} (each filter value exists on its own): its side is empty, not a total of 0.00.`);
  }
  for (const [side, filters] of [['a', filtersA], ['b', filtersB]] as const) {
    const defaults = defaultFiltersNote(filters.defaultsApplied, `Side ${side} (${names[side]})`, false);
    if (defaults) notes.push(defaults);
  }
  return {
    source_a: sourceA.name,
    source_b: sourceB.name,
    measure_a: { name: measureA.name, unit: measureUnit(measureA) },
    measure_b: { name: measureB.name, unit: measureUnit(measureB) },
    align_on: keyNames,
    filters_a: filtersA.applied,
    filters_b: filtersB.applied,
    thresholds,
    summary: summaryOf(outcome),
    top_differences: outcome.top.map((row) => ({
      ...row.key,
      a: row.a,
      b: row.b,
      difference: row.difference,
      difference_percent: row.percent,
      status: row.status,
    })),
    interpretation: interpretComparison(outcome, names, withoutRows),
    ...(withoutRows.length ? { sides_without_rows: withoutRows } : {}),
    ...(notHeld.length ? { values_not_held: notHeld } : {}),
    ...(notes.length ? { notes } : {}),
    ...(outcome.method ? { merged_by: { method: outcome.method.name, passes: outcome.method.passes, segments_compared: outcome.method.segments, rows_read: outcome.method.rows } } : {}),
  };
}

function resolveAlignOn(catalog: Catalog, a: Source, b: Source, common: string[], requested: string[] | undefined): string[] {
  if (requested === undefined) return catalog.defaultAlignOn.filter((name) => common.includes(name));
  for (const name of requested) {
    if (!common.includes(name)) {
      throw new ToolError('not_comparable', `'${name}' is not a dimension of both '${a.name}' and '${b.name}', so rows cannot be aligned on it.`, {
        hint: suggestionHint(name, common),
        details: { argument: 'align_on', choices: common, closest: closestMatch(name, common) ?? null },
      });
    }
  }
  return [...new Set(requested)];
}

/** A side's filters resolved; a value the source does not hold (FI has no BUDGET) names its side. */
function resolveSide(source: Source, filters: FilterInput, side: 'a' | 'b') {
  try {
    return resolveFilters(source, filters);
  } catch (error) {
    if (ToolError.isInstance(error) && error.code === 'value_not_held') error.details.side = side;
    throw error;
  }
}

/** Shared filters must exist on both sides; side filters override shared ones for the same dimension. */
function mergeFilters(shared: FilterInput | undefined, own: FilterInput | undefined, a: Source, b: Source, side: 'a' | 'b'): FilterInput {
  for (const name of Object.keys(shared ?? {})) {
    // A dimension a source implies (FI: version ACTUAL) is a filter it takes too: resolveFilters checks the value.
    const missing = [a, b].find((source) => !source.dimensions.has(name) && source.implied[name] === undefined);
    if (missing) {
      const choices = commonDimensions(a, b);
      throw new ToolError('unknown_dimension', `Filter '${name}' is not a dimension of '${missing.name}'; shared filters must exist in both sources.`, {
        hint: `${suggestionHint(name, choices)} Use filters_${side === 'a' ? 'b' : 'a'} or filters_${side} for one side only.`,
        details: { argument: 'filters', choices, closest: closestMatch(name, choices) ?? null },
      });
    }
  }
  return { ...shared, ...own };
}

function mergeThresholds(base: Thresholds, override: CompareArguments['thresholds']): Thresholds {
  const match = { ...base.match, ...override?.match };
  const minor = { ...base.minor, ...override?.minor };
  if (match.absolute > minor.absolute || match.percent > minor.percent) {
    throw new ToolError('invalid_value', 'thresholds.match must not exceed thresholds.minor.', {
      hint: `Effective thresholds would be match ${JSON.stringify(match)}, minor ${JSON.stringify(minor)}.`,
      details: { argument: 'thresholds' },
    });
  }
  return { match, minor };
}

/**
 * Amounts in different currencies must never be netted: when both measures carry a currency,
 * rows are aligned per currency too (unless the currency dimension is already aligned on).
 */
function currencyAlignment(measureA: Measure, measureB: Measure, alignOn: string[], notes: string[]): { added: boolean; index: number | undefined } {
  const hasCurrency = (m: Measure) => m.currency !== undefined || m.currencyDimension !== undefined;
  if (!hasCurrency(measureA) || !hasCurrency(measureB)) {
    if (hasCurrency(measureA) !== hasCurrency(measureB)) notes.push('Only one side is a currency amount; check that the two measures are comparable.');
    return { added: false, index: undefined };
  }
  if (measureA.currencyDimension && measureA.currencyDimension === measureB.currencyDimension && alignOn.includes(measureA.currencyDimension)) {
    return { added: false, index: alignOn.indexOf(measureA.currencyDimension) };
  }
  if (measureA.currency && measureB.currency && measureA.currency !== measureB.currency) {
    notes.push(`Side a is in ${measureA.currency} and side b in ${measureB.currency}: rows cannot match across currencies.`);
  }
  return { added: true, index: alignOn.length };
}

function currencyExpression(source: Source, measure: Measure): KeyExpression {
  if (measure.currency) return { literal: measure.currency };
  return { column: source.dimensions.get(measure.currencyDimension!)!.column };
}

async function explainNoRows(a: Source, b: Source, conditionsA: Condition[], conditionsB: Condition[], context: ToolContext, notes: string[]) {
  await checkFilterValuesExist(a, conditionsA, context);
  await checkFilterValuesExist(b, conditionsB, context);
  notes.push('Neither side has rows for this combination of filters (each filter value exists on its own).');
}

/** The sides no aligned row has a value on: every row is only in the other side (both when there are none). */
function emptySides(outcome: Pick<ComparisonOutcome, 'alignedRows' | 'counts'>): ('a' | 'b')[] {
  const { alignedRows, counts } = outcome;
  if (alignedRows === 0) return ['a', 'b'];
  return [...(counts.only_in_b === alignedRows ? ['a' as const] : []), ...(counts.only_in_a === alignedRows ? ['b' as const] : [])];
}

/** "company 1000, audit trail ADJ_MANUAL, period 2024001–2024012": applied filters in words. */
function describeApplied(applied: Record<string, unknown>): string {
  const show = (value: unknown): string => {
    if (Array.isArray(value)) return value.map(show).join(' or ');
    if (value !== null && typeof value === 'object') {
      const range = value as { from?: string; to?: string };
      return `${range.from ?? '…'}–${range.to ?? '…'}`;
    }
    return value === null ? '(blank)' : String(value);
  };
  return Object.entries(applied).map(([name, value]) => `${name.replace(/_/g, ' ')} ${show(value)}`).join(', ') || 'these filters';
}

/** "fi_reporting", or "consolidation_mart (BUDGET)" when both sides are the same source. */
function labelOf(a: Source, filtersA: Record<string, unknown>, b: Source, filtersB: Record<string, unknown>, side: 'a' | 'b'): string {
  const source = side === 'a' ? a : b;
  if (a.name !== b.name) return source.name;
  const own = side === 'a' ? filtersA : filtersB;
  const other = side === 'a' ? filtersB : filtersA;
  const differing = Object.keys(own).filter((key) => JSON.stringify(own[key]) !== JSON.stringify(other[key]));
  return differing.length ? `${source.name} (${differing.map((key) => String(own[key])).join(', ')})` : `${source.name} (${side})`;
}

function summaryOf(outcome: ComparisonOutcome) {
  return {
    aligned_rows: outcome.alignedRows,
    ...outcome.counts,
    totals: outcome.totals.map((t) => ({
      ...(t.currency !== null ? { currency: t.currency } : {}),
      total_a: t.a,
      total_b: t.b,
      difference: t.difference,
      difference_percent: t.a === 0 ? null : Math.round((Math.abs(t.difference) / Math.abs(t.a)) * 100 * 100) / 100,
    })),
  };
}
