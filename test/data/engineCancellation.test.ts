/**
 * Timeouts and cancellation are real on DuckDB and PostgreSQL too: a cancelled question stops
 * its statement where it runs (DuckDB's interrupt, PostgreSQL's server-side cancel) and keeps the
 * worker process; a query past QUERY_TIMEOUT_MS answers `timeout` and leaves nothing running on
 * the server. The statements would run for many minutes if nothing stopped them (views that
 * sleep per row on PostgreSQL, 10^10 rows on DuckDB), so each outcome is asserted
 * by what happened, with waits that only catch a hang.
 */
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { withPostgres } from '../support/postgresClient.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresUrls } from '../support/engineServers.ts';
import type { ConnectionSpec } from '../../src/data/connections.ts';
import type { MergeQuery } from '../../src/data/query.ts';
import { valueExists } from '../../src/data/lookups.ts';
import { QueryPool } from '../../src/data/queryPool.ts';
import { ToolError } from '../../src/errors/index.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { collectMerged } from '../support/testReducers.ts';
import { until } from '../support/until.ts';

const database = `cancel_${Math.random().toString(36).slice(2, 8)}`;

/** A merge of two endless views over every key: minutes of work on either engine. */
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
    const { adminUrl } = await postgresUrls();
    await withPostgres(adminUrl, (client) => client.query(`CREATE DATABASE ${database}`));
    postgresUrl = adminUrl.replace(/\/[^/?]+(\?|$)/, `/${database}$1`);
    await withPostgres(postgresUrl, async (client) => {
      // 10 ms per row, 100,000 rows: 17 minutes per view (a volatile function runs in the leader only).
      await client.query(`CREATE FUNCTION slow_amount(i bigint) RETURNS float8 LANGUAGE plpgsql VOLATILE AS $$ BEGIN PERFORM pg_sleep(0.01); RETURN i % 1000; END $$`);
      for (const table of ['big_a', 'big_b']) await client.query(`CREATE VIEW ${table} AS SELECT lpad(i::text, 12, '0') AS key, slow_amount(i) AS amount FROM generate_series(1, 100000) AS i`);
      await client.query(`CREATE TABLE small AS SELECT 'K1' AS key`);
    });
    const duckdbFile = path.join(temporaryDirectory(), 'big.duckdb');
    const instance = await DuckDBInstance.create(duckdbFile);
    const connection = await instance.connect();
    // 10^10 rows per view, over 100,000 keys: little memory, many minutes of scanning (and no more,
    // should a failed test leave the worker behind).
    for (const table of ['big_a', 'big_b']) await connection.run(`CREATE VIEW ${table} AS SELECT lpad((i % 100000)::VARCHAR, 12, '0') AS key, (i % 1000)::DOUBLE AS amount FROM range(10000000000) t(i)`);
    await connection.run(`CREATE TABLE small AS SELECT 'K1' AS key`);
    connection.closeSync();
    instance.closeSync();
    specs = [
      { name: 'default', url: `sqlite:${path.resolve('data/sample.db')}` },
      { name: 'warehouse', url: postgresUrl },
      { name: 'lake', url: `duckdb:${duckdbFile}` },
    ];
  }, 120_000);
  afterAll(async () => withPostgres((await postgresUrls()).adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)));

  it.each(['warehouse', 'lake'])('stops a cancelled statement on %s where it runs and keeps the worker', async (connection) => {
    const pool = await QueryPool.start({ databasePath: path.resolve('data/sample.db'), connections: specs, workers: 1, timeoutMs: 600_000, cancelGraceMs: 600_000, logger: silentLogger() });
    try {
      const [pid] = pool.workerPids();
      // The worker has the connection open first (a cancel that arrives while DuckDB is still
      // opening it is lost: the statement would then run its course).
      expect(await valueExists(pool, { connection, table: 'small' }, 'key', 'K1')).toBe(true);
      const controller = new AbortController();
      const cancelled = pool.run(longMerge(connection), controller.signal).catch((error: unknown) => error);
      // Cancelled while it runs, not while it waits for the worker.
      await until(() => pool.stats().busy === 1, 25_000, 'the query to reach the worker');
      if (connection === 'warehouse') await until(async () => (await running()) >= 1, 25_000, 'the statement to run on the server');
      else await new Promise((resolve) => setTimeout(resolve, 400));
      controller.abort();
      expect(pool.counters().cancelled.queued).toBe(0);
      expect(ToolError.isInstance(await cancelled) && ((await cancelled) as ToolError).code).toBe('timeout');
      // The engine stopped the statement (it would have run for minutes): the worker answered
      // within the grace period and was not killed for it.
      await until(() => pool.stats().busy === 0, 25_000, 'the cancelled query to end');
      expect(pool.workerPids()[0]).toBe(pid);
      expect(pool.counters().cancelled.killed).toBe(0);
      // The server stopped it too: nothing of it is left running there.
      if (connection === 'warehouse') await until(async () => (await running()) === 0, 25_000, 'the statement to stop on the server');
    } finally {
      await pool.close();
    }
  }, 90_000);

  it('answers timeout on PostgreSQL and leaves no statement running on the server', async () => {
    const pool = await QueryPool.start({ databasePath: path.resolve('data/sample.db'), connections: specs, workers: 1, timeoutMs: 500, logger: silentLogger() });
    try {
      const error = await pool.run(longMerge('warehouse')).catch((e: unknown) => e);
      expect(ToolError.isInstance(error) && error.code).toBe('timeout');
      // statement_timeout (the pool's timeout) stops it on the server even though the worker was killed.
      await until(async () => (await running()) === 0, 25_000, 'the statement to stop on the server');
    } finally {
      await pool.close();
    }
  }, 90_000);
});
