/**
 * What a side's database guarantees about its keys, on a real PostgreSQL server: one row per key
 * at most (a unique index over NOT NULL key columns; never a NULL-able one, one over other columns
 * too, a partial or expression index, a parent with inheriting children), and keys found by text
 * (types whose equal values print alike); other engines promise nothing.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connections } from '../../src/data/connections.ts';
import type { MergeSide } from '../../src/data/query.ts';
import { estimatedRows, keysAreUnique, keysGroupAsText } from '../../src/data/uniqueKeys.ts';
import { firstBitsFor, notesPay } from '../../src/data/bisectionTuning.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { engineFixture, type EngineFixture } from '../support/engineFixture.ts';
import { withPostgres } from '../support/postgresClient.ts';

let fixture: EngineFixture;
beforeAll(async () => {
  const file = path.join(temporaryDirectory(), 'unique.db');
  const db = new Database(file);
  db.exec(`CREATE TABLE lines (doc TEXT NOT NULL, line INTEGER NOT NULL, cur TEXT NOT NULL, amount REAL);
    CREATE UNIQUE INDEX ix_lines ON lines (doc, line);
    CREATE TABLE open_lines (doc TEXT NOT NULL, line INTEGER, amount REAL);
    CREATE UNIQUE INDEX ix_open_lines ON open_lines (doc, line);
    CREATE TABLE plain_lines (doc TEXT NOT NULL, line INTEGER NOT NULL, amount REAL);
    CREATE INDEX ix_plain_lines ON plain_lines (doc, line);
    INSERT INTO lines VALUES ('D1', 1, 'EUR', 1.5), ('D1', 2, 'EUR', 2.5);
    INSERT INTO open_lines VALUES ('D1', NULL, 1), ('D1', NULL, 2);
    INSERT INTO plain_lines VALUES ('D1', 1, 1), ('D1', 1, 2);`);
  db.close();
  fixture = await engineFixture(file, ['lines', 'open_lines', 'plain_lines']);
  // What a SQLite file cannot carry: an inheriting child, partial, expression and INCLUDE indexes, other key types.
  await withPostgres(fixture.specs.postgres.url, async (client) => {
    await client.query(`CREATE TABLE parent_lines (doc text NOT NULL, line int NOT NULL, amount float8);
      CREATE UNIQUE INDEX ix_parent_lines ON parent_lines (doc, line);
      CREATE TABLE child_lines () INHERITS (parent_lines);
      INSERT INTO parent_lines VALUES ('D1', 1, 1); INSERT INTO child_lines VALUES ('D1', 1, 2);
      CREATE TABLE partial_lines (doc text NOT NULL, line int NOT NULL, open bool NOT NULL, amount float8);
      CREATE UNIQUE INDEX ix_partial_lines ON partial_lines (doc, line) WHERE open;
      CREATE TABLE lower_lines (doc text NOT NULL, line int NOT NULL, amount float8);
      CREATE UNIQUE INDEX ix_lower_lines ON lower_lines (lower(doc), line);
      CREATE TABLE covered_lines (doc text NOT NULL, line int NOT NULL, amount float8 NOT NULL);
      CREATE UNIQUE INDEX ix_covered_lines ON covered_lines (doc, line) INCLUDE (amount);
      CREATE COLLATION IF NOT EXISTS case_blind (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
      CREATE TABLE typed_lines (doc text NOT NULL, code text COLLATE case_blind, price numeric, day date, id uuid, open bool, at timestamptz, tag char(3), amount float8);
      CREATE TABLE blind_lines (code text COLLATE case_blind NOT NULL, other text NOT NULL, amount float8);
      CREATE UNIQUE INDEX ix_blind_lines_code ON blind_lines (code COLLATE "C");
      CREATE UNIQUE INDEX ix_blind_lines_other ON blind_lines (other text_pattern_ops);
      INSERT INTO blind_lines VALUES ('x', 'y', 1), ('X', 'Y', 2);
      CREATE TABLE part_lines (doc text NOT NULL, line int NOT NULL, amount float8) PARTITION BY LIST (doc);
      CREATE TABLE part_lines_d1 PARTITION OF part_lines FOR VALUES IN ('D1');
      CREATE UNIQUE INDEX ix_part_lines ON part_lines (doc, line);
      CREATE SCHEMA lookalike; CREATE DOMAIN lookalike.int4 AS numeric;
      CREATE TABLE lookalike_lines (doc text NOT NULL, line lookalike.int4, amount float8);`);
  });
}, 120_000);
afterAll(() => fixture?.drop());

const side = (table: string, ...keys: MergeSide['keys']): MergeSide => ({ table, measure: { function: 'sum', column: 'amount' }, keys, where: [] });

describe('keysAreUnique', () => {
  it('trusts a unique index over NOT NULL key columns on PostgreSQL, with more keys or a constant beside them', async () => {
    const connections = new Connections([{ ...fixture.specs.postgres, name: 'warehouse' }], { statementTimeoutMs: 30_000 });
    try {
      const engine = await connections.engine('warehouse');
      expect(await keysAreUnique(engine, side('lines', { column: 'doc' }, { column: 'line' }))).toBe(true);
      expect(await keysAreUnique(engine, side('lines', { column: 'cur' }, { column: 'line' }, { column: 'doc' }, { literal: 'EUR' }))).toBe(true);
      // The index spans a column that is not a key: two rows may share the keys.
      expect(await keysAreUnique(engine, side('lines', { column: 'doc' }, { column: 'cur' }))).toBe(false);
      // NULLs are distinct in a unique index, but both rows of D1 have the same key text.
      expect(await keysAreUnique(engine, side('open_lines', { column: 'doc' }, { column: 'line' }))).toBe(false);
      expect(await keysAreUnique(engine, side('plain_lines', { column: 'doc' }, { column: 'line' }))).toBe(false);
      expect(await keysAreUnique(engine, side('no_such_table', { column: 'doc' }))).toBe(false);
      // A child's rows are read with the parent's, outside its index.
      expect(await keysAreUnique(engine, side('parent_lines', { column: 'doc' }, { column: 'line' }))).toBe(false);
      expect(await keysAreUnique(engine, side('partial_lines', { column: 'doc' }, { column: 'line' }))).toBe(false);
      expect(await keysAreUnique(engine, side('lower_lines', { column: 'doc' }, { column: 'line' }))).toBe(false);
      // INCLUDE columns are carried, not part of the key.
      expect(await keysAreUnique(engine, side('covered_lines', { column: 'doc' }, { column: 'line' }))).toBe(true);
      // A partitioned table's unique index covers every partition.
      expect(await keysAreUnique(engine, side('part_lines', { column: 'doc' }, { column: 'line' }))).toBe(true);
      // An index that tells 'x' from 'X' on a column that does not (both rows are one key to GROUP BY),
      // and one of another operator class than the type's own, whose equality is not always the column's.
      expect(await keysAreUnique(engine, side('blind_lines', { column: 'code' }))).toBe(false);
      expect(await keysAreUnique(engine, side('blind_lines', { column: 'other' }))).toBe(false);
    } finally {
      await connections.close();
    }
  });

  it('finds keys by text only where equal values print alike: text, integers, dates, uuids, not numeric or a case-blind collation', async () => {
    const connections = new Connections([{ ...fixture.specs.postgres, name: 'warehouse' }], { statementTimeoutMs: 30_000 });
    try {
      const engine = await connections.engine('warehouse');
      expect(await keysGroupAsText(engine, side('lines', { column: 'doc' }, { column: 'line' }, { literal: 'EUR' }))).toBe(true);
      expect(await keysGroupAsText(engine, side('typed_lines', { column: 'doc' }, { column: 'day' }, { column: 'id' }, { column: 'open' }, { column: 'at' }, { column: 'tag' }))).toBe(true);
      // 1.0 = 1.00 and 'a' = 'A' there: one key, two texts.
      expect(await keysGroupAsText(engine, side('typed_lines', { column: 'doc' }, { column: 'price' }))).toBe(false);
      expect(await keysGroupAsText(engine, side('typed_lines', { column: 'code' }))).toBe(false);
      // A numeric domain named like a built-in integer type.
      expect(await keysGroupAsText(engine, side('lookalike_lines', { column: 'doc' }, { column: 'line' }))).toBe(false);
      expect(await keysGroupAsText(engine, side('typed_lines', { column: 'doc' }, { column: 'no_such_column' }))).toBe(false);
    } finally {
      await connections.close();
    }
  });

  it('promises nothing on SQLite, DuckDB or Parquet', async () => {
    const connections = new Connections((['sqlite', 'duckdb', 'parquet'] as const).map((name) => ({ ...fixture.specs[name], name })), { statementTimeoutMs: 30_000 });
    try {
      for (const name of ['sqlite', 'duckdb', 'parquet']) {
        const engine = await connections.engine(name);
        expect(await keysAreUnique(engine, side('lines', { column: 'doc' }, { column: 'line' })), name).toBe(false);
        expect(await keysGroupAsText(engine, side('lines', { column: 'doc' }, { column: 'line' })), name).toBe(false);
        expect(await estimatedRows(engine, side('lines')), name).toBe(0);
      }
    } finally {
      await connections.close();
    }
  });
});

describe('the rows a side holds, by its statistics', () => {
  it('are counted as of the last ANALYZE, children included, and size the first level of a bisection', async () => {
    await withPostgres(fixture.specs.postgres.url, (client) =>
      client.query(`CREATE TABLE counted_lines (doc text, amount float8); INSERT INTO counted_lines SELECT 'D' || n, n FROM generate_series(1, 5000) AS n;
        CREATE TABLE never_analyzed (doc text, amount float8); INSERT INTO never_analyzed VALUES ('D1', 1);
        INSERT INTO child_lines SELECT 'C' || n, n, n FROM generate_series(1, 300) AS n;
        ANALYZE counted_lines; ANALYZE parent_lines; ANALYZE child_lines;`),
    );
    const connections = new Connections([{ ...fixture.specs.postgres, name: 'warehouse' }], { statementTimeoutMs: 30_000 });
    try {
      const engine = await connections.engine('warehouse');
      expect(await estimatedRows(engine, side('counted_lines'))).toBe(5_000);
      // An inheriting child's rows are the parent's too (the parent's one row and the child's 301).
      expect(await estimatedRows(engine, side('parent_lines'))).toBe(302);
      expect(await estimatedRows(engine, side('never_analyzed'))).toBe(0);
      expect(await estimatedRows(engine, side('no_such_table'))).toBe(0);
    } finally {
      await connections.close();
    }
    expect([0, 3_999_999, 4_000_000, 10_000_000].map(firstBitsFor)).toEqual([10, 10, 11, 11]);
    // Rows are noted by number from the same size (unknown sizes: not noted).
    expect([0, 3_999_999, 4_000_000, 10_000_000].map(notesPay)).toEqual([false, false, true, true]);
  });
});
