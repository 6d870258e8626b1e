/**
 * Reconciliation of a measure between two sides (two sources, or two versions of one source),
 * built from the data layer's merge block: both sides' per-key totals are merged in key order in
 * one pass; keys that agree to the cent are only counted there, and the few that differ stream
 * into this skill's reducer, which classifies them by the thresholds and keeps the largest.
 * Cost grows linearly with rows; memory and result size stay bounded.
 */
import { defineReducer, roundAmount, type DataAccess, type Filter, type MeasureExpression, type MergedRow, type MergeMethod } from '../../src/skills/api.ts';

export type RowStatus = 'match' | 'minor_diff' | 'major_diff' | 'only_in_a' | 'only_in_b';
export const rowStatuses: readonly RowStatus[] = ['match', 'minor_diff', 'major_diff', 'only_in_a', 'only_in_b'];

export interface Thresholds {
  match: { absolute: number; percent: number };
  minor: { absolute: number; percent: number };
}

/** A key column of one side: a table column, or a constant (e.g. the fixed currency of a group-currency measure). */
export type KeyExpression = { column: string } | { literal: string };

export interface ComparisonSide {
  connection?: string | undefined;
  table: string;
  measure: MeasureExpression;
  keys: KeyExpression[];
  where: Filter[];
}

export interface ComparisonPlan {
  keyNames: string[];
  a: ComparisonSide;
  b: ComparisonSide;
  thresholds: Thresholds;
  /** How many of the largest differences to return. */
  top: number;
  /** Index in keyNames of the currency key, so totals are never summed across currencies. */
  currencyKeyIndex: number | undefined;
  /**
   * Sum each side per key before merging. Cheaper when keys are few (company × period): each side
   * shrinks to a handful of rows first. With about one key per row it only adds a sort.
   */
  preAggregate?: boolean;
  /** Sides on two engines: checksum bisection or the row merge (default: the data layer's planner chooses). */
  strategy?: 'auto' | 'bisect' | 'merge';
}

export interface ComparedRow {
  key: Record<string, string | null>;
  a: number | null;
  b: number | null;
  /** a − b, missing sides counting as 0, in cents precision. */
  difference: number;
  /** |a − b| / |a| × 100; null when a is 0 or missing and b is not. */
  percent: number | null;
  status: RowStatus;
}

export interface ComparisonTotals {
  currency: string | null;
  a: number;
  b: number;
  difference: number;
}

export interface ComparisonOutcome {
  sql: string;
  alignedRows: number;
  counts: Record<RowStatus, number>;
  totals: ComparisonTotals[];
  /** Non-matching rows with the largest absolute differences, largest first. */
  top: ComparedRow[];
  /** How sides on two engines were merged (see the data layer's MergeMethod). */
  method?: MergeMethod;
}

/**
 * Classifies one aligned row by the reference rules: match when |a − b| ≤ match.absolute AND
 * percent ≤ match.percent; minor when within the minor thresholds; otherwise major. Bounds are
 * inclusive; percent is relative to side a; a side with no rows is null.
 */
export function classify(a: number | null, b: number | null, thresholds: Thresholds): Omit<ComparedRow, 'key'> {
  const difference = roundAmount((a ?? 0) - (b ?? 0));
  const size = Math.abs(difference);
  const base = Math.abs(a ?? 0);
  const percent = base === 0 ? (size === 0 ? 0 : null) : Math.round((size / base) * 100 * 1e6) / 1e6;
  // Compare the exact ratio, not the rounded percent shown: 200.01 on 20,000.99 is beyond 1 %.
  // The tiny tolerance only absorbs binary floating-point error on cent amounts.
  const withinPercent = (limit: number) => (base === 0 ? size === 0 : size * 100 - limit * base <= base * 1e-12);
  const within = (limit: { absolute: number; percent: number }) => size <= limit.absolute && withinPercent(limit.percent);
  let status: RowStatus;
  if (b === null) status = 'only_in_a';
  else if (a === null) status = 'only_in_b';
  else if (within(thresholds.match)) status = 'match';
  else if (within(thresholds.minor)) status = 'minor_diff';
  else status = 'major_diff';
  return { a, b, difference, percent, status };
}

interface ClassifyOptions {
  thresholds: Thresholds;
  top: number;
  keyNames: string[];
}

interface ClassifyState extends ClassifyOptions {
  counts: Record<RowStatus, number>;
  rows: ComparedRow[];
}

const noCounts = () => Object.fromEntries(rowStatuses.map((s) => [s, 0])) as Record<RowStatus, number>;

/**
 * Whether `x` ranks before `y`: the larger |difference| first, ties in key order (NULL first,
 * numbers by value, text by code point), so the result does not depend on the order the rows
 * arrive in, which differs between engines.
 */
function before(x: ComparedRow, y: ComparedRow, keyNames: readonly string[]): boolean {
  const size = Math.abs(x.difference) - Math.abs(y.difference);
  if (size !== 0) return size > 0;
  for (const name of keyNames) {
    const order = compareKeyValues(x.key[name] ?? null, y.key[name] ?? null);
    if (order !== 0) return order < 0;
  }
  return false;
}

const NUMBER = /^-?\d+(\.\d+)?$/;

function compareKeyValues(x: string | null, y: string | null): number {
  if (x === y) return 0;
  if (x === null) return -1;
  if (y === null) return 1;
  if (NUMBER.test(x) && NUMBER.test(y)) return Number(x) - Number(y);
  return x < y ? -1 : 1;
}

/**
 * Classifies each differing key, counts them by status and keeps the `top` largest differences.
 * Runs in the query worker, next to the data.
 */
export const classifyDifferences = defineReducer(import.meta.url, 'classifyDifferences', {
  start: (options: ClassifyOptions): ClassifyState => ({ ...options, counts: noCounts(), rows: [] }),
  step: (state, row: MergedRow) => {
    const classified = classify(row.a, row.b, state.thresholds);
    state.counts[classified.status] += 1;
    if (classified.status === 'match') return;
    const rows = state.rows;
    // Most rows are smaller than the smallest kept: rejected before their key object is built.
    if (rows.length >= state.top && Math.abs(classified.difference) < Math.abs(rows[rows.length - 1]!.difference)) return;
    const candidate = { key: Object.fromEntries(state.keyNames.map((name, i) => [name, row.key[i] ?? null])), ...classified };
    if (rows.length >= state.top && before(rows[rows.length - 1]!, candidate, state.keyNames)) return;
    let index = rows.findIndex((existing) => before(candidate, existing, state.keyNames));
    if (index === -1) index = rows.length;
    rows.splice(index, 0, candidate);
    if (rows.length > state.top) rows.pop();
  },
  finish: (state) => ({ counts: state.counts, top: state.rows }),
});

/**
 * Reconciles the plan's two sides.
 * @example
 * const outcome = await reconcile(context.data, plan, context.signal);
 * outcome.counts.major_diff; // keys beyond the minor thresholds
 */
export async function reconcile(data: DataAccess, plan: ComparisonPlan, signal?: AbortSignal): Promise<ComparisonOutcome> {
  const merged = await data.run(
    {
      kind: 'merge',
      keyNames: plan.keyNames,
      a: plan.a,
      b: plan.b,
      partitionKey: plan.currencyKeyIndex,
      decimals: 2,
      ...(plan.preAggregate ? { preAggregate: true } : {}),
      ...(plan.strategy ? { strategy: plan.strategy } : {}),
      fold: classifyDifferences.with({ thresholds: plan.thresholds, top: plan.top, keyNames: plan.keyNames }),
    },
    signal,
  );
  const alignedRows = merged.partitions.reduce((sum, p) => sum + p.keys, 0);
  const { counts, top } = merged.folded;
  // Keys equal to the cent never reached the reducer: they are matches whatever the thresholds.
  const classified = rowStatuses.reduce((sum, status) => sum + counts[status], 0);
  counts.match += alignedRows - classified;
  const totals = merged.partitions.map((p) => {
    const a = roundAmount(p.a);
    const b = roundAmount(p.b);
    return { currency: p.partition, a, b, difference: roundAmount(a - b) };
  });
  return { sql: merged.sql, alignedRows, counts, totals, top, ...(merged.method ? { method: merged.method } : {}) };
}
