/**
 * A long statement yields the CPU to short ones: the worker running it is lowered in priority
 * while it runs and given its priority back when it ends; short queries never touch it. Where
 * the service may not raise a priority again (Linux without CAP_SYS_NICE, as in a default
 * Docker container) nothing is lowered at all. This is what keeps
 * another key's trivial query fast while one key's heavy comparisons run on a small machine
 * (measured by `npm run load -- --scenario fairness`, not here: no assertion on elapsed time).
 */
import { getPriority } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { QueryPool } from '../../src/data/queryPool.ts';
import type { SelectQuery } from '../../src/data/query.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { workerLaunch } from '../../src/data/workerBuild.ts';
import { mayRaisePriority, WorkerProcess } from '../../src/data/workerProcess.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

/** One group per row of a million-row table: hundreds of milliseconds of CPU on any machine. */
const heavy: SelectQuery = { kind: 'select', table: 'ledger', columns: [{ name: 'id', column: 'id' }], aggregates: [{ name: 'total', function: 'sum', column: 'amount' }], orderBy: [{ name: 'total', direction: 'desc' }], limit: 1 };
const light: SelectQuery = { kind: 'select', table: 'ledger', columns: [{ name: 'id', column: 'id' }], limit: 1 };
/** Whether this process may raise a priority again (CAP_SYS_NICE); without it nothing is lowered. */
const mayRaise = mayRaisePriority;
/** The priority workers start from: this process's (they inherit it). */
const normal = getPriority();
// The lowest priority there is: a long statement only runs when nothing else wants the core.
const lowered = 19;

let databasePath: string;
let pool: QueryPool | undefined;

beforeAll(() => {
  databasePath = path.join(temporaryDirectory('pool-priority-'), 'data.db');
  const database = new Database(databasePath);
  database.exec('CREATE TABLE ledger (id INTEGER, amount REAL)');
  database.exec('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000) INSERT INTO ledger SELECT i, i % 977 FROM n');
  database.close();
}, 60_000);
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

/** Samples the worker's priority until `done` settles; returns every value seen. */
async function prioritiesWhile(pid: number, done: Promise<unknown>): Promise<Set<number>> {
  const seen = new Set<number>();
  let settled = false;
  void done.finally(() => (settled = true));
  while (!settled) {
    try {
      seen.add(getPriority(pid));
    } catch {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return seen;
}

describe('QueryPool CPU priority', () => {
  it('lowers the worker of a long statement while it runs, and gives its priority back after', async () => {
    pool = await QueryPool.start({ databasePath, workers: 1, timeoutMs: 60_000, spare: false, logger: silentLogger(), yieldAfterMs: 10 });
    const [pid] = pool.workerPids();
    expect(getPriority(pid!)).toBe(normal);
    const answer = pool.run(heavy);
    const seen = await prioritiesWhile(pid!, answer);
    expect(await answer).toMatchObject({ rows: [expect.objectContaining({ total: expect.any(Number) })] });
    // Lowered while it ran; where priorities cannot be raised again, never lowered (it would stay below its peers).
    if (mayRaise) expect(seen).toContain(lowered);
    else expect([...seen]).toEqual([normal]);
    // The same worker answers the next query, at its normal priority.
    expect(pool.workerPids()).toEqual([pid]);
    expect(getPriority(pid!)).toBe(normal);
  }, 60_000);

  it('starts the first workers at normal priority, and a replacement lowered until it is ready', async () => {
    // Nothing runs while the pool starts: lowered, its first workers waited behind the service's own start-up.
    const launch = await workerLaunch();
    const events = { reply: () => undefined, exit: () => undefined };
    const environment = { ANALYST_CONNECTIONS: JSON.stringify([{ name: 'default', url: `sqlite:${databasePath}` }]), ANALYST_STATEMENT_TIMEOUT_MS: '30000' };
    const first = new WorkerProcess(databasePath, events, environment, launch, false);
    const replacement = new WorkerProcess(databasePath, events, environment, launch);
    try {
      expect(getPriority(first.pid!)).toBe(normal);
      expect(getPriority(replacement.pid!)).toBe(mayRaise ? lowered : normal);
      await Promise.all([first.ready, replacement.ready]);
      expect(getPriority(first.pid!)).toBe(normal);
      expect(getPriority(replacement.pid!)).toBe(normal);
    } finally {
      first.kill();
      replacement.kill();
    }
  }, 60_000);

  it('leaves a short query at normal priority', async () => {
    pool = await QueryPool.start({ databasePath, workers: 1, timeoutMs: 60_000, spare: false, logger: silentLogger(), yieldAfterMs: 5_000 });
    const [pid] = pool.workerPids();
    const answer = pool.run(light);
    const seen = await prioritiesWhile(pid!, answer);
    await answer;
    expect([...seen]).toEqual([normal]);
    expect(getPriority(pid!)).toBe(normal);
  }, 60_000);
});
