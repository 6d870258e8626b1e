/**
 * PostgreSQL target of `npm run data:load`: tables with TEXT / DOUBLE PRECISION / BIGINT
 * (NOT NULL and primary keys kept), rows in multi-row parameterised INSERTs (prepared once per
 * table, so PostgreSQL parses each batch shape once), the SQLite indexes recreated from their
 * sqlite_master SQL, then VACUUM (ANALYZE). Everything up to the indexes runs in one transaction,
 * so a failed load (or a refused one) leaves the database as it was.
 */
import pg from 'pg';
import { connectLibpq } from '../../shared/postgresTls.ts';
import { quoteIdentifier, type ColumnKind, type LoadValue, type Source, type SourceIndex, type SourceTable } from './source.ts';
import type { TableLoadResult, WriterOptions } from './types.ts';

const POSTGRES_TYPES: Record<ColumnKind, string> = { text: 'TEXT', double: 'DOUBLE PRECISION', bigint: 'BIGINT', blob: 'BYTEA' };

/** PostgreSQL accepts at most 65535 bind parameters per statement. */
const MAX_PARAMETERS = 65_535;
/** Rows per INSERT: bigger batches stop paying off around here (fewer round trips vs. bigger messages). */
const MAX_ROWS_PER_BATCH = 1_000;

/** CREATE TABLE in PostgreSQL's types. */
function postgresCreateTable(table: SourceTable): string {
  const columns = table.columns.map((column) => `${quoteIdentifier(column.name)} ${POSTGRES_TYPES[column.kind]}${column.notNull ? ' NOT NULL' : ''}`);
  if (table.primaryKey.length > 0) columns.push(`PRIMARY KEY (${table.primaryKey.map(quoteIdentifier).join(', ')})`);
  return `CREATE TABLE ${quoteIdentifier(table.name)} (${columns.join(', ')})`;
}

/**
 * The statement recreating a SQLite index: its own CREATE INDEX text (portable for plain column
 * lists), or one built from its columns for the indexes SQLite made for UNIQUE constraints.
 */
function postgresCreateIndex(table: SourceTable, index: SourceIndex): string {
  if (index.sql) return index.sql;
  return `CREATE UNIQUE INDEX ${quoteIdentifier(index.name)} ON ${quoteIdentifier(table.name)} (${index.columns.map(quoteIdentifier).join(', ')})`;
}

function insertText(table: SourceTable, rowCount: number): string {
  const width = table.columns.length;
  const tuples: string[] = [];
  for (let row = 0; row < rowCount; row++) {
    tuples.push(`(${table.columns.map((_, column) => `$${row * width + column + 1}`).join(', ')})`);
  }
  return `INSERT INTO ${quoteIdentifier(table.name)} (${table.columns.map((column) => quoteIdentifier(column.name)).join(', ')}) VALUES ${tuples.join(', ')}`;
}

/**
 * Copies tables into the database of `url`.
 * @throws Error when a table exists and `replace` is false (nothing is changed then).
 * @example
 * await loadIntoPostgres(source, source.tables(), 'postgres://postgres@127.0.0.1:5432/analyst', { replace: true, progress: () => {}, progressEvery: 100_000 });
 */
export async function loadIntoPostgres(source: Source, tables: SourceTable[], url: string, display: string, options: WriterOptions): Promise<TableLoadResult[]> {
  const { client } = await connectLibpq({ connectionString: url, application_name: 'data:load' });
  try {
    const existing = new Set(
      (await client.query<{ name: string }>({ text: 'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ANY($1::text[])', values: [tables.map((table) => table.name)] })).rows.map((row) => row.name),
    );
    const clash = tables.filter((table) => existing.has(table.name)).map((table) => table.name);
    if (clash.length > 0 && !options.replace) throw new Error(`Table ${clash.join(', ')} already exists in ${display}; pass --replace to drop and reload it`);

    await client.query('BEGIN');
    const results: TableLoadResult[] = [];
    try {
      // Nothing here needs to survive a crash before COMMIT; this only saves WAL flush waits.
      await client.query('SET LOCAL synchronous_commit = off');
      for (const table of tables) {
        const started = performance.now();
        // No CASCADE: a view depending on the table makes the load fail, with PostgreSQL's message naming it.
        if (existing.has(table.name)) await client.query(`DROP TABLE ${quoteIdentifier(table.name)}`);
        await client.query(postgresCreateTable(table));
        const rows = await insertRows(client, source, table, options);
        const indexes: string[] = [];
        for (const index of table.indexes) {
          try {
            await client.query(postgresCreateIndex(table, index));
          } catch (error) {
            throw new Error(`Recreating index ${index.name} on ${table.name} failed: ${(error as Error).message}`);
          }
          indexes.push(index.name);
        }
        results.push({ table: table.name, rows, ms: performance.now() - started, orderedBy: table.orderedBy?.index ?? null, indexes, notes: [] });
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    // Fresh statistics, so the planner uses the new indexes right away; and the pages marked
    // all-visible now, not by the first queries and an autovacuum running beside them (fresh rows
    // slowed the first comparisons of 10 M keys by a third), so index-only scans apply at once.
    // The rows are committed by now: a failure here (a timeout, a lost connection) is a note with
    // the command to run, not a failed load that a second run would refuse as already there.
    const started = performance.now();
    const names = tables.map((table) => quoteIdentifier(table.name)).join(', ');
    const note = await client.query(`VACUUM (ANALYZE) ${names}`).then(
      () => `VACUUM (ANALYZE) of ${tables.length} table(s): ${Math.round(performance.now() - started)} ms`,
      (error: unknown) => `VACUUM (ANALYZE) failed (${(error as Error).message}); the rows are loaded: run VACUUM (ANALYZE) ${names} before querying them`,
    );
    results.at(-1)?.notes.push(note);
    return results;
  } finally {
    await client.end();
  }
}

let statementCount = 0;

async function insertRows(client: pg.Client, source: Source, table: SourceTable, options: WriterOptions): Promise<number> {
  const batchRows = Math.max(1, Math.min(MAX_ROWS_PER_BATCH, Math.floor(MAX_PARAMETERS / table.columns.length)));
  // Prepared under a name: PostgreSQL parses and plans the full-batch INSERT once per table.
  const fullBatch = { name: `data_load_${++statementCount}`, text: insertText(table, batchRows) };
  let values: LoadValue[] = [];
  let rows = 0;
  for (const row of source.rows(table)) {
    for (const value of row) values.push(value);
    if (++rows % batchRows === 0) {
      await client.query({ ...fullBatch, values });
      values = [];
    }
    if (rows % options.progressEvery === 0) options.progress(table.name, rows);
  }
  const rest = values.length / table.columns.length;
  if (rest > 0) await client.query({ text: insertText(table, rest), values });
  return rows;
}
