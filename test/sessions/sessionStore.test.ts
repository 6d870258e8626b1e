/**
 * The SessionStore contract, run against both stores (SQLite file and PostgreSQL): every method
 * answers with a promise (failures reject, never throw), owners stay private, runExclusive
 * serialises a session's work, and artifacts (follow-up state) survive a reopen and go with
 * their session.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresUrls } from '../support/engineServers.ts';
import { openPostgresStore } from '../../src/sessions/postgresStore.ts';
import type { SessionStore } from '../../src/sessions/sessionStore.ts';
import { openSqliteStore } from '../../src/sessions/sqliteStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { scratchDatabase } from './support/postgresDatabase.ts';
import { sampleTurn } from './support/turns.ts';

/** Where one test's conversations are kept: `open` opens (or reopens) a store on it. */
interface Storage {
  open(): Promise<SessionStore>;
}

const cleanups: (() => Promise<void>)[] = [];

const backends: { name: string; storage: () => Promise<Storage> }[] = [
  {
    name: 'SqliteStore',
    storage: async () => {
      const file = path.join(temporaryDirectory('session-store-'), 'app.db');
      return { open: async () => openSqliteStore({ path: file, ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 }) };
    },
  },
  {
    name: 'PostgresStore',
    storage: async () => {
      const database = await scratchDatabase((await postgresUrls()).adminUrl, 'contract');
      cleanups.push(database.drop);
      return { open: () => openPostgresStore({ url: database.url, ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 }) };
    },
  },
];

const open: SessionStore[] = [];

/** A store on `on`, closed after the test. */
async function opened(on: Storage): Promise<SessionStore> {
  const store = await on.open();
  open.push(store);
  return store;
}

afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.each(backends)('$name (SessionStore)', (backend) => {
  const fresh = async () => opened(await backend.storage());

  it('creates, reads, appends and lists through promises, with the history the model gets', async () => {
    const store = await fresh();
    const session = await store.create('key-a');
    expect(await store.get(session.id, 'key-b')).toBeUndefined();
    expect(await store.get(session.id)).toBeUndefined();
    expect(await store.appendTurn(session.id, sampleTurn('Total FI?'))).toBe(true);
    expect((await store.get(session.id, 'key-a'))?.turns).toBe(1);
    const { messages, omittedTurns } = await store.recentHistory(session.id, 'key-a');
    expect(messages).toHaveLength(4);
    expect(omittedTurns).toBe(0);
    expect((await store.recentHistory(session.id, 'key-b')).messages).toEqual([]);
    expect((await store.list({ owner: 'key-a' })).sessions.map((s) => s.id)).toEqual([session.id]);
    expect((await store.list()).sessions).toEqual([]);
    expect((await store.history(session.id, 'key-a'))?.turnRecords).toHaveLength(1);
    expect(await store.history(session.id, 'key-b')).toBeUndefined();
    expect(await store.delete(session.id, 'key-b')).toBe(false);
    expect(await store.delete(session.id, 'key-a')).toBe(true);
  });

  it("keeps a turn's figures and their receipts, and none for a turn stored without them", async () => {
    const store = await fresh();
    const session = await store.create('key-a');
    const figures = [
      { text: '443,100.00', start: 10, end: 20, value: 443100, kind: 'amount' as const, receipt: { kind: 'value' as const, call: 'call_0_a', path: 'rows[0].amount' } },
      { text: '1000', start: 30, end: 34, value: 1000, kind: 'code' as const, receipt: { kind: 'not_a_figure' as const } },
    ];
    await store.appendTurn(session.id, { ...sampleTurn('Total FI?'), figures });
    await store.appendTurn(session.id, sampleTurn('And BPC?', 1));
    const [first, second] = (await store.history(session.id, 'key-a'))!.turnRecords;
    expect(first!.figures).toEqual(figures);
    expect(second!.figures).toBeUndefined();
  });

  it('rejects (never throws) for a bad page request', async () => {
    const store = await fresh();
    const listing = store.list({ limit: 0 });
    await expect(listing).rejects.toThrow(RangeError);
    await expect(store.list({ cursor: 'nonsense' })).rejects.toThrow(RangeError);
  });

  it('runs the work on one session one at a time, in arrival order, even when one fails', async () => {
    const store = await fresh();
    const session = await store.create();
    const order: string[] = [];
    const slow = store.runExclusive(session.id, async () => {
      order.push('a start');
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('a end');
      throw new Error('a failed');
    });
    const fast = store.runExclusive(session.id, async () => {
      order.push('b');
      return 2;
    });
    await expect(slow).rejects.toThrow('a failed');
    await expect(fast).resolves.toBe(2);
    expect(order).toEqual(['a start', 'a end', 'b']);
  });

  it('keeps artifacts across a reopen, replaces them by key and deletes them with the session', async () => {
    const storage = await backend.storage();
    const first = await storage.open();
    const session = await first.create();
    expect(await first.saveArtifact(session.id, 'comparison:cmp_1', { args: { a: 1 }, rows: [1, 2] })).toBe(true);
    expect(await first.saveArtifact(session.id, 'comparison:cmp_1', { args: { a: 2 } })).toBe(true);
    await first.close();
    const again = await opened(storage);
    expect(await again.artifact(session.id, 'comparison:cmp_1')).toEqual({ args: { a: 2 } });
    expect(await again.artifact(session.id, 'missing')).toBeUndefined();
    expect(await again.delete(session.id)).toBe(true);
    expect(await again.artifact(session.id, 'comparison:cmp_1')).toBeUndefined();
    expect(await again.saveArtifact(session.id, 'comparison:cmp_1', 1)).toBe(false);
  });

  it('reports healthy storage from memory', async () => {
    const store = await fresh();
    expect(store.storageHealth()).toEqual({ status: 'ok' });
  });
});
