/**
 * Per-period totals of one measure, split into series (e.g. company × currency), for outlier
 * detection: one grouped select from the data layer's blocks, in series then period order,
 * with the rows and the distinct load requests behind each total. Bounded by a row limit.
 */
import type { Aggregate, DataAccess, Filter, MeasureExpression, SelectQuery } from '../../src/skills/api.ts';
import type { NamedColumn } from './scope.ts';

export interface PeriodTotalsPlan {
  table: string;
  /** The catalog connection of the table (undefined: the default one). */
  connection?: string | undefined;
  /** Dimensions that split the data into series (e.g. company, currency). */
  series: NamedColumn[];
  period: NamedColumn;
  measure: MeasureExpression;
  /** A technical load column (e.g. the load request) whose distinct values are counted per period. */
  loadColumn: string | undefined;
  where: Filter[];
  /** Most rows (series × periods) returned. */
  limit: number;
}

export interface PeriodTotal {
  series: Record<string, string | null>;
  period: string;
  value: number | null;
  records: number;
  loads: number | undefined;
}

export interface PeriodTotalsOutcome {
  sql: string;
  rows: PeriodTotal[];
  /** More series × period rows exist than `limit`. */
  truncated: boolean;
}

/** The measure as an aggregate named `value`. */
function measureAggregate(measure: MeasureExpression): Aggregate {
  if (measure.function === 'count') return { name: 'value', function: 'count', column: measure.column };
  if (!measure.column) throw new Error(`a ${measure.function} measure needs a column`);
  return { name: 'value', function: measure.function, column: measure.column };
}

/**
 * Totals per series and period, in series then period order, one row beyond the limit (to tell truncation).
 * @example
 * periodTotalsSelect({ table: 'fi_reporting', series: [], period: { name: 'period', column: 'fiscper' },
 *   measure: { function: 'sum', column: 'cs_trn_lc' }, loadColumn: undefined, where: [], limit: 100 }).limit; // 101
 */
export function periodTotalsSelect(plan: PeriodTotalsPlan): SelectQuery {
  return {
    kind: 'select',
    table: plan.table,
    connection: plan.connection,
    columns: [...plan.series.map((c, index) => ({ name: `series_${index}`, column: c.column })), { name: 'period', column: plan.period.column }],
    aggregates: [
      measureAggregate(plan.measure),
      { name: 'records', function: 'count' },
      ...(plan.loadColumn ? [{ name: 'loads', function: 'countDistinct' as const, column: plan.loadColumn }] : []),
    ],
    where: plan.where,
    limit: plan.limit + 1,
  };
}

/**
 * Reads the totals; `truncated` when more than `limit` series × period rows exist.
 * @example
 * const totals = await periodTotals(context.data, plan, context.signal);
 * totals.rows[0]; // { series: { currency: 'EUR' }, period: '2024001', value: 264500, records: 70, loads: 1 }
 */
export async function periodTotals(data: DataAccess, plan: PeriodTotalsPlan, signal?: AbortSignal): Promise<PeriodTotalsOutcome> {
  const { sql, rows } = await data.run(periodTotalsSelect(plan), signal);
  return {
    sql,
    rows: rows.slice(0, plan.limit).map((row) => ({
      series: Object.fromEntries(plan.series.map((c, index) => [c.name, text(row[`series_${index}`])])),
      period: String(row.period),
      value: row.value === null || row.value === undefined ? null : Number(row.value),
      records: Number(row.records),
      loads: plan.loadColumn ? Number(row.loads) : undefined,
    })),
    truncated: rows.length > plan.limit,
  };
}

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
