/**
 * What both movement tools resolve first, through the catalog only: the source, the measure,
 * its period dimension, the filters (defaults included) and a period side as a condition.
 * Every unknown name becomes a ToolError with the valid choices, never SQL.
 */
import { aggregateOf, findDimension, findMeasure, findSource, measureUnit, periodDimension, resolveFilters, textFormat, ToolError, toWhere, type Catalog, type Condition, type Dimension, type FilterInput, type Measure, type Source, type ToolContext, type Value } from '../../src/skills/api.ts';
import { MAX_GROUPS } from './schemas.ts';

export type PeriodInput = string | { from: string; to: string };

export interface Scope {
  source: Source;
  measure: Measure;
  unit: string;
  period: Dimension;
  /** The local-currency dimension of the measure, grouped by so currencies are never added. */
  currency: Dimension | undefined;
  conditions: Condition[];
  applied: Record<string, unknown>;
}

/**
 * Resolves source, measure and filters; refuses a period filter (the sides say the periods).
 * @throws ToolError unknown_source / unknown_measure / unknown_dimension / invalid_value
 * @example
 * resolveScope(catalog, 'fi_reporting', 'amount', { company: '1000' }).currency?.name // 'currency'
 */
export function resolveScope(catalog: Catalog, sourceName: string, measureName: string | undefined, filters: FilterInput | undefined): Scope {
  const source = findSource(catalog, sourceName);
  const measure = findMeasure(source, measureName ?? source.defaultMeasures[0] ?? [...source.measures.keys()][0]!);
  const period = periodDimension(source);
  if (!period) {
    throw new ToolError('unknown_dimension', `Source '${source.name}' has no period dimension, so periods cannot be compared.`, {
      hint: 'Use a source with a period dimension, e.g. fi_reporting.',
      details: { source: source.name, dimension: 'period' },
    });
  }
  if (filters && period.name in filters) {
    throw new ToolError('invalid_value', `Do not filter '${period.name}': the periods are given as period_a and period_b (or periods).`, {
      hint: 'Remove the period filter and pass the periods as their own arguments.',
      details: { argument: 'filters', dimension: period.name },
    });
  }
  const resolved = resolveFilters(source, filters);
  const currency = measure.currencyDimension ? findDimension(source, measure.currencyDimension) : undefined;
  return { source, measure, unit: measureUnit(measure), period, currency, conditions: resolved.conditions, applied: resolved.applied };
}

/**
 * One period side as a condition on the period dimension ("Q4 2024" → a range).
 * @throws ToolError invalid_value for a text that is no period
 * @example
 * sideCondition(scope, 'Q4 2024') // { kind: 'range', from: '2024010', to: '2024012', … }
 */
export function sideCondition(scope: Scope, value: PeriodInput): Condition {
  const resolved = resolveFilters(scope.source, { [scope.period.name]: value }, { applyDefaults: false });
  return resolved.conditions[0]!;
}

/** The side as {from, to}, for results and labels. */
export function sideRange(condition: Condition): { from: string; to: string } {
  if (condition.kind === 'range') return { from: condition.from ?? '', to: condition.to ?? '' };
  const values = condition.values.filter((v): v is string => v !== null).sort();
  return { from: values[0] ?? '', to: values.at(-1) ?? '' };
}

/** "November 2024", "October 2024–December 2024". */
export function sideLabel(range: { from: string; to: string }): string {
  return textFormat().span(range);
}


/** Amounts to the cent, percentages to two decimals. */
export const round = (value: number) => Math.round(value * 100) / 100;

/**
 * One side's groups: the measure as `value`, grouped by the keys (and the currency), within the
 * scope's filters and the extra conditions (a period side); at most MAX_GROUPS rows.
 *
 * @example
 * const { rows, truncated } = await aggregateValue(scope, [scope.period], [sideCondition(scope, '2024012')], context);
 */
export async function aggregateValue(scope: Scope, groupBy: { name: string; column: string }[], extra: Condition[], context: ToolContext) {
  const result = await context.data.run(
    {
      kind: 'select',
      table: scope.source.table,
      connection: scope.source.connection,
      columns: groupBy.map((d) => ({ name: d.name, column: d.column })),
      aggregates: [aggregateOf('value', { function: scope.measure.aggregation, column: scope.measure.column })],
      where: toWhere([...scope.conditions, ...extra]),
      limit: MAX_GROUPS,
      countAll: true,
    },
    context.signal,
  );
  // Plain columns and one measure: every value is a scalar.
  return { rows: result.rows as Record<string, Value>[], truncated: (result.total ?? 0) > result.rows.length };
}
