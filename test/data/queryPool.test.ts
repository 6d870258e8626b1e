import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { QueryPool } from '../../src/data/queryPool.ts';
import { valueExists } from '../../src/data/lookups.ts';
import type { MergeQuery, SelectQuery } from '../../src/data/query.ts';
import { ToolError } from '../../src/errors/index.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { collectMerged } from '../support/testReducers.ts';

/** Two tables of `rows` rows with distinct keys, built inside SQLite (fast). */
function bigDatabase(rows: number): string {
  const file = path.join(temporaryDirectory(), 'big.db');
  const database = new Database(file);
  for (const table of ['left_table', 'right_table']) {
    database.exec(`CREATE TABLE ${table} (key TEXT, k2 TEXT, amount REAL, cur TEXT)`);
    database.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows}) INSERT INTO ${table} SELECT printf('K%09d', i), NULL, i % 1000, 'EUR' FROM n`);
  }
  database.close();
  return file;
}

/** A merge of both tables over every key: long enough to time out or cancel. */
const plan: MergeQuery = {
  kind: 'merge',
  keyNames: ['key'],
  a: { table: 'left_table', measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'key' }], where: [] },
  b: { table: 'right_table', measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'key' }], where: [] },
  partitionKey: undefined,
  decimals: 2,
  fold: collectMerged.with({ keep: 5 }),
};
const currencies: SelectQuery = { kind: 'select', table: 'left_table', columns: [{ name: 'currency', column: 'cur' }], aggregates: [{ name: 'rows', function: 'count' }], limit: 5 };
const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const workerPids = (pool: QueryPool) => pool.workerPids().map((pid) => pid ?? -1);

describe('QueryPool', () => {
  let databasePath: string;
  beforeAll(() => {
    databasePath = bigDatabase(400_000);
  });

  it('runs queries and their reducers in worker processes and returns their results', async () => {
    const pool = await QueryPool.start({ databasePath, workers: 2, timeoutMs: 60_000, logger: silentLogger() });
    try {
      expect(workerPids(pool).every((pid) => pid !== process.pid && isAlive(pid))).toBe(true);
      const outcome = await pool.run(plan);
      expect(outcome.partitions).toEqual([{ partition: null, keys: 400_000, a: outcome.partitions[0]!.a, b: outcome.partitions[0]!.a }]);
      // Both tables are equal: no key reaches the reducer.
      expect(outcome.folded).toEqual({ rows: 0, first: [] });
      expect((await pool.run(currencies)).rows).toEqual([{ currency: 'EUR', rows: 400_000 }]);
    } finally {
      await pool.close();
    }
  });

  it('kills a query past its timeout, answers a timeout error with a hint, and keeps serving', async () => {
    const pool = await QueryPool.start({ databasePath, workers: 1, timeoutMs: 30, logger: silentLogger() });
    try {
      const [pid] = workerPids(pool);
      const error = await pool.run(plan).catch((e: unknown) => e);
      expect(ToolError.isInstance(error) && error.code).toBe('timeout');
      expect((error as ToolError).hint).toMatch(/Narrow the question/);
      // The process that ran the query is gone (its CPU is free), and a new one serves the next query.
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(isAlive(pid!)).toBe(false);
      expect(workerPids(pool)[0]).not.toBe(pid);
      expect(await valueExists(pool, { table: 'left_table' }, 'key', 'K000000001')).toBe(true);
      expect(pool.stats()).toMatchObject({ workers: 1, timeouts: 1, restarts: 1, busy: 0, queued: 0 });
    } finally {
      await pool.close();
    }
  });

  it('answers other queries while one long query runs', async () => {
    const pool = await QueryPool.start({ databasePath, workers: 2, timeoutMs: 60_000, logger: silentLogger() });
    try {
      const order: string[] = [];
      const long = pool.run(plan).then(() => order.push('long'));
      const short = valueExists(pool, { table: 'left_table' }, 'key', 'K000000002').then(() => order.push('short'));
      await Promise.all([long, short]);
      expect(order).toEqual(['short', 'long']);
    } finally {
      await pool.close();
    }
  });

  it('stops the work when the caller cancels, and recovers from a crashed worker', async () => {
    const pool = await QueryPool.start({ databasePath, workers: 1, timeoutMs: 60_000, cancelGraceMs: 0, logger: silentLogger() });
    try {
      const controller = new AbortController();
      const [pid] = workerPids(pool);
      const cancelled = pool.run(plan, controller.signal).catch((e: unknown) => e);
      setTimeout(() => controller.abort(), 20);
      expect(((await cancelled) as ToolError).code).toBe('timeout');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(isAlive(pid!)).toBe(false);

      // The replacement (the spare, or a new process) takes the place before the next query.
      while (pool.stats().ready < 1) await new Promise((resolve) => setTimeout(resolve, 10));
      const running = pool.run(plan).catch((e: unknown) => e);
      await new Promise((resolve) => setTimeout(resolve, 20));
      process.kill(workerPids(pool)[0]!, 'SIGKILL');
      const crashed = (await running) as ToolError;
      expect(crashed.code).toBe('query_failed');
      expect(crashed.message).toMatch(/stopped unexpectedly/);
      expect(await valueExists(pool, { table: 'left_table' }, 'key', 'nope')).toBe(false);
    } finally {
      await pool.close();
    }
  });
});
