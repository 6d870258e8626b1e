/**
 * Reconciles a measure between two sides (two sources, or two versions of one source) in one
 * SQL statement: both sides' rows are merged in key order and summed per key in one pass,
 * which is as cheap as computing the per-key totals at all. Rows that agree to the cent are only counted;
 * the few that differ go through a small JavaScript aggregate that classifies them and keeps the
 * largest. Cost grows linearly with rows; memory and result size stay bounded.
 */
import type { DataDatabase } from './database.ts';
import { quoteIdentifier, whereClause, type MeasureExpression, type SqlValue, type WhereCondition } from './sql.ts';

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
  /**
   * Sum each side per key before merging. Cheaper when keys are few (company × period): each side
   * shrinks to a handful of rows first. With about one key per row it only adds a sort.
   */
  preAggregate?: boolean;
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
}

/** Rounds to cents; amounts are reported in currency units. */
export const roundAmount = (value: number) => Math.round((value + Number.EPSILON) * 100) / 100;

const CLASSIFY_FUNCTION = 'reconciliation_differences';

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

interface DifferenceState {
  counts: Record<RowStatus, number>;
  top: (Omit<ComparedRow, 'key'> & { keyValues: unknown[] })[];
}

/**
 * Registers the aggregate that classifies differing rows, counts them and keeps the largest;
 * call once per connection. Arguments: top, the four thresholds, a, b (cents), then the key values.
 */
export function registerReconciliationFunctions(database: DataDatabase): void {
  const step = (state: DifferenceState, top: number, matchAbsolute: number, matchPercent: number, minorAbsolute: number, minorPercent: number, a: number | null, b: number | null, ...keyValues: unknown[]) => {
    const row = classify(a, b, { match: { absolute: matchAbsolute, percent: matchPercent }, minor: { absolute: minorAbsolute, percent: minorPercent } });
    state.counts[row.status] += 1;
    if (row.status === 'match') return state;
    const rows = state.top;
    const size = Math.abs(row.difference);
    if (rows.length >= top && size <= Math.abs(rows[rows.length - 1]!.difference)) return state;
    // Ties keep arrival order, which is key order: results are deterministic.
    let index = rows.findIndex((existing) => Math.abs(existing.difference) < size);
    if (index === -1) index = rows.length;
    rows.splice(index, 0, { ...row, keyValues });
    if (rows.length > top) rows.pop();
    return state;
  };
  // better-sqlite3's typings model two-argument steps only; this one takes a variable list.
  database.aggregate(CLASSIFY_FUNCTION, {
    varargs: true,
    start: (): DifferenceState => ({ counts: Object.fromEntries(rowStatuses.map((s) => [s, 0])) as Record<RowStatus, number>, top: [] }),
    step,
    result: (state: DifferenceState) => JSON.stringify(state),
  } as unknown as Parameters<DataDatabase['aggregate']>[1]);
}

const decomposable = (measure: MeasureExpression) => measure.aggregation === 'sum' || measure.aggregation === 'count';

/** The per-row value that, summed, gives the measure: the column, or 1/0 for counts. */
function rowValue(measure: MeasureExpression): string {
  if (measure.aggregation === 'sum') return `IFNULL(${quoteIdentifier(measure.column ?? '')}, 0)`;
  if (measure.column) return `(${quoteIdentifier(measure.column)} IS NOT NULL)`;
  return '1';
}

function aggregateOf(measure: MeasureExpression): string {
  if (measure.aggregation === 'count') return measure.column ? `COUNT(${quoteIdentifier(measure.column)})` : 'COUNT(*)';
  return `IFNULL(${measure.aggregation.toUpperCase()}(${quoteIdentifier(measure.column ?? '')}), 0)`;
}

/**
 * Builds the reconciliation statement. Both sides' rows are stacked in key order and summed per
 * key in one streaming pass: with an index on (currency, keys…, measure), SQLite merges the two
 * index scans without sorting anything; without one it sorts each side once. The currency key
 * comes first, so per-currency totals read the aligned rows in order too. A side's value is
 * never NULL (NULL amounts count as 0), so after grouping a NULL total means "no rows there".
 * A key that is the same constant on both sides (e.g. the group currency) is not grouped on.
 */
export function buildComparisonSql(plan: ComparisonPlan): { sql: string; params: SqlValue[] } {
  const keys = plan.keyNames.map((_, index) => `k${index}`);
  const constant = constantKeys(plan);
  const grouped = keys.filter((_, index) => !constant.has(index));
  const currencyKey = plan.currencyKeyIndex === undefined || constant.has(plan.currencyKeyIndex) ? undefined : keys[plan.currencyKeyIndex]!;
  const orderedKeys = currencyKey ? [currencyKey, ...grouped.filter((k) => k !== currencyKey)] : grouped;
  const order = orderedKeys.join(', ');
  const sideParams: SqlValue[] = [];
  const sideRows = (side: ComparisonSide, which: 'a' | 'b') => {
    const selectKeys = side.keys.flatMap((key, index) => {
      if (constant.has(index)) return [];
      if ('column' in key) return [`${quoteIdentifier(key.column)} AS ${keys[index]}`];
      sideParams.push(key.literal);
      return [`? AS ${keys[index]}`];
    });
    const where = whereClause(side.where);
    sideParams.push(...where.params);
    const perRow = decomposable(side.measure) && !plan.preAggregate;
    const value = perRow ? rowValue(side.measure) : aggregateOf(side.measure);
    const columns = which === 'a' ? `${value} AS va, NULL AS vb` : `NULL AS va, ${value} AS vb`;
    const sql = `SELECT ${[...selectKeys, columns].join(', ')} FROM ${quoteIdentifier(side.table)} ${where.sql}`;
    if (perRow) return sql;
    // Grouped per side, by column position: an alias such as k2 could also be a column's name.
    // With no key at all, an empty side must still yield no row.
    const positions = orderedKeys.map((key) => grouped.indexOf(key) + 1).join(', ');
    return order ? `${sql} GROUP BY ${positions}` : `${sql} HAVING COUNT(*) > 0`;
  };
  const stacked = `${sideRows(plan.a, 'a')} UNION ALL ${sideRows(plan.b, 'b')}${order ? ` ORDER BY ${order}` : ''}`;
  // Without keys, an aggregate over no rows still yields one row: HAVING drops it.
  // ORDER BY restates the GROUP BY order so the per-currency totals can read the rows in order.
  const aligned = `SELECT ${order ? `${order}, ` : ''}SUM(va) AS raw_a, SUM(vb) AS raw_b FROM (${stacked})${order ? ` GROUP BY ${order} ORDER BY ${order}` : ' HAVING COUNT(*) > 0'}`;
  const { match, minor } = plan.thresholds;
  const sql = [
    `SELECT ${currencyKey ?? 'NULL'} AS currency, COUNT(*) AS aligned_rows, SUM(raw_a) AS total_a, SUM(raw_b) AS total_b,`,
    `${CLASSIFY_FUNCTION}(?, ?, ?, ?, ?, ROUND(raw_a, 2), ROUND(raw_b, 2)${grouped.length ? `, ${grouped.join(', ')}` : ''})`,
    // Rows equal to the cent are matches whatever the thresholds: they are only counted.
    'FILTER (WHERE ROUND(raw_a, 2) IS NOT ROUND(raw_b, 2)) AS differences',
    `FROM (${aligned})${currencyKey ? ` GROUP BY ${currencyKey}` : ''}`,
  ].join(' ');
  // Parameters bind in text order: the aggregate's arguments come before the stacked sides.
  return { sql, params: [plan.top, match.absolute, match.percent, minor.absolute, minor.percent, ...sideParams] };
}

/** Indexes of keys that are one and the same constant on both sides. */
function constantKeys(plan: ComparisonPlan): Map<number, string> {
  const constant = new Map<number, string>();
  plan.a.keys.forEach((key, index) => {
    const other = plan.b.keys[index];
    if ('literal' in key && other && 'literal' in other && other.literal === key.literal) constant.set(index, key.literal);
  });
  return constant;
}

/** Runs the comparison synchronously on a connection opened by openDataDatabase. */
export function runComparison(database: DataDatabase, plan: ComparisonPlan): ComparisonOutcome {
  const { sql, params } = buildComparisonSql(plan);
  const groups = database.prepare(sql).raw(true).all(...params) as [unknown, number, number | null, number | null, string | null][];
  const counts = Object.fromEntries(rowStatuses.map((s) => [s, 0])) as Record<RowStatus, number>;
  const totals: ComparisonTotals[] = [];
  let alignedRows = 0;
  let top: ComparedRow[] = [];
  const constant = constantKeys(plan);
  const constantCurrency = plan.currencyKeyIndex === undefined ? undefined : constant.get(plan.currencyKeyIndex);
  for (const [groupCurrency, aligned, totalA, totalB, differencesJson] of groups) {
    const currency = constantCurrency ?? groupCurrency;
    if (!aligned) continue;
    const differences: DifferenceState | null = differencesJson ? JSON.parse(differencesJson) : null;
    const classified = differences ? rowStatuses.reduce((sum, status) => sum + differences.counts[status], 0) : 0;
    alignedRows += aligned;
    counts.match += aligned - classified;
    if (differences) for (const status of rowStatuses) counts[status] += differences.counts[status];
    const a = roundAmount(totalA ?? 0);
    const b = roundAmount(totalB ?? 0);
    totals.push({ currency: currency === null ? null : String(currency), a, b, difference: roundAmount(a - b) });
    top.push(...(differences?.top ?? []).map(({ keyValues, ...row }) => ({ key: keyOf(withConstants(keyValues, constant, plan.keyNames.length), plan.keyNames), ...row })));
  }
  // Each currency kept its own largest rows; merge them (a stable sort keeps key order for ties).
  top = top.sort((x, y) => Math.abs(y.difference) - Math.abs(x.difference)).slice(0, plan.top);
  totals.sort((x, y) => String(x.currency).localeCompare(String(y.currency)));
  return { sql: sql.replace(/\s+/g, ' '), alignedRows, counts, totals, top };
}

/** Puts the constant keys back in their places among the grouped key values. */
function withConstants(grouped: unknown[], constant: Map<number, string>, count: number): unknown[] {
  const values: unknown[] = [];
  let next = 0;
  for (let index = 0; index < count; index += 1) values.push(constant.has(index) ? constant.get(index) : grouped[next++]);
  return values;
}

function keyOf(values: unknown[], names: string[]): Record<string, string | null> {
  return Object.fromEntries(names.map((name, index) => [name, values[index] === null || values[index] === undefined ? null : String(values[index])]));
}
