/**
 * The query pool under load and faults, with real worker processes: a bounded queue and wait
 * (`busy`), cancellation that costs no process when it need not, paced restarts, and a data
 * database that disappears, comes back or is replaced while the pool runs.
 */
import { copyFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QueryPool, type QueryPoolOptions } from '../../src/data/queryPool.ts';
import { valueExists } from '../../src/data/lookups.ts';
import type { MergeQuery } from '../../src/data/query.ts';
import { ToolError } from '../../src/errors/index.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { collectMerged } from '../support/testReducers.ts';
import { until } from '../support/until.ts';

/** `long_*`: a comparison of 1.5 M keys (over a second); `short_*`: 60 k keys (tens of ms). */
function database(): string {
  const file = path.join(temporaryDirectory('pool-faults-'), 'data.db');
  const db = new Database(file);
  for (const [prefix, rows] of [['long', 1_500_000], ['short', 60_000]] as const) {
    for (const side of ['a', 'b']) {
      db.exec(`CREATE TABLE ${prefix}_${side} (key TEXT, amount REAL)`);
      db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows}) INSERT INTO ${prefix}_${side} SELECT printf('K%09d', i), i % 1000 FROM n`);
    }
  }
  db.close();
  return file;
}

const planOf = (prefix: 'long' | 'short'): MergeQuery => ({
  kind: 'merge',
  keyNames: ['key'],
  a: { table: `${prefix}_a`, measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'key' }], where: [] },
  b: { table: `${prefix}_b`, measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'key' }], where: [] },
  partitionKey: undefined,
  decimals: 2,
  fold: collectMerged.with({ keep: 5 }),
});
const trivial = (pool: QueryPool) => valueExists(pool, { table: 'short_a' }, 'key', 'K000000001');
const codeOf = (error: unknown) => (ToolError.isInstance(error) ? error.code : String(error));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let source: string;
const pools: QueryPool[] = [];
async function startPool(options: Partial<QueryPoolOptions> & { databasePath?: string } = {}): Promise<QueryPool> {
  const pool = await QueryPool.start({ databasePath: source, workers: 1, timeoutMs: 60_000, logger: silentLogger(), ...options });
  pools.push(pool);
  // Tests about the spare wait for it: it starts behind the workers.
  if (options.spare !== false) await until(() => pool.stats().spare, 10_000, 'the spare worker');
  return pool;
}

beforeAll(() => {
  source = database();
}, 60_000);
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

describe('QueryPool queue', () => {
  it('refuses a query at once with busy when the queue is full, and one that waited too long', async () => {
    const pool = await startPool({ queueMax: 2, queueWaitMs: 300 });
    const running = pool.run(planOf('long')).catch((e: unknown) => e);
    const waiting = [trivial(pool).catch((e: unknown) => e), trivial(pool).catch((e: unknown) => e)];
    // Refused for a full queue (queue_full), not after waiting its turn (queue_wait).
    const refused = await trivial(pool).catch((e: unknown) => e);
    expect(codeOf(refused)).toBe('busy');
    expect((refused as ToolError).details).toMatchObject({ reason: 'queue_full', retry_after_seconds: 1 });
    expect((refused as ToolError).hint).toMatch(/^Retry in 1 s/);
    // The two that waited are given up after QUERY_QUEUE_WAIT_MS, long before the comparison ends.
    const given = await Promise.all(waiting);
    expect(given.map(codeOf)).toEqual(['busy', 'busy']);
    expect((given[0] as ToolError).details).toMatchObject({ reason: 'queue_wait' });
    expect(pool.counters().rejected).toMatchObject({ queue_full: 1, queue_wait: 2 });
    expect(pool.stats()).toMatchObject({ queued: 0, busy: 1 });
    expect(await running).toMatchObject({ partitions: [{ keys: 1_500_000 }] });
  }, 30_000);
});

describe('QueryPool cancellation', () => {
  it('removes a cancelled query that still waits without touching a worker', async () => {
    const pool = await startPool({ cancelGraceMs: 0 });
    const pids = pool.workerPids();
    const running = pool.run(planOf('long'));
    const controller = new AbortController();
    const queued = pool.run(planOf('long'), controller.signal).catch((e: unknown) => e);
    controller.abort();
    expect(codeOf(await queued)).toBe('timeout');
    expect(pool.stats()).toMatchObject({ queued: 0, busy: 1, restarts: 0 });
    expect(pool.counters().cancelled).toEqual({ queued: 1, finished: 0, killed: 0 });
    await running;
    expect(pool.workerPids()).toEqual(pids);
  }, 30_000);

  it('lets a cancelled query that ends within the grace period finish instead of killing its process', async () => {
    const pool = await startPool({ cancelGraceMs: 3_000 });
    const [pid] = pool.workerPids();
    const controller = new AbortController();
    const cancelled = pool.run(planOf('short'), controller.signal).catch((e: unknown) => e);
    await sleep(5);
    controller.abort();
    expect(codeOf(await cancelled)).toBe('timeout');
    await until(() => pool.counters().cancelled.finished === 1, 20_000, 'the abandoned query to finish');
    expect(pool.workerPids()).toEqual([pid]);
    expect(pool.stats().restarts).toBe(0);
    expect(await trivial(pool)).toBe(true);
  }, 30_000);

  it('kills a long cancelled query after the grace period; the spare serves the next query', async () => {
    const pool = await startPool({ cancelGraceMs: 100 });
    const [pid] = pool.workerPids();
    const controller = new AbortController();
    const cancelled = pool.run(planOf('long'), controller.signal).catch((e: unknown) => e);
    await sleep(50);
    controller.abort();
    expect(codeOf(await cancelled)).toBe('timeout');
    // Right behind the cancelled query: answered once the grace period ends, by the spare.
    // (How soon is `npm run bench:latency`'s figure.)
    expect(await trivial(pool)).toBe(true);
    expect(pool.workerPids()[0]).not.toBe(pid);
    expect(pool.counters().cancelled.killed).toBe(1);
    await until(() => pool.stats().spare, 20_000, 'a new spare');
    expect(pool.stats().restarts).toBe(1);
  }, 30_000);

  it('paces restarts during a storm of cancelled long queries: the burst, then no more until the interval allows', async () => {
    // The first three starts (two workers and the spare) take three of the burst's five; an interval
    // longer than the test makes every restart past the other two wait for it.
    const pool = await startPool({ workers: 2, cancelGraceMs: 50, respawn: { burst: 5, intervalMs: 600_000 } });
    let cancelledQueries = 0;
    const client = async () => {
      for (let query = 0; query < 10; query += 1) {
        const controller = new AbortController();
        const query = pool.run(planOf('long'), controller.signal).catch(() => undefined);
        await sleep(20);
        controller.abort();
        await query;
        cancelledQueries += 1;
      }
    };
    await Promise.all([client(), client(), client(), client()]);
    // More processes were killed than the burst may replace, yet no more than the burst started:
    // no restart loop. (Workers coming back after a kill: the test above.)
    expect(cancelledQueries).toBe(40);
    expect(pool.counters().cancelled.killed).toBeGreaterThan(2);
    expect(pool.stats().restarts).toBeLessThanOrEqual(2);
  }, 60_000);
});

describe('QueryPool and a data database that goes away', () => {
  it('reports down, refuses without a restart loop, and recovers when the file is back', async () => {
    const databasePath = path.join(temporaryDirectory('pool-vanish-'), 'data.db');
    copyFileSync(source, databasePath);
    const pool = await startPool({ databasePath, workers: 2, monitorIntervalMs: 100 });
    rmSync(databasePath);
    await until(() => pool.componentHealth().data.status === 'down', 20_000, 'down');
    expect(pool.componentHealth().data.reason).toBe('the data database data.db (DATA_DB) is missing');
    // Refused as unavailable: not run into a worker that tries the missing file and fails or times out.
    const refused = await trivial(pool).catch((e: unknown) => e);
    expect(codeOf(refused)).toBe('data_unavailable');
    expect((refused as ToolError).details.retry_after_seconds).toBeGreaterThanOrEqual(1);
    // A worker that dies meanwhile is not restarted in a loop: nothing starts while the file is missing.
    process.kill(pool.workerPids()[0]!, 'SIGKILL');
    await sleep(1_500);
    expect(pool.stats().restarts).toBeLessThanOrEqual(1);

    copyFileSync(source, databasePath); // another file (inode) at the same path
    await until(() => pool.componentHealth().data.status === 'ok', 10_000, 'ok again');
    expect(await trivial(pool)).toBe(true);
    await until(() => pool.componentHealth().workers.status === 'ok', 10_000, 'every worker back');
  }, 30_000);

  it('backs off while the file cannot be opened, and uses the very file again when it is moved back', async () => {
    const databasePath = path.join(temporaryDirectory('pool-broken-'), 'data.db');
    copyFileSync(source, databasePath);
    const pool = await startPool({ databasePath, workers: 1, monitorIntervalMs: 100, cancelGraceMs: 0 });
    renameSync(databasePath, `${databasePath}.moved`);
    writeFileSync(databasePath, 'not a database'.repeat(100));
    // A worker killed now is replaced by one that cannot open the file: down, with backoff.
    const controller = new AbortController();
    const query = pool.run(planOf('long'), controller.signal).catch(() => undefined);
    await sleep(20);
    controller.abort();
    await query;
    await until(() => pool.componentHealth().data.status === 'down', 20_000, 'down');
    expect(pool.componentHealth().data.reason).toMatch(/cannot be opened as a SQLite database/);
    const restarts = pool.stats().restarts;
    await sleep(2_000);
    expect(pool.stats().restarts - restarts).toBeLessThanOrEqual(3);

    renameSync(`${databasePath}.moved`, databasePath);
    await until(() => pool.componentHealth().data.status === 'ok', 10_000, 'ok again');
    expect(await trivial(pool)).toBe(true);
  }, 30_000);
});
