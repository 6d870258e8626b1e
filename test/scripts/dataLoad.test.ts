/**
 * `npm run data:load` (scripts/dataLoad.ts, src/data/load): data/sample.db copied into a DuckDB
 * file, a Parquet directory and a database of its own on the run's PostgreSQL
 * (test/support/postgresServer.ts) holds the same rows: same count and same amount checksum
 * per table as SQLite, rows stored in reconcile-index order, the SQLite indexes recreated in
 * PostgreSQL. An existing table is refused without --replace, passwords never appear in
 * errors, and the tests' reader role cannot write.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { withPostgres } from '../support/postgresClient.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrls } from '../support/engineServers.ts';
import { projectRoot } from '../../src/config/config.ts';
import { loadData } from '../../src/data/load/index.ts';
import { parseCommandLine } from '../../scripts/dataLoad.ts';

const SAMPLE = path.join(projectRoot, 'data/sample.db');
const sqlite = new Database(SAMPLE, { readonly: true });
const TABLES = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY name").pluck().all() as string[];
const AMOUNT_TABLES = ['fi_acquisition', 'fi_reporting', 'consolidation_mart', 'bpc_reporting'];
const SQLITE_INDEXES = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").pluck().all() as string[];

/** Count per table, and for the amount tables an exact checksum in cents (float sums differ in the last bits by summation order). */
const CHECKSUM = (table: string) =>
  AMOUNT_TABLES.includes(table) ? `SELECT COUNT(*) AS n, SUM(CAST(ROUND(cs_trn_lc * 100) AS BIGINT)) AS cents FROM "${table}"` : `SELECT COUNT(*) AS n, 0 AS cents FROM "${table}"`;
const numbers = (row: unknown[]) => row.map((value) => Number(value));
const expected: Record<string, number[]> = Object.fromEntries(TABLES.map((table) => [table, numbers(sqlite.prepare(CHECKSUM(table)).raw(true).get() as unknown[])]));
/** fi_reporting's key in the order of its widest reconcile index (curkey_lc, ac_docnr, docline, cs_trn_lc). */
const sortedKeys = (sqlite.prepare('SELECT ac_docnr, docline FROM fi_reporting ORDER BY curkey_lc, ac_docnr, docline, cs_trn_lc').raw(true).all() as unknown[][]).map(([doc, line]) => `${doc}/${line}`);

let directory: string;
beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'data-load-test-'));
});
afterAll(() => {
  fs.rmSync(directory, { recursive: true, force: true });
  sqlite.close();
});

async function duckdbRows(file: string, sql: string): Promise<unknown[][]> {
  const instance = await DuckDBInstance.create(file, file === ':memory:' ? {} : { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRows();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('data:load into DuckDB and Parquet', () => {
  it('copies every table with the same counts and amounts as SQLite, sorted by the reconcile index', async () => {
    const file = path.join(directory, 'sample.duckdb');
    const lines: string[] = [];
    const result = await loadData({ from: SAMPLE, to: `duckdb:${file}`, onProgress: (line) => lines.push(line) });
    expect(result.tables.map((table) => table.table).sort()).toEqual(TABLES);
    expect(result.rowsPerSecond).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatch(/^Loaded \d+ rows into duckdb:.* rows\/s$/);
    expect(result.tables.find((table) => table.table === 'fi_reporting')).toMatchObject({ orderedBy: 'ix_fi_reconcile_line', notes: [expect.stringContaining('not recreated in DuckDB')] });
    for (const table of TABLES) expect(numbers((await duckdbRows(file, CHECKSUM(table)))[0]!), table).toEqual(expected[table]);
    const types = await duckdbRows(file, "SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'fi_reporting' AND column_name IN ('compcode', 'docline', 'cs_trn_lc', 'quantity') ORDER BY column_name");
    expect(types).toEqual([['compcode', 'VARCHAR', 'NO'], ['cs_trn_lc', 'DOUBLE', 'NO'], ['docline', 'BIGINT', 'NO'], ['quantity', 'DOUBLE', 'YES']]);
    expect((await duckdbRows(file, 'SELECT ac_docnr, docline FROM fi_reporting')).map(([doc, line]) => `${doc}/${line}`)).toEqual(sortedKeys);

    await expect(loadData({ from: SAMPLE, to: `duckdb:${file}`, tables: ['fi_reporting'] })).rejects.toThrow(`Table fi_reporting already exists in duckdb:${file}; pass --replace to drop and reload it`);
    await expect(loadData({ from: SAMPLE, to: `duckdb:${file}`, tables: ['fi_reporting'], replace: true })).resolves.toMatchObject({ rows: expected.fi_reporting![0] });
  });

  it('writes one sorted Parquet file per table', async () => {
    const parquet = path.join(directory, 'parquet');
    await loadData({ from: SAMPLE, to: `parquet:${parquet}` });
    expect(fs.readdirSync(parquet).sort()).toEqual(TABLES.map((table) => `${table}.parquet`));
    for (const table of TABLES) {
      const sql = CHECKSUM(table).replace(`FROM "${table}"`, `FROM read_parquet('${path.join(parquet, `${table}.parquet`)}')`);
      expect(numbers((await duckdbRows(':memory:', sql))[0]!), table).toEqual(expected[table]);
    }
    const order = await duckdbRows(':memory:', `SELECT ac_docnr, docline FROM read_parquet('${path.join(parquet, 'fi_reporting.parquet')}')`);
    expect(order.map(([doc, line]) => `${doc}/${line}`)).toEqual(sortedKeys);
    await expect(loadData({ from: SAMPLE, to: `parquet:${parquet}`, tables: ['companies'] })).rejects.toThrow('companies.parquet already exists');
  });
});

const { adminUrl, readerUrl } = await postgresUrls();

describe('data:load into PostgreSQL', () => {
  const database = `load_test_${randomBytes(4).toString('hex')}`;
  const target = (() => {
    const url = new URL(adminUrl);
    url.pathname = `/${database}`;
    return url.toString();
  })();


  beforeAll(() => withPostgres(adminUrl, (client) => client.query(`CREATE DATABASE ${database}`)));
  afterAll(() => withPostgres(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)));

  it('copies every table with the same counts and amounts, recreates the indexes and refuses to overwrite without --replace', async () => {
    const result = await loadData({ from: SAMPLE, to: target });
    expect(result.rows).toBe(Object.values(expected).reduce((sum, [n]) => sum + n!, 0));
    await withPostgres(target, async (client) => {
      for (const table of TABLES) {
        const row = (await client.query({ text: CHECKSUM(table), rowMode: 'array' })).rows[0] as unknown[];
        expect(numbers(row), table).toEqual(expected[table]);
      }
      const indexes = (await client.query<{ indexname: string }>("SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")).rows.map((row) => row.indexname);
      expect(indexes).toEqual(expect.arrayContaining(SQLITE_INDEXES));
      const types = (await client.query("SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = 'fi_reporting' AND column_name IN ('compcode', 'docline', 'cs_trn_lc', 'quantity') ORDER BY column_name", [])).rows;
      expect(types.map((row) => Object.values(row))).toEqual([['compcode', 'text', 'NO'], ['cs_trn_lc', 'double precision', 'NO'], ['docline', 'bigint', 'NO'], ['quantity', 'double precision', 'YES']]);
      expect((await client.query("SELECT COUNT(*)::int AS n FROM pg_stats WHERE tablename = 'fi_reporting'")).rows[0].n).toBeGreaterThan(0); // ANALYZE ran
      // VACUUM ran, not left to the first queries and an autovacuum beside them (its statistics
      // reach other sessions once the loading session has ended: polled).
      await expect.poll(async () => (await client.query("SELECT last_vacuum IS NOT NULL AS vacuumed FROM pg_stat_user_tables WHERE relname = 'fi_reporting'")).rows[0]?.vacuumed, { timeout: 10_000 }).toBe(true);
    });

    const refused = loadData({ from: SAMPLE, to: target, tables: ['fi_reporting', 'bpc_reporting'] });
    await expect(refused).rejects.toThrow(/^Table fi_reporting, bpc_reporting already exists in postgres:\/\/127\.0\.0\.1:\d+\/load_test_\w+; pass --replace to drop and reload it$/);
    await expect(loadData({ from: SAMPLE, to: target, tables: ['bpc_reporting'], replace: true })).resolves.toMatchObject({ rows: expected.bpc_reporting![0] });
  });

  it('never shows the password of the target URL', async () => {
    const url = new URL(adminUrl);
    url.password = 's3cr3t-pw';
    url.pathname = '/no_such_database';
    const lines: string[] = [];
    const error = await loadData({ from: SAMPLE, to: url.toString(), onProgress: (line) => lines.push(line) }).catch((caught: Error) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('no_such_database');
    expect([(error as Error).message, ...lines].join('\n')).not.toContain('s3cr3t');
  });

  it("gives the tests' reader role SELECT only", async () => {
    await withPostgres(readerUrl, async (client) => {
      expect(Number((await client.query('SELECT COUNT(*) AS n FROM fi_reporting')).rows[0].n)).toBe(expected.fi_reporting![0]);
      const insert = await client.query("INSERT INTO companies VALUES ('9999', 'x', 'DE', 'EUR')").catch((caught: { code?: string }) => caught);
      expect(['25006', '42501']).toContain((insert as { code?: string }).code);
      await client.query('BEGIN READ WRITE');
      const forced = await client.query("INSERT INTO companies VALUES ('9999', 'x', 'DE', 'EUR')").catch((caught: { code?: string }) => caught);
      expect((forced as { code?: string }).code).toBe('42501'); // no INSERT privilege even outside a read-only transaction
      await client.query('ROLLBACK');
    });
  });
});

describe('the data:load command line', () => {
  it('parses --from, --to, --tables and --replace, and runs end to end', () => {
    expect(parseCommandLine(['--from', 'a.db', '--to', 'duckdb:x', '--tables', 'a, b', '--replace'])).toEqual({ ok: true, input: { from: 'a.db', to: 'duckdb:x', tables: ['a', 'b'], replace: true } });
    expect(parseCommandLine(['--from', 'a.db'])).toMatchObject({ ok: false, message: expect.stringContaining('usage: npm run data:load') });
    const file = path.join(directory, 'cli.duckdb');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/dataLoad.ts', '--from', 'data/sample.db', '--to', `duckdb:${file}`, '--tables', 'companies'], { cwd: projectRoot, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Loaded 3 rows into duckdb:.* rows\/s/);
    const unknown = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/dataLoad.ts', '--from', 'data/sample.db', '--to', 'mysql://h/db'], { cwd: projectRoot, encoding: 'utf8' });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('Unknown target mysql://h/db: use one of duckdb:FILE');
  });
});
