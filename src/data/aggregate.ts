/**
 * Runs an aggregation plan: measures grouped by dimensions, filtered, in a deterministic
 * order, with the number of groups that exist beyond the returned page.
 */
import type { DataDatabase } from './database.ts';
import { aggregateExpression, quoteIdentifier, whereClause, type MeasureExpression, type SqlValue, type WhereCondition } from './sql.ts';

export interface AggregatePlan {
  table: string;
  groupBy: { name: string; column: string }[];
  measures: ({ name: string } & MeasureExpression)[];
  where: WhereCondition[];
  /** Output names (dimensions or measures) to sort by first; group columns always follow, so ties are ordered too. */
  orderBy: { name: string; direction: 'asc' | 'desc' }[];
  limit: number;
}

export interface AggregateResult {
  sql: string;
  rows: Record<string, string | number | null>[];
  /** Groups that match, before the limit. */
  totalRows: number;
}

/** Builds the SELECT for a plan (exported for tests and for showing the SQL to users). */
export function buildAggregateSql(plan: AggregatePlan): { sql: string; params: SqlValue[] } {
  const selectList = [
    ...plan.groupBy.map((d) => `${quoteIdentifier(d.column)} AS ${quoteIdentifier(d.name)}`),
    ...plan.measures.map((m) => `${aggregateExpression(m)} AS ${quoteIdentifier(m.name)}`),
    'COUNT(*) AS "__matched"',
    'COUNT(*) OVER () AS "__groups"',
  ];
  const where = whereClause(plan.where);
  const groupBy = plan.groupBy.length ? `GROUP BY ${plan.groupBy.map((d) => quoteIdentifier(d.column)).join(', ')}` : '';
  const explicit = plan.orderBy.map((o) => `${quoteIdentifier(o.name)} ${o.direction === 'desc' ? 'DESC' : 'ASC'}`);
  const tieBreak = plan.groupBy.filter((d) => !plan.orderBy.some((o) => o.name === d.name)).map((d) => `${quoteIdentifier(d.name)} ASC`);
  const order = [...explicit, ...tieBreak];
  const sql = [
    `SELECT ${selectList.join(', ')}`,
    `FROM ${quoteIdentifier(plan.table)}`,
    where.sql,
    groupBy,
    order.length ? `ORDER BY ${order.join(', ')}` : '',
    'LIMIT ?',
  ]
    .filter(Boolean)
    .join(' ');
  return { sql, params: [...where.params, plan.limit] };
}

/** Runs the plan synchronously on a read-only connection. */
export function runAggregate(database: DataDatabase, plan: AggregatePlan): AggregateResult {
  const { sql, params } = buildAggregateSql(plan);
  const raw = database.prepare(sql).all(...params) as Record<string, string | number | null>[];
  // Without GROUP BY, SQL returns one row even when nothing matched: that is "no data", not a total of null.
  const rows = raw.filter((row) => Number(row.__matched) > 0);
  const totalRows = rows.length > 0 ? Number(rows[0]!.__groups) : 0;
  for (const row of rows) {
    delete row.__matched;
    delete row.__groups;
  }
  return { sql: sql.replace(/\s+/g, ' '), rows, totalRows };
}

/** Whether any row has this value (NULL and '' count as blank). */
export function valueExists(database: DataDatabase, table: string, column: string, value: string | null): boolean {
  const where = whereClause([{ column, kind: 'in', values: [value] }]);
  return database.prepare(`SELECT 1 FROM ${quoteIdentifier(table)} ${where.sql} LIMIT 1`).get(...where.params) !== undefined;
}

/** Up to `limit` distinct values of a column, sorted. */
export function distinctValues(database: DataDatabase, table: string, column: string, limit: number): (string | null)[] {
  const rows = database
    .prepare(`SELECT DISTINCT ${quoteIdentifier(column)} AS value FROM ${quoteIdentifier(table)} ORDER BY 1 LIMIT ?`)
    .all(limit) as { value: string | number | null }[];
  return rows.map((row) => (row.value === null ? null : String(row.value)));
}
