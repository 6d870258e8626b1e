/**
 * What a side's database guarantees about its keys, for checksum bisection's ungrouped sides
 * (bisection.ts), read from PostgreSQL's catalog; other engines promise nothing (SQLite lets a
 * unique column hold both 1 and '1', one key text; a Parquet file has no constraints):
 * - unique: at most one row per key, so the side vouches for the other's agreeing segments;
 * - keyed by text: two values of a key column are equal only if their texts are, so summing rows
 *   by their key text finds the keys grouping by the columns finds;
 * and how many rows its table holds by the planner's statistics (the first level's size).
 */
import { quoteIdentifier, textArrayLiteral } from './dialect.ts';
import type { Engine } from './engines/engine.ts';
import type { MergeSide } from './query.ts';

/**
 * A valid unique index on the table itself (not one with inheriting children, whose rows a
 * unique index of the parent does not cover; a partitioned table's index covers every
 * partition), over key columns only (INCLUDE columns aside), none an expression, no condition,
 * each with the column's own collation and its type's default operator class (an index on
 * `code COLLATE "C"` of a case-blind column holds 'x' and 'X', one key to GROUP BY), each column
 * NOT NULL by a validated constraint (NULLs are distinct in a unique index but share one key
 * text; PostgreSQL 18 records NOT VALID NOT NULL constraints in pg_constraint).
 */
const UNIQUE_INDEX = `SELECT 1 FROM pg_index AS i
JOIN pg_class AS t ON t.oid = i.indrelid
WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL
AND (t.relkind = 'p' OR NOT EXISTS (SELECT 1 FROM pg_inherits WHERE inhparent = i.indrelid))
AND NOT EXISTS (
  SELECT 1 FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
  JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
  JOIN pg_opclass AS o ON o.oid = i.indclass[k.position - 1]
  WHERE k.position <= i.indnkeyatts AND (
    NOT a.attnotnull OR NOT (a.attname = ANY($2::text[]))
    OR i.indcollation[k.position - 1] <> a.attcollation OR NOT o.opcdefault
    OR EXISTS (SELECT 1 FROM pg_constraint AS c WHERE c.conrelid = i.indrelid AND c.contype = 'n' AND NOT c.convalidated AND a.attnum = ANY(c.conkey))
  )
)
LIMIT 1`;

/**
 * Types whose equal values print alike and whose distinct values print apart (numeric does not:
 * 1.0 = 1.00; nor float8: -0 = 0; nor citext or a nondeterministic collation: 'a' = 'A').
 */
const TEXTUAL_TYPES = ['text', 'varchar', 'bpchar', 'int2', 'int4', 'int8', 'date', 'bool', 'uuid', 'timestamp', 'timestamptz'];

/** Each named column's built-in type (a type of that name in another schema is not) and whether its collation is deterministic. */
const KEY_COLUMNS = `SELECT a.attname, t.typname, COALESCE(co.collisdeterministic, true)
FROM pg_attribute AS a
JOIN pg_type AS t ON t.oid = a.atttypid AND t.typnamespace = 'pg_catalog'::regnamespace
LEFT JOIN pg_collation AS co ON co.oid = a.attcollation
WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped AND a.attname = ANY($2::text[])`;

const columnsOf = (side: MergeSide) => [...new Set(side.keys.flatMap((key) => ('column' in key ? [key.column] : [])))];

/**
 * Whether `side`'s table holds at most one row per key (its rows, filtered or not).
 * @example
 * await keysAreUnique(postgres, { table: 'fi_acquisition', keys: [{ column: 'ac_docnr' }, { column: 'docline' }], … }); // true with a unique index on both
 */
export async function keysAreUnique(engine: Engine, side: MergeSide): Promise<boolean> {
  const columns = columnsOf(side);
  if (engine.kind !== 'postgres' || columns.length === 0) return false;
  // The table's own name: the dialect may read a table with computed columns through a subquery.
  return (await engine.all(UNIQUE_INDEX, [quoteIdentifier(side.table), textArrayLiteral(columns)])).length > 0;
}

/**
 * Whether every key column of `side` is a column of its table whose values are equal exactly
 * when their texts are (see TEXTUAL_TYPES), so keys found by text are the keys found by column.
 * @example
 * await keysGroupAsText(postgres, { table: 'fi_acquisition', keys: [{ column: 'ac_docnr' }, { literal: 'EUR' }], … }); // true: a text column
 */
export async function keysGroupAsText(engine: Engine, side: MergeSide): Promise<boolean> {
  const columns = columnsOf(side);
  if (engine.kind !== 'postgres') return false;
  if (columns.length === 0) return true;
  const rows = await engine.all(KEY_COLUMNS, [quoteIdentifier(side.table), textArrayLiteral(columns)]);
  return rows.length === columns.length && rows.every(([, type, deterministic]) => TEXTUAL_TYPES.includes(String(type)) && deterministic === true);
}

/** The table's rows by its statistics (its children's too: a partitioned or inherited table); unknown (-1) as none. */
const ESTIMATED_ROWS = `SELECT COALESCE(SUM(GREATEST(reltuples, 0)), 0) FROM pg_class
WHERE oid = to_regclass($1) OR oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = to_regclass($1))`;

/**
 * How many rows `side`'s table holds by PostgreSQL's statistics (as of its last ANALYZE); 0 where
 * unknown: another engine, a table never analyzed, a missing table.
 * @example
 * await estimatedRows(postgres, { table: 'fi_acquisition', … }); // 9_998_741
 */
export async function estimatedRows(engine: Engine, side: MergeSide): Promise<number> {
  if (engine.kind !== 'postgres') return 0;
  const [row] = await engine.all(ESTIMATED_ROWS, [quoteIdentifier(side.table)]);
  return Number(row?.[0] ?? 0);
}
