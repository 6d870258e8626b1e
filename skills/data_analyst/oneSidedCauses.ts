/**
 * One-sided causes for explain_difference: a dimension only one source has (load request,
 * audit trail, document…) whose value carries exactly the gap, or exactly the difference of one
 * of the items that drive it, such as a duplicated load or a manual adjustment.
 */
import { aggregateOf, resolveFilters, toWhere, type Source, type ToolContext } from '../../src/skills/api.ts';
import type { CompareArguments } from './compareSources.ts';

/** The most values a one-sided dimension may have to be scanned. */
const MAX_ONE_SIDED_VALUES = 50;

export interface OneSided {
  source: string;
  dimension: string;
  value: string | null;
  amount: number;
  /** Set when the value carries the difference of one item (e.g. one company and period) rather than the whole gap. */
  difference_of?: Record<string, string | number | null>;
}

/** An amount a cause may carry: the gap (a − b), or one driving item's difference with its key. */
export interface Target {
  difference: number;
  key?: Record<string, string | number | null>;
}

/**
 * Values of one-sided dimensions whose amount equals a target (signed as side a minus side b).
 *
 * @example
 * await findOneSidedCauses(scoped, undefined, [{ difference: 110000 }], fi, bpc, context)
 * // [{ source: 'fi_reporting', dimension: 'load_request', value: 'REQ_2024012_1000_02', amount: 110000 }]
 */
export async function findOneSidedCauses(scoped: CompareArguments, only: readonly string[] | undefined, targets: readonly Target[], a: Source, b: Source, context: ToolContext): Promise<OneSided[]> {
  const found: OneSided[] = [];
  if (a.name === b.name) return found;
  for (const [source, other, sideFilters, sign] of [[a, b, scoped.filters_a, 1], [b, a, scoped.filters_b, -1]] as const) {
    const measureName = typeof scoped.measure === 'string' ? scoped.measure : sign === 1 ? scoped.measure.a : scoped.measure.b;
    const measure = source.measures.get(measureName)!;
    const filters = resolveFilters(source, { ...scoped.filters, ...sideFilters });
    const candidates = [...source.dimensions.keys()].filter((d) => !other.dimensions.has(d) && (!only || only.includes(d)));
    for (const dimension of candidates) {
      const column = source.dimensions.get(dimension)!.column;
      const result = await context.data.run(
        {
          kind: 'select',
          table: source.table,
          connection: source.connection,
          columns: [{ name: dimension, column }],
          aggregates: [aggregateOf('amount', { function: measure.aggregation, column: measure.column })],
          where: toWhere(filters.conditions),
          limit: MAX_ONE_SIDED_VALUES,
          countAll: true,
        },
        context.signal,
      );
      // A dimension with one value, or too many to scan, cannot single out a cause.
      const groups = result.total ?? 0;
      if (groups < 2 || groups > MAX_ONE_SIDED_VALUES) continue;
      for (const row of result.rows) {
        const amount = Number(row.amount);
        const target = targets.find((t) => Math.abs(amount - sign * t.difference) <= Math.max(0.01, Math.abs(t.difference) * 0.001));
        if (!target) continue;
        found.push({ source: source.name, dimension, value: (row[dimension] as string | null) ?? null, amount: Math.round(amount * 100) / 100, ...(target.key ? { difference_of: target.key } : {}) });
      }
    }
  }
  return found;
}
