/**
 * Row restrictions enforced where queries are run: a DataAccess that adds a condition to every
 * query on a table (every select, fold and both sides of a merge) and refuses any table it was
 * not given. Per-key data scopes (src/scopes) are built on it, so a scope holds for every tool,
 * whatever the tool asks: rows outside it are never read, because the engine never sees a query
 * without the condition.
 */
import { ToolError } from '../errors/index.ts';
import { DEFAULT_CONNECTION } from './connections.ts';
import type { DataAccess } from './dataAccess.ts';
import type { Filter, MergeSide, Query, SelectQuery } from './query.ts';

/** The rows of one table a caller may read: those meeting every filter in `where` (none: all rows). */
export interface RowRestriction {
  connection: string;
  table: string;
  where: Filter[];
}

/**
 * `data` limited to the tables in `restrictions`, each to its rows.
 * @throws (from run) ToolError unknown_source for a table that is not among the restrictions,
 *   worded like any missing source: a caller cannot tell a hidden table from one that does not exist.
 * @example
 * const scoped = restrictRows(data, [{ connection: 'default', table: 'fi_reporting', where: [{ column: 'compcode', kind: 'in', values: ['1000'] }] }]);
 * await scoped.run({ kind: 'select', table: 'fi_reporting', aggregates: [{ name: 'rows', function: 'count' }] }); // company 1000's rows only
 */
export function restrictRows(data: DataAccess, restrictions: readonly RowRestriction[]): DataAccess {
  const byTable = new Map(restrictions.map((restriction) => [tableKey(restriction.connection, restriction.table), restriction.where]));
  const conditionsOf = (connection: string | undefined, table: string): Filter[] => {
    const where = byTable.get(tableKey(connection ?? DEFAULT_CONNECTION, table));
    if (where === undefined) throw new ToolError('unknown_source', 'Source not found.', { hint: 'List the catalog\'s sources to see what each one holds.' });
    return where;
  };
  const restrictSelect = (select: SelectQuery): SelectQuery => ({ ...select, where: [...(select.where ?? []), ...conditionsOf(select.connection, select.table)] });
  const restrictSide = (side: MergeSide): MergeSide => ({ ...side, where: [...side.where, ...conditionsOf(side.connection, side.table)] });
  const restrict = (query: Query): Query => {
    switch (query.kind) {
      case 'select':
        return restrictSelect(query);
      case 'fold':
        return { ...query, select: restrictSelect(query.select) };
      case 'merge':
        return { ...query, a: restrictSide(query.a), b: restrictSide(query.b) };
    }
  };
  return {
    // The rewritten query has the same kind, so its result type is the caller's.
    run: async (query, signal, caller) => data.run(restrict(query) as typeof query, signal, caller),
    concurrency: data.concurrency,
    // A view: the data it reads from belongs to the service and outlives it.
    close: async () => {},
  };
}

const tableKey = (connection: string, table: string) => `${connection}\0${table}`;
