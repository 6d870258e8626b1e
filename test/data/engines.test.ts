/**
 * The data layer's blocks on every engine: the same query descriptions over the same small
 * tables give the same rows on SQLite, DuckDB (a file and Parquet files) and PostgreSQL (a real
 * server), and a merge whose sides live on two different engines gives what it gives on one.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrls } from '../support/engineServers.ts';
import { Connections } from '../../src/data/connections.ts';
import { createDataAccess, type DataAccess } from '../../src/data/dataAccess.ts';
import { distinctValues, valueExists } from '../../src/data/lookups.ts';
import type { SelectQuery } from '../../src/data/query.ts';
import { restrictRows } from '../../src/data/restrictedData.ts';
import { ToolError } from '../../src/errors/index.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { engineFixture, type EngineFixture, type FixtureEngine } from '../support/engineFixture.ts';
import { withPostgres } from '../support/postgresClient.ts';
import { collectMerged, documentCurrencyMerge, sumField } from '../support/testReducers.ts';

function database(): string {
  const file = path.join(temporaryDirectory(), 'engine.db');
  const db = new Database(file);
  db.exec(`CREATE TABLE a (doc TEXT, line INTEGER, pc TEXT, cur TEXT, amount REAL);
    INSERT INTO a VALUES ('D1', 1, 'PC1', 'EUR', 100), ('D1', 1, 'PC2', 'EUR', 100), ('D2', 1, NULL, 'EUR', 50),
      ('D3', 1, '  ', 'USD', 10), ('D3', 2, '#', 'USD', 20), (NULL, 1, 'PC1', 'EUR', 5), (NULL, 1, 'PC1', 'EUR', 5);
    CREATE TABLE b (doc TEXT, cur TEXT, amount REAL);
    INSERT INTO b VALUES ('D1', 'EUR', 200), ('D2', 'EUR', 49.99), ('D4', 'USD', 7), (NULL, 'EUR', 10);`);
  db.close();
  return file;
}

const engines: FixtureEngine[] = ['sqlite', 'duckdb', 'parquet', 'postgres'];
let fixture: EngineFixture;
beforeAll(async () => {
  fixture = await engineFixture(database(), ['a', 'b']);
}, 60_000);
afterAll(() => fixture?.drop());

const merge = documentCurrencyMerge();
const mergedOnOne = {
  partitions: [
    { partition: 'EUR', keys: 3, a: 260, b: 259.99 },
    { partition: 'USD', keys: 2, a: 30, b: 7 },
  ],
  // NULL keys align with each other (10 = 10, not fed); D1 agrees to the cent.
  folded: {
    rows: 3,
    first: [
      { key: ['D2', 'EUR'], a: 50, b: 49.99 },
      { key: ['D3', 'USD'], a: 30, b: null },
      { key: ['D4', 'USD'], a: null, b: 7 },
    ],
  },
};

describe.each(engines)('the data layer on %s', (engine) => {
  let data: DataAccess;
  beforeAll(() => {
    data = createDataAccess(new Connections([fixture.specs[engine]], { statementTimeoutMs: 10_000 }));
  });
  afterAll(() => data?.close());

  it('groups, counts rows that meet a condition, collects distinct values and tells when rows vary', async () => {
    const { rows, total } = await data.run({
      kind: 'select',
      table: 'a',
      columns: [{ name: 'currency', column: 'cur' }],
      aggregates: [
        { name: 'rows', function: 'count' },
        { name: 'blank', function: 'count', where: { kind: 'any', filters: [{ column: 'pc', kind: 'null' }, { column: 'pc', kind: 'empty' }, { column: 'pc', kind: 'in', values: ['#'] }] } },
        { name: 'centres', function: 'distinctValues', column: 'pc' },
        { name: 'amounts_vary', function: 'varies', column: 'amount' },
      ],
      orderBy: [{ name: 'rows', direction: 'desc' }],
      countAll: true,
    });
    expect(rows).toEqual([
      { currency: 'EUR', rows: 5, blank: 1, centres: ['PC1', 'PC2', null], amounts_vary: true },
      { currency: 'USD', rows: 2, blank: 2, centres: ['  ', '#'], amounts_vary: true },
    ]);
    expect(total).toBe(2);
  });

  it('keeps only the rows of repeated keys (a NULL key repeats too) and streams them into a reducer', async () => {
    const result = await data.run({
      kind: 'fold',
      select: {
        kind: 'select',
        table: 'a',
        columns: [{ name: 'doc', column: 'doc' }, { name: 'line', column: 'line' }],
        aggregates: [{ name: 'copies', function: 'count' }, { name: 'amount', function: 'sum', column: 'amount' }],
        repeated: { columns: ['doc', 'line'], atLeast: 2 },
        having: [{ name: 'copies', atLeast: 2 }],
      },
      fold: sumField.with({ field: 'amount' }),
    });
    expect(result.rows).toBe(2);
    expect(result.folded).toEqual({ total: 210, rows: 2 });
    expect(result.sql).toMatch(/^WITH "__repeated" AS MATERIALIZED/);
  });

  it('merges two sides per key, totals per partition, and feeds only the keys that differ to the reducer, in key order', async () => {
    const result = await data.run(merge);
    expect({ partitions: result.partitions.map((p) => ({ ...p, a: Math.round(p.a * 100) / 100, b: Math.round(p.b * 100) / 100 })), folded: result.folded }).toEqual(mergedOnOne);
  });

  it('answers the two lookups tools use to check filter values', async () => {
    expect(await valueExists(data, { table: 'a' }, 'pc', 'PC2')).toBe(true);
    expect(await valueExists(data, { table: 'a' }, 'pc', 'PC9')).toBe(false);
    expect(await valueExists(data, { table: 'a' }, 'doc', null)).toBe(true);
    expect(await distinctValues(data, { table: 'a' }, 'cur', 10)).toEqual(['EUR', 'USD']);
  });

  it('turns a failing query into a recoverable tool error, and a reducer that does not exist into one too', async () => {
    const missingColumn = await data.run({ kind: 'select', table: 'a', columns: [{ name: 'x', column: 'nope' }] }).catch((e: unknown) => e);
    expect(ToolError.isInstance(missingColumn) && missingColumn.code).toBe('query_failed');
    const missingReducer = await data
      .run({ kind: 'fold', select: { kind: 'select', table: 'a', columns: [{ name: 'doc', column: 'doc' }] }, fold: { module: collectMerged.module, name: 'nothingHere', options: {} } })
      .catch((e: unknown) => e);
    expect(ToolError.isInstance(missingReducer) && missingReducer.message).toMatch(/exports no reducer named 'nothingHere'/);
  });

  it('refuses to run a query whose caller already cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await data.run({ kind: 'select', table: 'a', columns: [{ name: 'doc', column: 'doc' }] }, controller.signal).catch((e: unknown) => e);
    expect(ToolError.isInstance(error)).toBe(true);
  });
  it('reads only the rows a restriction allows, in selects, folds and both sides of a merge, and no other table', async () => {
    // Only currency EUR may be read of a; all of b.
    const restricted = restrictRows(data, [
      { connection: 'default', table: 'a', where: [{ column: 'cur', kind: 'in', values: ['EUR'] }] },
      { connection: 'default', table: 'b', where: [] },
    ]);
    const { rows } = await restricted.run({ kind: 'select', table: 'a', columns: [{ name: 'currency', column: 'cur' }], aggregates: [{ name: 'rows', function: 'count' }], where: [{ kind: 'any', filters: [{ column: 'cur', kind: 'in', values: ['USD'] }, { column: 'cur', kind: 'null' }] }] });
    expect(rows).toEqual([]);
    const folded = await restricted.run({ kind: 'fold', select: { kind: 'select', table: 'a', columns: [{ name: 'doc', column: 'doc' }], aggregates: [{ name: 'amount', function: 'sum', column: 'amount' }] }, fold: sumField.with({ field: 'amount' }) });
    expect(folded.folded).toEqual({ total: 260, rows: 3 });
    const merged = await restricted.run(merge);
    expect(merged.partitions.map((p) => ({ ...p, a: Math.round(p.a * 100) / 100, b: Math.round(p.b * 100) / 100 }))).toEqual([
      { partition: 'EUR', keys: 3, a: 260, b: 259.99 },
      { partition: 'USD', keys: 1, a: 0, b: 7 },
    ]);
    const other = await restrictRows(data, [{ connection: 'default', table: 'b', where: [] }])
      .run({ kind: 'select', table: 'a', aggregates: [{ name: 'rows', function: 'count' }] })
      .catch((e: unknown) => e);
    expect(ToolError.isInstance(other) && other.code).toBe('unknown_source');
  });
});

describe('a merge whose sides live on two engines', () => {
  it.each([
    ['postgres', 'duckdb'],
    ['parquet', 'sqlite'],
    ['sqlite', 'postgres'],
  ] as const)('gives on %s + %s what it gives on one engine', async (first, second) => {
    const connections = new Connections([{ ...fixture.specs[first], name: 'one' }, { ...fixture.specs[second], name: 'two' }], { statementTimeoutMs: 10_000 });
    const data = createDataAccess(connections);
    try {
      const result = await data.run({ ...merge, a: { ...merge.a, connection: 'one' }, b: { ...merge.b, connection: 'two' } });
      expect({ partitions: result.partitions.map((p) => ({ ...p, a: Math.round(p.a * 100) / 100, b: Math.round(p.b * 100) / 100 })), folded: result.folded }).toEqual(mergedOnOne);
    } finally {
      await data.close();
    }
  });
});

describe('a PostgreSQL connection that breaks', () => {
  it('is opened again for the next query instead of failing from then on', async () => {
    const data = createDataAccess(new Connections([fixture.specs.postgres], { statementTimeoutMs: 10_000 }));
    const count: SelectQuery = { kind: 'select', table: 'a', aggregates: [{ name: 'rows', function: 'count' }] };
    try {
      expect((await data.run(count)).rows).toEqual([{ rows: 7 }]);
      // The server ends the session, as a restart or an administrator would.
      const database = new URL(fixture.specs.postgres.url).pathname.slice(1);
      await withPostgres((await postgresUrls()).adminUrl, (client) => client.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'analyst-agent'", [database]));
      await data.run(count).catch(() => undefined); // the query that meets the broken session may fail
      expect((await data.run(count)).rows).toEqual([{ rows: 7 }]);
    } finally {
      await data.close();
    }
  });
});
