/**
 * Whether a side of a merge has at most one row per key, as its database guarantees it: on
 * PostgreSQL, a valid unique index over key columns only (no expression, no condition), each
 * NOT NULL. Checksum bisection then sums both sides' rows ungrouped (bisection.ts): a side known
 * to repeat no key vouches for the other's agreeing segments. Other engines answer false: SQLite
 * lets a unique column hold both 1 and '1' (one key text), and a Parquet file promises nothing.
 */
import type { Engine } from './engines/engine.ts';
import type { MergeSide } from './query.ts';

/**
 * A unique index whose key columns (INCLUDE columns aside) are all among `$2` and NOT NULL
 * (NULLs are distinct in a unique index, but every NULL has the same key text).
 */
const UNIQUE_INDEX = `SELECT 1 FROM pg_index AS i
WHERE i.indrelid = to_regclass($1) AND i.indisunique AND i.indisvalid AND i.indpred IS NULL AND i.indexprs IS NULL
AND NOT EXISTS (
  SELECT 1 FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, position)
  JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
  WHERE k.position <= i.indnkeyatts AND (NOT a.attnotnull OR NOT (a.attname = ANY($2::text[])))
)
LIMIT 1`;

/**
 * Whether `side`'s table holds at most one row per key (its rows, filtered or not).
 * @example
 * await keysAreUnique(postgres, { table: 'fi_acquisition', keys: [{ column: 'ac_docnr' }, { column: 'docline' }], … }); // true with a unique index on both
 */
export async function keysAreUnique(engine: Engine, side: MergeSide): Promise<boolean> {
  if (engine.kind !== 'postgres') return false;
  const columns = side.keys.flatMap((key) => ('column' in key ? [key.column] : []));
  if (columns.length === 0) return false;
  // Text parameters: the pg driver would send a JavaScript array as one, but the engine's
  // parameters are plain values; the list travels as an array literal.
  const rows = await engine.all(UNIQUE_INDEX, [engine.dialect.table(side.table), `{${columns.map((column) => `"${column.replace(/["\\]/g, '\\$&')}"`).join(',')}}`]);
  return rows.length > 0;
}
