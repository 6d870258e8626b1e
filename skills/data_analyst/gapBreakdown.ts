/**
 * Breaks a gap between two sides down by dimension for explain_difference. Every value's
 * difference is read as a contribution to the net gap: drivers go the same way as the net,
 * offsets the other way, and shares are signed percentages of the net (drivers of a net that
 * offsets partly cancel can exceed 100 %, offsets are negative).
 */
import pLimit from 'p-limit';
import { resolveFilters, type Source, type ToolContext } from '../../src/skills/api.ts';
import { compare, type CompareArguments } from './compareSources.ts';

/** Values listed per dimension, and differences read per dimension. */
const VALUES_PER_DIMENSION = 5;
const OFFSET_SLOTS = 2;
const CONCENTRATION_ROWS = 50;
const ITEMS_LISTED = 3;

/** Every difference counts, however small: a drill-down must see all of them, not only breaches. */
export const EVERY_DIFFERENCE = { match: { absolute: 0, percent: 0 }, minor: { absolute: 0, percent: 0 } };

export type Role = 'driver' | 'offset';
export interface Contribution {
  value: string | null;
  a: number | null;
  b: number | null;
  difference: number;
  /** difference / net gap × 100: positive for drivers, negative for offsets. */
  share_percent: number;
  role: Role;
}
export interface RankedDimension {
  dimension: string;
  values_compared: number;
  /** How much of all the differences along the dimension (absolute) the largest value carries. */
  explains_percent: number;
  uniform_percent?: number;
  /** Drivers first (largest contribution first), then offsets; up to VALUES_PER_DIMENSION. */
  values: Contribution[];
  /** Values going the net's way and the other way, listed or not. */
  driver_count: number;
  offset_count: number;
}
type Row = Record<string, unknown> & { a: number | null; b: number | null; difference: number; difference_percent: number | null; status: string };
export type Item = Record<string, string | number | null> & { difference: number; share_percent: number; status: string };
/** The largest single items behind a spread gap, across several dimensions at once. */
export interface Items {
  dimensions: string[];
  drivers: Item[];
  offsets: Item[];
}

const share = (difference: number, gap: number) => Math.round((difference / gap) * 1000) / 10;

/**
 * Splits differences into drivers (same sign as the net) and offsets (opposite sign), each
 * largest first.
 *
 * @example
 * splitByRole([{ difference: -243000 }, { difference: 166000 }], 67149.37)
 * // { drivers: [{ difference: 166000 }], offsets: [{ difference: -243000 }] }
 */
export function splitByRole<T extends { difference: number }>(rows: readonly T[], gap: number): { drivers: T[]; offsets: T[] } {
  const bySize = [...rows].filter((row) => row.difference !== 0).sort((x, y) => Math.abs(y.difference) - Math.abs(x.difference));
  return { drivers: bySize.filter((row) => Math.sign(row.difference) === Math.sign(gap)), offsets: bySize.filter((row) => Math.sign(row.difference) !== Math.sign(gap)) };
}

/**
 * Ranks each candidate dimension's values by their contribution to the gap, most informative
 * dimension first.
 *
 * @example
 * await rankDimensions(scoped, ['group_account', 'period'], 67149.37, context)
 * // [{ dimension: 'group_account', values: [{ value: 'G5100000', share_percent: 251.6, role: 'driver' }, …] }, …]
 */
export async function rankDimensions(scoped: CompareArguments, candidates: readonly string[], gap: number, context: ToolContext): Promise<RankedDimension[]> {
  const ranked: (RankedDimension & { score: number })[] = [];
  // One comparison per dimension, as many at once as the data layer runs (its workers: more would
  // wait in its line and could be refused as busy); read in the candidates' order, so the ranking
  // is the same as one after the other. The first failure answers: the others are stopped.
  const stop = new AbortController();
  const signal = context.signal ? AbortSignal.any([context.signal, stop.signal]) : stop.signal;
  const limit = pLimit(Math.max(1, context.data.concurrency));
  const compareBy = (dimension: string) => compare({ ...scoped, align_on: [dimension], thresholds: EVERY_DIFFERENCE, top: CONCENTRATION_ROWS }, { ...context, signal });
  const results = await Promise.all(candidates.map((dimension) => limit(() => compareBy(dimension)))).catch((error: unknown) => {
    limit.clearQueue();
    stop.abort(error);
    throw error;
  });
  for (const [index, dimension] of candidates.entries()) {
    const result = results[index]!;
    const rows = result.top_differences as Row[];
    // One value on both sides cannot tell anything apart.
    if (result.summary.aligned_rows < 2 || rows.length === 0) continue;
    const contribution = (row: Row, role: Role): Contribution => ({ value: (row[dimension] as string | null) ?? null, a: row.a, b: row.b, difference: row.difference, share_percent: share(row.difference, gap), role });
    const { drivers, offsets } = splitByRole(rows, gap);
    const offsetCount = Math.min(offsets.length, Math.max(OFFSET_SLOTS, VALUES_PER_DIMENSION - drivers.length));
    const driverCount = Math.min(drivers.length, VALUES_PER_DIMENSION - offsetCount);
    const spread = rows.reduce((sum, row) => sum + Math.abs(row.difference), 0);
    const driving = drivers.reduce((sum, row) => sum + Math.abs(row.difference), 0);
    // One value carrying the net says more when it was picked out of many (group account
    // G4000000 of 7 accounts) than out of two (partner blank vs partner 1000).
    const score = driving === 0 ? 0 : (Math.abs(drivers[0]!.difference) / driving) * 100 * Math.log2(1 + result.summary.aligned_rows);
    ranked.push({
      dimension,
      values_compared: result.summary.aligned_rows,
      explains_percent: Math.round((Math.abs(rows[0]!.difference) / spread) * 1000) / 10,
      values: [...drivers.slice(0, driverCount).map((row) => contribution(row, 'driver')), ...offsets.slice(0, offsetCount).map((row) => contribution(row, 'offset'))],
      driver_count: drivers.length,
      offset_count: offsets.length,
      ...uniformPercent(rows, result.summary),
      score,
    });
  }
  return ranked.sort((x, y) => y.score - x.score).map(({ score: _score, ...rest }) => rest);
}

/**
 * The largest driving and offsetting items when the gap is split by several dimensions at
 * once, e.g. period × group account: the missing purchase of one month, the revenue shortfall
 * of another. Undefined when fewer than two dimensions are given or nothing differs.
 *
 * @example
 * await largestItems(scoped, ['period', 'group_account'], 67149.37, context)
 * // { dimensions: [...], drivers: [{ period: '2024009', group_account: 'G5100000', difference: 166000, … }], offsets: [...] }
 */
export async function largestItems(scoped: CompareArguments, dimensions: readonly string[], gap: number, context: ToolContext): Promise<Items | undefined> {
  if (dimensions.length < 2) return undefined;
  const result = await compare({ ...scoped, align_on: [...dimensions], thresholds: EVERY_DIFFERENCE, top: CONCENTRATION_ROWS }, context);
  const { drivers, offsets } = splitByRole(result.top_differences as Row[], gap);
  if (drivers.length === 0) return undefined;
  const item = (row: Row): Item => ({
    ...Object.fromEntries(dimensions.map((name) => [name, (row[name] as string | null) ?? null])),
    a: row.a,
    b: row.b,
    difference: row.difference,
    share_percent: share(row.difference, gap),
    status: row.status,
  });
  return { dimensions: [...dimensions], drivers: drivers.slice(0, ITEMS_LISTED).map(item), offsets: offsets.slice(0, ITEMS_LISTED).map(item) };
}

/**
 * When every value along a dimension differs by the same percentage, the cause is a rate, not
 * a posting: a translation at another exchange rate, a scaling, a unit change.
 */
function uniformPercent(rows: readonly Row[], summary: { aligned_rows: number }): { uniform_percent: number } | Record<string, never> {
  const percents = rows.map((row) => (row.difference_percent === null ? null : Math.sign(row.difference) * row.difference_percent));
  if (rows.length < 3 || rows.length !== summary.aligned_rows || percents.some((p) => p === null)) return {};
  const values = percents as number[];
  const spread = Math.max(...values.map(Math.abs)) - Math.min(...values.map(Math.abs));
  return spread <= 0.05 ? { uniform_percent: Math.round(Math.abs(values[0]!) * 100) / 100 } : {};
}

/**
 * Dimensions that can explain a gap: on both sides, not pinned to one value by the key or a
 * shared filter (a list or a range leaves room to differ), not fixed per side (version ACTUAL vs
 * BUDGET), not the currency.
 *
 * @example
 * candidateDimensions(mart, mart, { filters: { company: '2000' }, filters_a: { version: 'ACTUAL' }, filters_b: { version: 'BUDGET' } }, [])
 * // ['period', 'group_account', 'partner_company']
 */
export function candidateDimensions(a: Source, b: Source, scoped: Pick<CompareArguments, 'filters' | 'filters_a' | 'filters_b'>, pinned: readonly string[], only?: readonly string[]): string[] {
  const single = resolveFilters(a, scoped.filters, { applyDefaults: false }).conditions.filter((c) => c.kind === 'in' && c.values.length === 1);
  const fixed = new Set([...pinned, ...single.map((c) => c.dimension.name), ...Object.keys(scoped.filters_a ?? {}), ...Object.keys(scoped.filters_b ?? {}), 'currency']);
  return [...a.dimensions.keys()].filter((d) => b.dimensions.has(d) && !fixed.has(d) && (!only || only.includes(d)));
}
