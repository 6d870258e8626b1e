/**
 * Runs query descriptions on a SQLite connection (better-sqlite3): compiles them with the
 * SQLite dialect, reads the rows back into plain values, and runs reducers next to the data.
 * A merge's reducer runs inside the statement as an aggregate fed only the keys that differ,
 * so a million matching keys cost one pass and no JavaScript call each.
 */
import type { DataDatabase } from './database.ts';
import { BoundParameters, compileMerge, compileSelect } from './compile.ts';
import { sqliteDialect } from './dialect.ts';
import type { FoldQuery, FoldResult, MergeQuery, MergeResult, Query, ResultOf, Row, SelectQuery, SelectResult, Value } from './query.ts';
import { Folding, loadReducer } from './reducer.ts';

const FOLD_FUNCTION = '__fold_rows';
/** The fold a running merge feeds; statements run synchronously, so one slot per process is enough. */
let active: { folding: Folding; constants: Map<number, string>; keyCount: number } | undefined;

/** Registers the merge's reducer aggregate; call once per connection. */
export function registerFoldFunction(database: DataDatabase): void {
  // better-sqlite3's typings model two-argument steps only; this one takes a variable list.
  database.aggregate(FOLD_FUNCTION, {
    varargs: true,
    start: null,
    step: (_state: null, a: number | null, b: number | null, ...key: unknown[]) => {
      active!.folding.step({ a, b, key: fullKey(key, active!.constants, active!.keyCount) });
      return null;
    },
  } as unknown as Parameters<DataDatabase['aggregate']>[1]);
}

/**
 * Runs a query description on the connection.
 * @example
 * const { rows } = await runQuery(database, { kind: 'select', table: 'fi', aggregates: [{ name: 'n', function: 'count' }] });
 */
export async function runQuery<Q extends Query>(database: DataDatabase, query: Q): Promise<ResultOf<Q>> {
  if (query.kind === 'merge') return (await runMerge(database, query)) as ResultOf<Q>;
  if (query.kind === 'fold') return (await runFold(database, query)) as ResultOf<Q>;
  return runSelect(database, query) as ResultOf<Q>;
}

function runSelect(database: DataDatabase, query: SelectQuery): SelectResult {
  const compiled = compileSelect(query, sqliteDialect);
  const raw = database.prepare(compiled.sql).raw(true).all(...compiled.params) as unknown[][];
  const rows = raw.map((values) => rowOf(values, compiled.names, compiled.readers));
  const result: SelectResult = { sql: compiled.sql, rows };
  if (compiled.counted) result.total = raw.length ? Number(raw[0]![compiled.names.length]) : 0;
  return result;
}

async function runFold(database: DataDatabase, query: FoldQuery): Promise<FoldResult> {
  const folding = new Folding(await loadReducer(query.fold), query.fold.options);
  const compiled = compileSelect(query.select, sqliteDialect);
  let rows = 0;
  for (const values of database.prepare(compiled.sql).raw(true).iterate(...compiled.params) as Iterable<unknown[]>) {
    folding.step(rowOf(values, compiled.names, compiled.readers));
    rows += 1;
  }
  return { sql: compiled.sql, rows, folded: folding.finish() };
}

async function runMerge(database: DataDatabase, query: MergeQuery): Promise<MergeResult> {
  if (!Number.isInteger(query.decimals) || query.decimals < 0 || query.decimals > 10) throw new Error(`decimals must be an integer from 0 to 10 (got ${query.decimals})`);
  const folding = new Folding(await loadReducer(query.fold), query.fold.options);
  const parameters = new BoundParameters(sqliteDialect);
  const merge = compileMerge(query, sqliteDialect, parameters);
  const a = `ROUND(raw_a, ${query.decimals})`;
  const b = `ROUND(raw_b, ${query.decimals})`;
  const sql = [
    `SELECT ${merge.partitionKey ?? 'NULL'} AS partition_value, COUNT(*) AS aligned_keys, SUM(raw_a) AS total_a, SUM(raw_b) AS total_b,`,
    `${FOLD_FUNCTION}(${a}, ${b}${merge.groupedKeys.length ? `, ${merge.groupedKeys.join(', ')}` : ''})`,
    // Keys equal at this precision are only counted.
    `FILTER (WHERE ${sqliteDialect.distinct(a, b)}) AS folded`,
    `FROM (${merge.aligned}) AS aligned${merge.partitionKey ? ` GROUP BY ${merge.partitionKey}` : ''}`,
  ].join(' ');
  active = { folding, constants: merge.constants, keyCount: query.keyNames.length };
  let groups: unknown[][];
  try {
    groups = database.prepare(sql).raw(true).all(...parameters.values) as unknown[][];
  } finally {
    active = undefined;
  }
  const constantPartition = query.partitionKey === undefined ? undefined : merge.constants.get(query.partitionKey);
  const partitions = groups
    .filter((group) => Number(group[1]) > 0)
    .map(([partition, keys, totalA, totalB]) => ({ partition: constantPartition ?? text(partition), keys: Number(keys), a: Number(totalA ?? 0), b: Number(totalB ?? 0) }))
    .sort((x, y) => String(x.partition).localeCompare(String(y.partition)));
  return { sql, partitions, folded: folding.finish() };
}

/** The key values of a merged row in keyNames order: the grouped values with the constant keys put back. */
function fullKey(grouped: unknown[], constants: Map<number, string>, count: number): (string | null)[] {
  if (constants.size === 0) return grouped.map(text);
  const key: (string | null)[] = [];
  let next = 0;
  for (let index = 0; index < count; index += 1) key.push(constants.has(index) ? constants.get(index)! : text(grouped[next++]));
  return key;
}

function rowOf(values: unknown[], names: string[], readers: Map<string, 'values' | 'boolean'>): Row {
  const row: Row = {};
  names.forEach((name, index) => {
    const value = values[index];
    const reader = readers.get(name);
    if (reader === 'values') row[name] = textList(value);
    else if (reader === 'boolean') row[name] = Number(value) === 1;
    else row[name] = value === undefined ? null : (value as Value);
  });
  return row;
}

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** Sorted distinct values of a JSON array, as text, NULL last. */
function textList(json: unknown): (string | null)[] {
  const values = (JSON.parse(String(json ?? '[]')) as unknown[]).map(text);
  return [...new Set(values)].sort((x, y) => (x === null ? 1 : y === null ? -1 : x < y ? -1 : x > y ? 1 : 0));
}
