/**
 * The SQLite engine (better-sqlite3): the embedded default. Statements run synchronously, which
 * is why the service runs them in worker processes it can kill (queryPool.ts). A merge's reducer
 * runs inside the statement as an aggregate fed only the keys that differ, so a million matching
 * keys cost one pass and no JavaScript call each.
 */
import { BoundParameters, compileMerge } from '../compile.ts';
import { tableColumns, type DataDatabase } from '../database.ts';
import { sqliteDialect, type Dialect } from '../dialect.ts';
import type { MergeQuery, Value } from '../query.ts';
import type { Folding } from '../reducer.ts';
import { fullKey, text, type Engine, type MergeTotals } from './engine.ts';

const FOLD_FUNCTION = '__fold_rows';
const CHUNK_ROWS = 2_048;
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
 * An engine over an open read-only connection (see database.ts).
 * @example
 * const engine = sqliteEngine(openDataDatabase('data/sample.db'));
 * await engine.all('SELECT COUNT(*) FROM fi_reporting', []); // [[…]]
 */
export function sqliteEngine(database: DataDatabase, dialect: Dialect = sqliteDialect): Engine {
  return {
    kind: 'sqlite',
    dialect,
    all: async (sql, params) => database.prepare(sql).raw(true).all(...params) as unknown[][],
    chunks: (sql, params) => chunksOf(database.prepare(sql).raw(true).iterate(...params) as IterableIterator<unknown[]>),
    merge: async (query, folding) => mergeInStatement(database, dialect, query, folding),
    columns: async (table) => tableColumns(database, table),
    // A synchronous statement cannot be interrupted from this thread; the pool kills the process.
    interrupt: () => undefined,
    close: async () => {
      database.close();
    },
  };
}

async function* chunksOf(rows: IterableIterator<unknown[]>): AsyncIterable<unknown[][]> {
  let chunk: unknown[][] = [];
  for (const row of rows) {
    chunk.push(row);
    if (chunk.length >= CHUNK_ROWS) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length) yield chunk;
}

function mergeInStatement(database: DataDatabase, dialect: Dialect, query: MergeQuery, folding: Folding): MergeTotals {
  const parameters = new BoundParameters(dialect);
  const merge = compileMerge(query, dialect, parameters);
  const a = dialect.round('raw_a', query.decimals);
  const b = dialect.round('raw_b', query.decimals);
  const sql = [
    `SELECT ${merge.partitionKey ?? 'NULL'} AS partition_value, COUNT(*) AS aligned_keys, SUM(raw_a) AS total_a, SUM(raw_b) AS total_b,`,
    `${FOLD_FUNCTION}(${a}, ${b}${merge.groupedKeys.length ? `, ${merge.groupedKeys.join(', ')}` : ''})`,
    // Keys equal at this precision are only counted.
    `FILTER (WHERE ${dialect.distinct(a, b)}) AS folded`,
    `FROM (${merge.aligned}) AS aligned${merge.partitionKey ? ` GROUP BY ${merge.partitionKey}` : ''}`,
  ].join(' ');
  active = { folding, constants: merge.constants, keyCount: query.keyNames.length };
  let groups: unknown[][];
  try {
    groups = database.prepare(sql).raw(true).all(...(parameters.values as Value[])) as unknown[][];
  } finally {
    active = undefined;
  }
  const partitions = groups
    .filter((group) => Number(group[1]) > 0)
    .map(([partition, keys, totalA, totalB]) => ({ partition: merge.constantPartition ?? text(partition), keys: Number(keys), a: Number(totalA ?? 0), b: Number(totalB ?? 0) }));
  return { sql, partitions };
}
