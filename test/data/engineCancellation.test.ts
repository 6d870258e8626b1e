/**
 * Timeouts and cancellation are real on DuckDB and PostgreSQL too: a cancelled question stops
 * its statement where it runs (DuckDB's interrupt, PostgreSQL's server-side cancel) and keeps the
 * worker process; a query past QUERY_TIMEOUT_MS answers `timeout` and leaves nothing running on
 * the server.
 */
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { withPostgres } from '../support/postgresClient.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ConnectionSpec } from '../../src/data/connections.ts';
import type { MergeQuery } from '../../src/data/query.ts';
import { QueryPool } from '../../src/data/queryPool.ts';
import { ToolError } from '../../src/errors/index.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { collectMerged } from '../support/testReducers.ts';
import { until } from '../support/until.ts';

const ROWS = 2_000_000;
const database = `cancel_${Math.random().toString(36).slice(2, 8)}`;

/** A merge of two big tables over every key: seconds of work on either engine. */
const longMerge = (connection: string): MergeQuery => ({
  kind: 'merge',
  keyNames: ['key'],
  a: { connection, table: 'big_a', measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'key' }], where: [] },
  b: { connection, table: 'big_b', measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'key' }], where: [] },
  partitionKey: undefined,
  decimals: 2,
  fold: collectMerged.with({ keep: 1 }),
});

describe('cancelling and timing out on DuckDB and PostgreSQL', () => {
  let specs: ConnectionSpec[];
  let postgresUrl: string;
  const running = () => withPostgres(postgresUrl, async (client) => Number((await client.query("SELECT COUNT(*) AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%big_a%' AND pid <> pg_backend_pid()")).rows[0].n));

  beforeAll(async () => {
    const adminUrl = inject('postgresAdminUrl');
    await withPostgres(adminUrl, (client) => client.query(`CREATE DATABASE ${database}`));
    postgresUrl = adminUrl.replace(/\/[^/?]+(\?|$)/, `/${database}$1`);
    await withPostgres(postgresUrl, async (client) => {
      for (const table of ['big_a', 'big_b']) await client.query(`CREATE TABLE ${table} AS SELECT lpad(i::text, 12, '0') AS key, (i % 1000)::float8 AS amount FROM generate_series(1, ${ROWS}) AS i`);
    });
    const duckdbFile = path.join(temporaryDirectory(), 'big.duckdb');
    const instance = await DuckDBInstance.create(duckdbFile);
    const connection = await instance.connect();
    for (const table of ['big_a', 'big_b']) await connection.run(`CREATE TABLE ${table} AS SELECT lpad(i::VARCHAR, 12, '0') AS key, (i % 1000)::DOUBLE AS amount FROM range(${ROWS * 5}) t(i)`);
    connection.closeSync();
    instance.closeSync();
    specs = [
      { name: 'default', url: `sqlite:${path.resolve('data/sample.db')}` },
      { name: 'warehouse', url: postgresUrl },
      { name: 'lake', url: `duckdb:${duckdbFile}` },
    ];
  }, 120_000);
  afterAll(() => withPostgres(inject('postgresAdminUrl'), (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)));

  it.each(['warehouse', 'lake'])('stops a cancelled statement on %s where it runs and keeps the worker', async (connection) => {
    const pool = await QueryPool.start({ databasePath: path.resolve('data/sample.db'), connections: specs, workers: 1, timeoutMs: 60_000, cancelGraceMs: 30_000, logger: silentLogger() });
    try {
      const [pid] = pool.workerPids();
      const controller = new AbortController();
      const cancelled = pool.run(longMerge(connection), controller.signal).catch((error: unknown) => error);
      setTimeout(() => controller.abort(), 400);
      expect(ToolError.isInstance(await cancelled) && ((await cancelled) as ToolError).code).toBe('timeout');
      // The engine stopped the statement: the worker answered within the grace (30 s, long so a
      // loaded machine cannot hide a kill) and was not killed for it.
      await until(() => pool.stats().busy === 0, 20_000, 'the cancelled query to end');
      expect(pool.workerPids()[0]).toBe(pid);
      expect(pool.counters().cancelled.killed).toBe(0);
      // The server stopped it too (its parallel workers end a moment after the leader).
      if (connection === 'warehouse') await until(async () => (await running()) === 0, 2_000, 'the statement to stop on the server');
    } finally {
      await pool.close();
    }
  }, 30_000);

  it('answers timeout on PostgreSQL and leaves no statement running on the server', async () => {
    const pool = await QueryPool.start({ databasePath: path.resolve('data/sample.db'), connections: specs, workers: 1, timeoutMs: 500, logger: silentLogger() });
    try {
      const error = await pool.run(longMerge('warehouse')).catch((e: unknown) => e);
      expect(ToolError.isInstance(error) && error.code).toBe('timeout');
      // statement_timeout (the pool's timeout) stops it on the server even though the worker was killed.
      await until(async () => (await running()) === 0, 5_000, 'the statement to stop on the server');
    } finally {
      await pool.close();
    }
  }, 30_000);
});
