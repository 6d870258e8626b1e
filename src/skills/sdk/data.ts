/**
 * The skill SDK's data blocks: a tool describes a query — a `select` (columns, aggregates,
 * filters), a `merge` (two sides joined on keys, measures summed per side) or a `fold` (a
 * select's rows streamed into a reducer that runs next to the data) — and `context.data.run`
 * compiles it for the engine (SQLite, DuckDB, PostgreSQL), binding every value. No skill writes
 * SQL. Re-exported by src/skills/api.ts; the blocks are specified in src/data/query.ts.
 *
 * @example
 * import { aggregateOf, type SelectQuery } from '../../src/skills/api.ts';
 *
 * const select: SelectQuery = {
 *   kind: 'select', table: source.table, connection: source.connection,
 *   columns: [{ name: 'company', column: 'compcode' }],
 *   aggregates: [aggregateOf('amount', { function: 'sum', column: measure.column })],
 *   where: toWhere(filters.conditions),
 * };
 * const { rows, sql } = await context.data.run(select, context.signal);
 *
 * // A reducer (in a module of its own, so the query worker imports only it):
 * export const sumA = defineReducer(import.meta.url, 'sumA', {
 *   start: (_options: Record<string, never>) => ({ total: 0 }),
 *   step: (state, row: MergedRow) => { state.total += Number(row.a ?? 0); },
 *   finish: (state) => state.total,
 * });
 */
export { aggregateOf } from '../../data/query.ts';
export type {
  Aggregate,
  Filter,
  FoldQuery,
  FoldResult,
  MeasureExpression,
  MergedRow,
  MergeQuery,
  MergeResult,
  MergeSide,
  Output,
  Query,
  Row,
  SelectQuery,
  SelectResult,
  Value,
} from '../../data/query.ts';
export type { DataAccess } from '../../data/dataAccess.ts';
export type { MergeMethod } from '../../data/engines/engine.ts';
export { defineReducer, type DefinedReducer, type Reducer, type ReducerReference } from '../../data/reducer.ts';
// One column's values: does one exist, the first `limit` distinct ones.
export { distinctValues, valueExists, type TableLocation } from '../../data/lookups.ts';
// Amounts rounded to cents, as every tool reports them (sums of floats carry noise).
export { roundAmount } from '../../shared/amounts.ts';
