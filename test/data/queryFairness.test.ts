/**
 * The query pool is fair between API keys, with real worker processes: a key's flood waits in
 * its own queue while another key's query is served next, a key over its share of the line is
 * refused `busy` alone, a key cannot take the worker kept for others, and abandoned queries of
 * one key leave the line to the others. Queries without a key keep the first-come order.
 * Assertions are on order and outcomes, never on elapsed time.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QueryPool, type QueryPoolOptions } from '../../src/data/queryPool.ts';
import type { SelectQuery } from '../../src/data/query.ts';
import { forCaller } from '../../src/data/dataAccess.ts';
import { restrictRows } from '../../src/data/restrictedData.ts';
import { ToolError } from '../../src/errors/index.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const KEY_A = 'identity-a';
const KEY_B = 'identity-b';
/** A small grouped query: quick, but a real round trip through a worker. */
const query: SelectQuery = { kind: 'select', table: 'ledger', columns: [{ name: 'company', column: 'company' }], aggregates: [{ name: 'rows', function: 'count' }], limit: 10 };
/** `ok` for an answer, the error code for a refusal. */
const outcomeOf = (answer: unknown) => (ToolError.isInstance(answer) ? answer.code : 'ok');

let databasePath: string;
const pools: QueryPool[] = [];
async function startPool(options: Partial<QueryPoolOptions>): Promise<QueryPool> {
  const pool = await QueryPool.start({ databasePath, workers: 1, timeoutMs: 60_000, spare: false, logger: silentLogger(), ...options });
  pools.push(pool);
  return pool;
}

/** Runs `count` queries for `caller` (labelled `label1`, `label2`, …), noting each answer's label in `finished` as it comes. */
function submit(pool: QueryPool, caller: string | undefined, label: string, count: number, finished: string[], signal?: AbortSignal): Promise<unknown>[] {
  return Array.from({ length: count }, (_unused, index) =>
    pool.run(query, signal, caller).then(
      (result) => (finished.push(`${label}${index + 1}`), result),
      (error: unknown) => error,
    ),
  );
}

beforeAll(() => {
  databasePath = path.join(temporaryDirectory('pool-fairness-'), 'data.db');
  const database = new Database(databasePath);
  database.exec('CREATE TABLE ledger (company TEXT, amount REAL)');
  database.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO ledger SELECT 'C' || (i % 7), i FROM n");
  database.close();
});
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

describe('QueryPool fairness between keys', () => {
  it("serves another key's query before the rest of one key's flood, and refuses only the flooding key past its share", async () => {
    // One worker, 8 places in line: each key may have 4 waiting.
    const pool = await startPool({ queueMax: 8 });
    const pids = pool.workerPids();
    const finished: string[] = [];
    // A's first query runs at once, four wait, the sixth is over A's share.
    const flood = submit(pool, KEY_A, 'a', 6, finished);
    const other = submit(pool, KEY_B, 'b', 1, finished);
    const refused = await flood[5];
    expect(outcomeOf(refused)).toBe('busy');
    expect((refused as ToolError).details).toMatchObject({ reason: 'key_share', retry_after_seconds: expect.any(Number) });
    expect((refused as ToolError).message).toMatch(/this API key already has 4 queries waiting/);
    expect((refused as ToolError).hint).toMatch(/^Retry in \d+ s; nothing was run/);
    const answers = await Promise.all([...flood.slice(0, 5), ...other]);
    expect(answers.map(outcomeOf)).toEqual(new Array(6).fill('ok'));
    // B came after all of A's queries, yet ran right after the one A already had running.
    expect(finished).toEqual(['a1', 'b1', 'a2', 'a3', 'a4', 'a5']);
    expect(pool.counters().rejected).toMatchObject({ key_share: 1, queue_full: 0, queue_wait: 0 });
    expect(pool.workerPids()).toEqual(pids);
    expect(pool.stats().restarts).toBe(0);
  }, 60_000);

  it('takes turns between keys that both wait: each gets every other worker turn', async () => {
    const pool = await startPool({ queueMax: 32 });
    const finished: string[] = [];
    const answers = [...submit(pool, KEY_A, 'a', 4, finished), ...submit(pool, KEY_B, 'b', 3, finished)];
    await Promise.all(answers);
    expect(finished).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3', 'a4']);
  }, 60_000);

  it('keeps a worker free for another active key: one key runs on all workers but one, the other key runs at once', async () => {
    const pool = await startPool({ workers: 2 });
    const finished: string[] = [];
    // A key alone uses every worker.
    const alone = submit(pool, KEY_A, 'alone', 4, finished);
    expect(pool.stats()).toMatchObject({ busy: 2, queued: 2 });
    await Promise.all(alone);
    // Once another key has been active, A runs on one worker; the other is kept for that key's queries.
    await pool.run(query, undefined, KEY_B);
    const flood = submit(pool, KEY_A, 'a', 4, finished);
    expect(pool.stats()).toMatchObject({ busy: 1, queued: 3 });
    const other = submit(pool, KEY_B, 'b', 1, finished);
    expect(pool.stats()).toMatchObject({ busy: 2, queued: 3 });
    await Promise.all([...flood, ...other]);
    expect(finished).toHaveLength(9);
    expect(pool.counters().rejected).toMatchObject({ key_share: 0, queue_full: 0 });
  }, 60_000);

  it('keeps the first-come order and every worker for queries without a key, as before', async () => {
    const pool = await startPool({ workers: 2, queueMax: 2 });
    const finished: string[] = [];
    const answers = submit(pool, undefined, 'q', 5, finished);
    // Both workers run, both places in line are taken, the fifth is refused for a full line.
    expect(pool.stats()).toMatchObject({ busy: 2, queued: 2 });
    const settled = await Promise.all(answers);
    expect(settled.map((answer) => (ToolError.isInstance(answer) ? answer.details : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok', expect.objectContaining({ reason: 'queue_full' })]);
    expect(pool.counters().rejected).toMatchObject({ key_share: 0, queue_full: 1 });
  }, 60_000);

  it("lets one key's abandoned queries leave the line: the other key is served next, no worker killed", async () => {
    // The running one is let finish (no kill) however busy this machine is.
    const pool = await startPool({ queueMax: 32, cancelGraceMs: 30_000 });
    const pids = pool.workerPids();
    const finished: string[] = [];
    const controller = new AbortController();
    const abandoned = submit(pool, KEY_A, 'a', 6, finished, controller.signal);
    const other = submit(pool, KEY_B, 'b', 2, finished);
    controller.abort();
    expect(pool.stats().queued).toBe(2);
    const outcomes = await Promise.all(abandoned);
    // All of A's were answered `cancelled` (the running one too); none of A's waiting ones ran.
    expect(outcomes.map(outcomeOf)).toEqual(new Array(6).fill('timeout'));
    expect(await Promise.all(other)).toMatchObject([{ rows: expect.any(Array) }, { rows: expect.any(Array) }]);
    expect(finished).toEqual(['b1', 'b2']);
    expect(pool.counters().cancelled.queued).toBe(5);
    expect(pool.workerPids()).toEqual(pids);
  }, 60_000);

  it("counts a place emptied by killing a key's abandoned query as that key's until it is refilled", async () => {
    const pool = await startPool({ workers: 2, cancelGraceMs: 0 });
    const finished: string[] = [];
    await pool.run(query, undefined, KEY_B);
    const controller = new AbortController();
    const abandoned = pool.run(query, controller.signal, KEY_A).catch((error: unknown) => error);
    const waiting = submit(pool, KEY_A, 'a', 2, finished);
    // Killed at once (no grace period); its place stays empty until a new process has started.
    controller.abort();
    expect(outcomeOf(await abandoned)).toBe('timeout');
    expect(pool.counters().cancelled.killed).toBe(1);
    // A's waiting queries do not move on to the worker kept for other keys…
    expect(pool.stats()).toMatchObject({ ready: 1, busy: 0, queued: 2 });
    // …which B's query gets at once.
    const other = submit(pool, KEY_B, 'b', 1, finished);
    expect(pool.stats()).toMatchObject({ busy: 1, queued: 2 });
    expect((await Promise.all([...waiting, ...other])).map(outcomeOf)).toEqual(['ok', 'ok', 'ok']);
  }, 60_000);

  it("gives each key's queries its identity through the scoped and unscoped data views", async () => {
    const pool = await startPool({ queueMax: 4 });
    // A key's data as a tool sees it: restricted to its rows (a scoped key) and carrying its identity.
    const scopedA = forCaller(restrictRows(pool, [{ connection: 'default', table: 'ledger', where: [{ column: 'company', kind: 'in', values: ['C1'] }] }]), KEY_A);
    const unscopedB = forCaller(pool, KEY_B);
    const answers = Array.from({ length: 4 }, () => scopedA.run(query).catch((error: unknown) => error));
    // A's share of a line of 4 is 2 waiting: its fourth query is refused, B's is not.
    const b = await unscopedB.run(query);
    expect(b.rows).toHaveLength(7);
    const settled = await Promise.all(answers);
    expect(settled.map(outcomeOf)).toEqual(['ok', 'ok', 'ok', 'busy']);
    expect((settled[0] as { rows: unknown[] }).rows).toEqual([{ company: 'C1', rows: expect.any(Number) }]);
  }, 60_000);
});
