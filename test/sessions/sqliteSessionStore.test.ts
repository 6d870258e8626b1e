import { existsSync } from 'node:fs';
import path from 'node:path';
import { AIMessage, HumanMessage, mapStoredMessagesToChatMessages, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/sessions/appDatabase.ts';
import { decodeCursor, encodeCursor } from '../../src/sessions/sessionPaging.ts';
import { titleOf } from '../../src/sessions/sessionRecords.ts';
import { SqliteSessionStore, openSessionStore, type SqliteSessionStoreOptions } from '../../src/sessions/sqliteSessionStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { sampleTurn } from './support/turns.ts';

const HOUR = 3_600_000;
const open: SqliteSessionStore[] = [];

function storeAt(file: string, options: Partial<SqliteSessionStoreOptions> = {}): SqliteSessionStore {
  const store = new SqliteSessionStore({ path: file, ttlMs: 168 * HOUR, expiryIntervalMs: 0, ...options });
  open.push(store);
  return store;
}

function freshFile(): string {
  return path.join(temporaryDirectory('sessions-'), 'nested', 'app.db');
}

/** A settable clock starting at a fixed instant. */
function clock(start = Date.parse('2025-03-01T08:00:00.000Z')) {
  const state = { now: start };
  return { now: () => state.now, advance: (ms: number) => (state.now += ms), state };
}

afterEach(() => {
  for (const store of open.splice(0)) store.close();
});

/** What makes two LangChain messages the same for the model: class, serialised form, and the fields it reads. */
function expectSameMessages(actual: BaseMessage[], expected: BaseMessage[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((message, index) => {
    const original = expected[index]!;
    expect(message.constructor).toBe(original.constructor);
    expect(message.type).toBe(original.type);
    expect(message.content).toEqual(original.content);
    expect(JSON.stringify(message)).toBe(JSON.stringify(original));
    if (AIMessage.isInstance(original)) {
      const ai = message as AIMessage;
      expect(ai.tool_calls).toEqual(original.tool_calls);
      expect(ai.usage_metadata).toEqual(original.usage_metadata);
      expect(ai.id).toBe(original.id);
    }
    if (ToolMessage.isInstance(original)) {
      const tool = message as ToolMessage;
      expect(tool.tool_call_id).toBe(original.tool_call_id);
      expect(tool.name).toBe(original.name);
      expect(tool.status).toBe(original.status);
    }
  });
  expect(actual).toEqual(expected);
}

describe('SqliteSessionStore: durability', () => {
  it('creates the file, its folder and the schema version on first open', () => {
    const file = freshFile();
    storeAt(file).close();
    expect(existsSync(file)).toBe(true);
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    const tables = (raw.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => t.name);
    expect(tables).toEqual(['messages', 'session_artifacts', 'sessions', 'skill_records', 'turns']);
    raw.close();
  });

  it('keeps turns across a close and reopen, with identical LangChain messages', () => {
    const file = freshFile();
    const first = sampleTurn('What is the total amount in fi_reporting for company 1000 in December 2024?', 1);
    const second = sampleTurn('and for company 2000?', 2, new Date('2025-01-01T10:05:00.000Z'));
    // Content as parts, an error tool result and a provider without ids for its message.
    second.messages.push(
      new AIMessage({ content: [{ type: 'text', text: 'part one' }], tool_calls: [{ id: 'call_x', name: 'list_sources', args: {}, type: 'tool_call' }] }),
      new ToolMessage({ tool_call_id: 'call_x', name: 'list_sources', content: '{"error":{"code":"internal_error"}}', status: 'error' }),
      new AIMessage('closing words'),
    );

    const store = storeAt(file);
    const session = store.create();
    expect(session.messages).toEqual([]);
    expect(store.appendTurn(session.id, first)).toBe(true);
    expect(store.appendTurn(session.id, second)).toBe(true);
    store.close();

    const reopened = storeAt(file); // the "restart"
    const loaded = reopened.get(session.id);
    expect(loaded).toBeDefined();
    expect(loaded!.turns).toBe(2);
    expect(loaded!.title).toBe(first.question);
    expect(loaded!.createdAt).toEqual(session.createdAt);
    expectSameMessages(mapStoredMessagesToChatMessages(loaded!.messages), [...first.messages, ...second.messages]);
    expect(mapStoredMessagesToChatMessages(loaded!.messages)[0]).toBeInstanceOf(HumanMessage);

    const history = reopened.history(session.id)!;
    expect(history.turnRecords).toEqual([
      {
        seq: 1,
        question: first.question,
        answer: first.answer,
        finished: true,
        stopReason: 'completed',
        iterations: 2,
        toolCalls: first.toolCalls,
        usage: first.usage,
        startedAt: first.startedAt,
        finishedAt: first.finishedAt,
      },
      expect.objectContaining({ seq: 2, question: second.question, toolCalls: second.toolCalls, usage: second.usage, startedAt: second.startedAt }),
    ]);
  });

  it('writes the turn, its messages and the session in one transaction (messages numbered per session, tagged with their turn)', () => {
    const file = freshFile();
    const store = storeAt(file);
    const { id } = store.create();
    store.appendTurn(id, sampleTurn('one', 1));
    store.appendTurn(id, sampleTurn('two', 2));
    const raw = new Database(file, { readonly: true });
    const rows = raw.prepare('SELECT seq, turn_seq FROM messages WHERE session_id = ? ORDER BY seq').all(id);
    raw.close();
    expect(rows).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((seq) => ({ seq, turn_seq: seq <= 4 ? 1 : 2 })));
  });

  it('stores nothing for a session deleted while its turn ran', () => {
    const store = storeAt(freshFile());
    const { id } = store.create();
    expect(store.delete(id)).toBe(true);
    expect(store.appendTurn(id, sampleTurn('late', 1))).toBe(false);
    expect(store.get(id)).toBeUndefined();
  });

  it('refuses a file written by a newer schema, naming APP_DB', () => {
    const file = freshFile();
    storeAt(file).close();
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => openSessionStore({ path: file, ttlMs: 0, expiryIntervalMs: 0 })).toThrow(/APP_DB: .* has schema version 2/);
  });

  it("opens a file from before receipts: its turns read without figures, new turns keep theirs", () => {
    const file = freshFile();
    const store = storeAt(file);
    const session = store.create();
    store.appendTurn(session.id, sampleTurn('Total FI?'));
    store.close();
    // The file as an older version left it: turns without the figures column.
    const raw = new Database(file);
    raw.exec('ALTER TABLE turns DROP COLUMN figures');
    raw.close();
    const reopened = storeAt(file);
    const figures = [{ text: '443,100.00', start: 10, end: 20, value: 443100, kind: 'amount' as const, receipt: { kind: 'value' as const, call: 'call_1_a', path: 'rows[0].amount' } }];
    expect(reopened.appendTurn(session.id, { ...sampleTurn('And BPC?', 1), figures })).toBe(true);
    expect(reopened.history(session.id)!.turnRecords.map((turn) => turn.figures)).toEqual([undefined, figures]);
    reopened.close();
  });

  it('names APP_DB when the path cannot be opened', () => {
    const directory = temporaryDirectory('sessions-');
    expect(() => openSessionStore({ path: directory, ttlMs: 0, expiryIntervalMs: 0 })).toThrow(/^APP_DB: .* cannot be opened as the application database/);
  });
});

describe('SqliteSessionStore: titles', () => {
  it('uses the first question on one line, cut to 80 characters', () => {
    expect(titleOf('  What is\n the total?  ')).toBe('What is the total?');
    const long = 'compare amount between fi_reporting and bpc_reporting for company 1000 in December 2024';
    expect(titleOf(long)).toHaveLength(80);
    expect(titleOf(long)).toBe(`${long.slice(0, 79)}…`);
    expect([...titleOf('😀'.repeat(100))]).toHaveLength(80);
  });

  it('keeps the first question as the title', () => {
    const store = storeAt(freshFile());
    const { id } = store.create();
    expect(store.get(id)!.title).toBeNull();
    store.appendTurn(id, sampleTurn('first question', 1));
    store.appendTurn(id, sampleTurn('second question', 2));
    expect(store.get(id)!.title).toBe('first question');
  });
});

describe('SqliteSessionStore: listing', () => {
  it('pages through 25 sessions, most recently updated first, with an opaque cursor', () => {
    const time = clock();
    const store = storeAt(freshFile(), { now: time.now });
    const ids: string[] = [];
    for (let index = 0; index < 25; index += 1) {
      time.advance(1000);
      ids.push(store.create().id);
    }
    // Touching the oldest session moves it to the top.
    time.advance(1000);
    store.appendTurn(ids[0]!, sampleTurn('touched', 1));
    const expected = [ids[0]!, ...ids.slice(1).reverse()];

    const seen: string[] = [];
    const pageSizes: number[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages += 1) {
      const page = store.list({ limit: 10, cursor });
      seen.push(...page.sessions.map((s) => s.id));
      pageSizes.push(page.sessions.length);
      if (page.nextCursor === null) break;
      expect(page.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
      cursor = page.nextCursor;
    }
    expect(pageSizes).toEqual([10, 10, 5]);
    expect(seen).toEqual(expected);
    const top = store.list({ limit: 1 }).sessions[0]!;
    expect(top).toEqual({ id: ids[0], title: 'touched', createdAt: new Date(Date.parse('2025-03-01T08:00:01.000Z')), updatedAt: new Date(time.now()), turns: 1 });
    expect(store.list().sessions).toHaveLength(20);
    expect(store.list({ limit: 25 }).nextCursor).toBeNull();
  });

  it('pages correctly through sessions updated in the same millisecond', () => {
    const store = storeAt(freshFile(), { now: () => Date.parse('2025-03-01T08:00:00.000Z') });
    const ids = Array.from({ length: 7 }, () => store.create().id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = store.list({ limit: 3, cursor });
      seen.push(...page.sessions.map((s) => s.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...ids].sort().reverse());
  });

  it('refuses a limit out of range and a cursor it did not make', () => {
    const store = storeAt(freshFile());
    expect(() => store.list({ limit: 0 })).toThrow(RangeError);
    expect(() => store.list({ limit: 101 })).toThrow(RangeError);
    expect(() => store.list({ cursor: 'nonsense' })).toThrow(RangeError);
    expect(decodeCursor('nonsense')).toBeUndefined();
    expect(decodeCursor('')).toBeUndefined();
    expect(decodeCursor(Buffer.from('2025-03-01T08:00:00.000Z|').toString('base64url'))).toBeUndefined();
    const cursor = encodeCursor('2025-03-01T08:00:00.000Z', 'abc');
    expect(decodeCursor(cursor)).toEqual({ updatedAt: '2025-03-01T08:00:00.000Z', id: 'abc' });
    expect(decodeCursor(`${cursor}=`)).toBeUndefined();
  });
});

describe('SqliteSessionStore: delete and expiry', () => {
  it('deletes a session with its turns and messages', () => {
    const file = freshFile();
    const store = storeAt(file);
    const kept = store.create();
    const gone = store.create();
    store.appendTurn(kept.id, sampleTurn('kept', 1));
    store.appendTurn(gone.id, sampleTurn('gone', 2));
    expect(store.delete(gone.id)).toBe(true);
    expect(store.delete(gone.id)).toBe(false);
    expect(store.get(gone.id)).toBeUndefined();
    expect(store.history(gone.id)).toBeUndefined();
    expect(store.list().sessions.map((s) => s.id)).toEqual([kept.id]);
    const raw = new Database(file, { readonly: true });
    const count = (table: string, id: string) => (raw.prepare(`SELECT count(*) AS n FROM ${table} WHERE session_id = ?`).get(id) as { n: number }).n;
    expect([count('turns', gone.id), count('messages', gone.id)]).toEqual([0, 0]);
    expect([count('turns', kept.id), count('messages', kept.id)]).toEqual([1, 4]);
    raw.close();
  });

  it('treats a session idle past the TTL as missing and expires it', () => {
    const time = clock();
    const file = freshFile();
    const store = storeAt(file, { ttlMs: 2 * HOUR, now: time.now });
    const idle = store.create(); // never answered
    const active = store.create();
    time.advance(HOUR);
    store.appendTurn(active.id, sampleTurn('still here', 1));
    time.advance(HOUR); // idle is exactly at the TTL: still alive
    expect(store.get(idle.id)).toBeDefined();
    time.advance(1);
    expect(store.get(idle.id)).toBeUndefined();
    expect(store.history(idle.id)).toBeUndefined();
    expect(store.delete(idle.id)).toBe(false);
    expect(store.list().sessions.map((s) => s.id)).toEqual([active.id]);
    expect(store.get(active.id)?.turns).toBe(1);
    expect(store.expireIdle()).toBe(0); // delete above already removed it
    time.advance(HOUR);
    expect(store.expireIdle()).toBe(1);
    expect(store.expireIdle()).toBe(0);
    expect(store.get(active.id)).toBeUndefined();
  });

  it('expires idle sessions when it opens (at startup)', () => {
    const time = clock();
    const file = freshFile();
    const store = storeAt(file, { ttlMs: HOUR, now: time.now });
    store.create();
    store.close();
    time.advance(2 * HOUR);
    storeAt(file, { ttlMs: HOUR, now: time.now }).close();
    const raw = new Database(file, { readonly: true });
    expect((raw.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n).toBe(0);
    raw.close();
  });

  it('sweeps on its timer', async () => {
    const time = clock();
    const file = freshFile();
    const store = storeAt(file, { ttlMs: HOUR, now: time.now, expiryIntervalMs: 20 });
    store.create();
    const raw = new Database(file, { readonly: true });
    const rows = () => (raw.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
    expect(rows()).toBe(1);
    time.advance(2 * HOUR);
    await expect.poll(rows, { timeout: 2000, interval: 10 }).toBe(0);
    raw.close();
  });

  it('never expires with a TTL of 0', () => {
    const time = clock();
    const store = storeAt(freshFile(), { ttlMs: 0, now: time.now });
    const { id } = store.create();
    time.advance(100 * 365 * 24 * HOUR);
    expect(store.expireIdle()).toBe(0);
    expect(store.get(id)).toBeDefined();
  });

  it('does not expire a session whose turn is in progress', async () => {
    const time = clock();
    const store = storeAt(freshFile(), { ttlMs: HOUR, now: time.now });
    const { id } = store.create();
    await store.runExclusive(id, async () => {
      time.advance(2 * HOUR);
      expect(store.expireIdle()).toBe(0);
      expect(store.appendTurn(id, sampleTurn('slow answer', 1))).toBe(true);
    });
    expect(store.get(id)?.turns).toBe(1);
  });
});

describe('SqliteSessionStore: one turn at a time per session', () => {
  it('stores two concurrent turns on one session, in order, the second seeing the first', async () => {
    const file = freshFile();
    const store = storeAt(file);
    const session = store.create();
    const historySeen: number[] = [];
    const turn = (question: string, index: number, delayMs: number) =>
      store.runExclusive(session.id, async () => {
        historySeen.push(session.messages.length);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        return store.appendTurn(session.id, sampleTurn(question, index));
      });
    const results = await Promise.all([turn('first (slow)', 1, 40), turn('second (fast)', 2, 0)]);
    expect(results).toEqual([true, true]);
    expect(historySeen).toEqual([0, 4]);
    store.close();
    const reopened = storeAt(file);
    expect(reopened.history(session.id)!.turnRecords.map((t) => [t.seq, t.question])).toEqual([
      [1, 'first (slow)'],
      [2, 'second (fast)'],
    ]);
    expectSameMessages(mapStoredMessagesToChatMessages(reopened.get(session.id)!.messages), [...sampleTurn('first (slow)', 1).messages, ...sampleTurn('second (fast)', 2).messages]);
  });
});
