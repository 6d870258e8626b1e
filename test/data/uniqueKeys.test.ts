/**
 * Which sides of a merge hold one row per key at most, as their database guarantees it: a unique
 * index over NOT NULL key columns on a real PostgreSQL server; never a NULL-able one, an index
 * over other columns too, or an engine that cannot promise it.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connections } from '../../src/data/connections.ts';
import type { MergeSide } from '../../src/data/query.ts';
import { keysAreUnique } from '../../src/data/uniqueKeys.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { engineFixture, type EngineFixture } from '../support/engineFixture.ts';

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
    } finally {
      await connections.close();
    }
  });

  it('promises nothing on SQLite, DuckDB or Parquet', async () => {
    const connections = new Connections((['sqlite', 'duckdb', 'parquet'] as const).map((name) => ({ ...fixture.specs[name], name })), { statementTimeoutMs: 30_000 });
    try {
      for (const name of ['sqlite', 'duckdb', 'parquet']) expect(await keysAreUnique(await connections.engine(name), side('lines', { column: 'doc' }, { column: 'line' })), name).toBe(false);
    } finally {
      await connections.close();
    }
  });
});
