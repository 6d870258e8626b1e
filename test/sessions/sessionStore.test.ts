/**
 * The SessionStore interface over SQLite (SqliteStore): every method answers with a promise
 * (failures reject, never throw), owners stay private, runExclusive serialises a session's work,
 * and artifacts (follow-up state) survive a reopen and go with their session.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/sessions/sqliteStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { sampleTurn } from './support/turns.ts';

const open: SqliteStore[] = [];

function storeAt(file: string): SqliteStore {
  const store = openSqliteStore({ path: file, ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 });
  open.push(store);
  return store;
}

const freshFile = () => path.join(temporaryDirectory('session-store-'), 'app.db');

afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});

describe('SqliteStore (SessionStore)', () => {
  it('creates, reads, appends and lists through promises, with the history the model gets', async () => {
    const store = storeAt(freshFile());
    const session = await store.create('key-a');
    expect(await store.get(session.id, 'key-b')).toBeUndefined();
    expect(await store.appendTurn(session.id, sampleTurn('Total FI?'))).toBe(true);
    expect((await store.get(session.id, 'key-a'))?.turns).toBe(1);
    const { messages, omittedTurns } = await store.recentHistory(session.id, 'key-a');
    expect(messages).toHaveLength(4);
    expect(omittedTurns).toBe(0);
    expect((await store.recentHistory(session.id, 'key-b')).messages).toEqual([]);
    expect((await store.list({ owner: 'key-a' })).sessions.map((s) => s.id)).toEqual([session.id]);
    expect((await store.history(session.id, 'key-a'))?.turnRecords).toHaveLength(1);
  });

  it('rejects (never throws) for a bad page request', async () => {
    const store = storeAt(freshFile());
    const listing = store.list({ limit: 0 });
    await expect(listing).rejects.toThrow(RangeError);
  });

  it('runs the work on one session one at a time, in arrival order', async () => {
    const store = storeAt(freshFile());
    const session = await store.create();
    const order: string[] = [];
    const slow = store.runExclusive(session.id, async () => {
      order.push('a start');
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push('a end');
    });
    const fast = store.runExclusive(session.id, async () => {
      order.push('b');
    });
    await Promise.all([slow, fast]);
    expect(order).toEqual(['a start', 'a end', 'b']);
  });

  it('keeps artifacts across a reopen, replaces them by key and deletes them with the session', async () => {
    const file = freshFile();
    const first = storeAt(file);
    const session = await first.create();
    expect(await first.saveArtifact(session.id, 'comparison:cmp_1', { args: { a: 1 }, rows: [1, 2] })).toBe(true);
    expect(await first.saveArtifact(session.id, 'comparison:cmp_1', { args: { a: 2 } })).toBe(true);
    await first.close();
    const again = storeAt(file);
    expect(await again.artifact(session.id, 'comparison:cmp_1')).toEqual({ args: { a: 2 } });
    expect(await again.artifact(session.id, 'missing')).toBeUndefined();
    expect(await again.delete(session.id)).toBe(true);
    expect(await again.artifact(session.id, 'comparison:cmp_1')).toBeUndefined();
    expect(await again.saveArtifact(session.id, 'comparison:cmp_1', 1)).toBe(false);
  });
});
