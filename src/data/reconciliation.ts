/**
 * Reconciles a measure between two sides (two sources, or two versions of one source):
 * aligns them on key dimensions in SQL, then classifies each aligned row in one streaming
 * pass that keeps only counts, totals and the largest differences, so memory stays bounded.
 */
import type { DataDatabase } from './database.ts';
import { aggregateExpression, quoteIdentifier, whereClause, type MeasureExpression, type SqlValue, type WhereCondition } from './sql.ts';

export type RowStatus = 'match' | 'minor_diff' | 'major_diff' | 'only_in_a' | 'only_in_b';
export const rowStatuses: readonly RowStatus[] = ['match', 'minor_diff', 'major_diff', 'only_in_a', 'only_in_b'];

export interface Thresholds {
  match: { absolute: number; percent: number };
  minor: { absolute: number; percent: number };
}

/** A key column of one side: a table column, or a constant (e.g. the fixed currency of a group-currency measure). */
export type KeyExpression = { column: string } | { literal: string };

export interface ComparisonSide {
  table: string;
  measure: MeasureExpression;
  keys: KeyExpression[];
  where: WhereCondition[];
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
}

export interface ComparedRow {
  key: Record<string, string | null>;
  a: number | null;
  b: number | null;
  /** a − b, missing sides counting as 0. */
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
}

/** Rounds to cents; amounts are reported in currency units. */
export const roundAmount = (value: number) => Math.round((value + Number.EPSILON) * 100) / 100;

/**
 * Classifies one aligned row by the reference rules: match when |a−b| ≤ match.absolute AND
 * percent ≤ match.percent; minor when within the minor thresholds; otherwise major.
 * Bounds are inclusive. Percent is relative to side a.
 */
export function classify(a: number | null, b: number | null, inA: boolean, inB: boolean, thresholds: Thresholds): Omit<ComparedRow, 'key'> {
  const amountA = a === null ? null : roundAmount(a);
  const amountB = b === null ? null : roundAmount(b);
  const difference = roundAmount((amountA ?? 0) - (amountB ?? 0));
  const absolute = Math.abs(difference);
  const base = Math.abs(amountA ?? 0);
  const percent = base === 0 ? (absolute === 0 ? 0 : null) : Math.round((absolute / base) * 100 * 1e6) / 1e6;
  const within = (limit: { absolute: number; percent: number }) => absolute <= limit.absolute && percent !== null && percent <= limit.percent;
  let status: RowStatus;
  if (!inB) status = 'only_in_a';
  else if (!inA) status = 'only_in_b';
  else if (within(thresholds.match)) status = 'match';
  else if (within(thresholds.minor)) status = 'minor_diff';
  else status = 'major_diff';
  return { a: amountA, b: amountB, difference, percent, status };
}

/** Builds the aligning SQL: each side grouped on its keys, then stacked and grouped once more. */
export function buildComparisonSql(plan: ComparisonPlan): { sql: string; params: SqlValue[] } {
  const keyAliases = plan.keyNames.map((_, index) => `k${index}`);
  const params: SqlValue[] = [];
  const sideSql = (side: ComparisonSide) => {
    const keys = side.keys.map((key, index) => {
      if ('column' in key) return `${quoteIdentifier(key.column)} AS ${keyAliases[index]}`;
      params.push(key.literal);
      return `? AS ${keyAliases[index]}`;
    });
    const where = whereClause(side.where);
    params.push(...where.params);
    const groupBy = keyAliases.length ? `GROUP BY ${keyAliases.join(', ')}` : '';
    return `SELECT ${[...keys, `${aggregateExpression(side.measure)} AS v`].join(', ')} FROM ${quoteIdentifier(side.table)} ${where.sql} ${groupBy}`;
  };
  const sideA = sideSql(plan.a);
  const sideB = sideSql(plan.b);
  const keyList = keyAliases.join(', ');
  const keyPrefix = keyList ? `${keyList}, ` : '';
  const sql = [
    `WITH side_a AS (${sideA}), side_b AS (${sideB})`,
    `SELECT ${keyPrefix}MAX(va) AS a, MAX(vb) AS b, MAX(in_a) AS in_a, MAX(in_b) AS in_b FROM (`,
    `SELECT ${keyPrefix}v AS va, NULL AS vb, 1 AS in_a, 0 AS in_b FROM side_a`,
    'UNION ALL',
    `SELECT ${keyPrefix}NULL AS va, v AS vb, 0 AS in_a, 1 AS in_b FROM side_b`,
    `)${keyList ? ` GROUP BY ${keyList}` : ''}`,
  ].join(' ');
  return { sql: sql.replace(/\s+/g, ' '), params };
}

/** Runs the comparison synchronously; memory is O(top + currencies), whatever the row count. */
export function runComparison(database: DataDatabase, plan: ComparisonPlan): ComparisonOutcome {
  const { sql, params } = buildComparisonSql(plan);
  const counts = Object.fromEntries(rowStatuses.map((s) => [s, 0])) as Record<RowStatus, number>;
  const totals = new Map<string | null, ComparisonTotals>();
  const top: ComparedRow[] = [];
  let alignedRows = 0;
  const statement = database.prepare(sql).raw(true);
  for (const raw of statement.iterate(...params) as Iterable<unknown[]>) {
    alignedRows += 1;
    const keyValues = raw.slice(0, plan.keyNames.length).map((v) => (v === null ? null : String(v)));
    const [a, b, inA, inB] = raw.slice(plan.keyNames.length) as [number | null, number | null, number, number];
    const row = classify(a, b, inA === 1, inB === 1, plan.thresholds);
    counts[row.status] += 1;
    const currency = plan.currencyKeyIndex === undefined ? null : (keyValues[plan.currencyKeyIndex] ?? null);
    const total = totals.get(currency) ?? { currency, a: 0, b: 0, difference: 0 };
    total.a += a ?? 0;
    total.b += b ?? 0;
    totals.set(currency, total);
    if (row.status !== 'match' && plan.top > 0) keepLargest(top, row, keyValues, plan);
  }
  return {
    sql,
    alignedRows,
    counts,
    totals: [...totals.values()]
      .map((t) => ({ currency: t.currency, a: roundAmount(t.a), b: roundAmount(t.b), difference: roundAmount(t.a - t.b) }))
      .sort((x, y) => String(x.currency).localeCompare(String(y.currency))),
    top,
  };
}

/** Inserts a row into the descending top list if it is among the `plan.top` largest; ties keep key order. */
function keepLargest(top: ComparedRow[], row: Omit<ComparedRow, 'key'>, keyValues: (string | null)[], plan: ComparisonPlan): void {
  const size = Math.abs(row.difference);
  if (top.length >= plan.top && size <= Math.abs(top[top.length - 1]!.difference)) return;
  const key = Object.fromEntries(plan.keyNames.map((name, index) => [name, keyValues[index] ?? null]));
  let index = top.findIndex((existing) => Math.abs(existing.difference) < size);
  if (index === -1) index = top.length;
  top.splice(index, 0, { key, ...row });
  if (top.length > plan.top) top.pop();
}
