/**
 * Two lookups every tool that checks a filter value needs, built from the select block:
 * does a value occur, and which values does a column hold.
 */
import type { DataAccess } from './dataAccess.ts';

/** Where a table lives: a catalog source has both (`connection` undefined: the default connection). */
export interface TableLocation {
  table: string;
  connection?: string | undefined;
}

/**
 * Whether any row of the table has this value in the column (null matches NULL and '').
 * @example
 * await valueExists(data, source, 'compcode', '1000'); // true (source: a catalog source, or { table })
 */
export async function valueExists(data: DataAccess, location: TableLocation, column: string, value: string | null, signal?: AbortSignal): Promise<boolean> {
  const { rows } = await data.run({ kind: 'select', table: location.table, connection: location.connection, columns: [{ name: 'value', column }], where: [{ column, kind: 'in', values: [value] }], limit: 1 }, signal);
  return rows.length > 0;
}

/**
 * Up to `limit` distinct values of a column, sorted (NULL first, as SQL sorts it).
 * @example
 * await distinctValues(data, { table: 'fi_reporting' }, 'compcode', 10); // ['1000', '2000', '3000']
 */
export async function distinctValues(data: DataAccess, location: TableLocation, column: string, limit: number, signal?: AbortSignal): Promise<(string | null)[]> {
  const { rows } = await data.run({ kind: 'select', table: location.table, connection: location.connection, columns: [{ name: 'value', column }], aggregates: [{ name: 'rows', function: 'count' }], limit }, signal);
  return rows.map((row) => (row.value === null ? null : String(row.value)));
}
