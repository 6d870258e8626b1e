/**
 * The PostgreSQL session store (APP_DB=postgres://…) against the real throwaway server of the
 * test run, each test on a database of its own: what the SQLite store keeps (turns with their
 * exact LangChain messages, titles, pages, owners, TTL, artifacts), the schema created safely by
 * instances starting together, per-session serialisation across two store objects (two
 * "instances"), a dead holder's lease taken over once it expires, a turn whose lease was taken
 * over refused, and PostgreSQL going away reported as StorageUnavailableError and in health.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { postgresUrls } from '../support/engineServers.ts';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { StorageUnavailableError } from '../../src/errors/index.ts';
import { openPostgresStore, type PostgresStore, type PostgresStoreOptions } from '../../src/sessions/postgresStore.ts';
import { POSTGRES_SCHEMA_VERSION } from '../../src/sessions/postgresSchema.ts';
import { withPostgres } from '../support/postgresClient.ts';
import { until } from '../support/until.ts';
import { scratchDatabase, startRelay, type ScratchDatabase } from './support/postgresDatabase.ts';
import { sampleTurn } from './support/turns.ts';

const HOUR = 3_600_000;
const stores: PostgresStore[] = [];
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function database(): Promise<ScratchDatabase> {
  const created = await scratchDatabase((await postgresUrls()).adminUrl);
  cleanups.push(created.drop);
  return created;
}

async function storeOn(url: string, options: Partial<PostgresStoreOptions> = {}): Promise<PostgresStore> {
  const store = await openPostgresStore({ url, ttlMs: 168 * HOUR, expiryIntervalMs: 0, healthCheckIntervalMs: 0, ...options });
  stores.push(store);
  return store;
}

async function freshStore(options: Partial<PostgresStoreOptions> = {}): Promise<PostgresStore> {
  return storeOn((await database()).url, options);
}

/** A settable clock starting at a fixed instant. */
function clock(start = Date.parse('2025-03-01T08:00:00.000Z')) {
  const state = { now: start };
  return { now: () => state.now, advance: (ms: number) => (state.now += ms) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Rows of one statement on the store's database, read beside the store. */
const rows = <T>(url: string, sql: string, params: unknown[] = []) => withPostgres(url, async (client) => (await client.query(sql, params)).rows as T[]);

/** What makes two LangChain message lists the same for the model: classes and serialised forms. */
function expectSameMessages(actual: BaseMessage[], expected: BaseMessage[]): void {
  expect(actual.map((message) => message.constructor)).toEqual(expected.map((message) => message.constructor));
  expect(actual.map((message) => JSON.stringify(message))).toEqual(expected.map((message) => JSON.stringify(message)));
  expect(actual).toEqual(expected);
}

describe('PostgresStore: schema and durability', () => {
  it('creates the schema with its version, also when four instances open a new database at once', async () => {
    const { url } = await database();
    await Promise.all([1, 2, 3, 4].map(() => storeOn(url)));
    const tables = await rows<{ table_name: string }>(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name");
    expect(tables.map((table) => table.table_name)).toEqual(['app_schema_version', 'messages', 'session_artifacts', 'session_leases', 'sessions', 'skill_records', 'turns']);
    expect(await rows(url, 'SELECT version FROM app_schema_version')).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
  });

  it('keeps turns across a close and reopen, with identical LangChain messages and turn records', async () => {
    const { url } = await database();
    const first = sampleTurn('What is the total amount in fi_reporting for company 1000 in December 2024?', 1);
    const second = sampleTurn('and for company 2000?', 2, new Date('2025-01-01T10:05:00.000Z'));
    second.messages.push(
      new AIMessage({ content: [{ type: 'text', text: 'part one' }], tool_calls: [{ id: 'call_x', name: 'list_sources', args: {}, type: 'tool_call' }] }),
      new ToolMessage({ tool_call_id: 'call_x', name: 'list_sources', content: '{"error":{"code":"internal_error"}}', status: 'error' }),
      new AIMessage('closing words \u0000 with a NUL escaped in JSON'),
    );
    const store = await storeOn(url);
    const session = await store.create();
    expect(await store.appendTurn(session.id, first)).toBe(true);
    expect(await store.appendTurn(session.id, second)).toBe(true);
    await store.close();

    const reopened = await storeOn(url);
    const loaded = await reopened.get(session.id);
    expect(loaded).toMatchObject({ turns: 2, title: first.question, createdAt: session.createdAt });
    const { messages } = await reopened.recentHistory(session.id);
    expectSameMessages(messages, [...first.messages, ...second.messages]);
    expect(messages[0]).toBeInstanceOf(HumanMessage);
    // The caller chooses how many turns it reads (as getItems(limit)); the older ones are counted.
    const last = await reopened.recentHistory(session.id, undefined, 1);
    expectSameMessages(last.messages, second.messages);
    expect(last.omittedTurns).toBe(1);
    const history = (await reopened.history(session.id))!;
    expect(history.turnRecords).toEqual([
      { seq: 1, question: first.question, answer: first.answer, finished: true, stopReason: 'completed', iterations: 2, toolCalls: first.toolCalls, usage: first.usage, startedAt: first.startedAt, finishedAt: first.finishedAt },
      expect.objectContaining({ seq: 2, question: second.question, toolCalls: second.toolCalls, usage: second.usage, startedAt: second.startedAt }),
    ]);
    // Tool arguments come back with their keys in the order they were written.
    expect(JSON.stringify(history.turnRecords[0]!.toolCalls)).toBe(JSON.stringify(first.toolCalls));
  });

  it('numbers messages per session, tagged with their turn', async () => {
    const { url } = await database();
    const store = await storeOn(url);
    const { id } = await store.create();
    await store.appendTurn(id, sampleTurn('one', 1));
    await store.appendTurn(id, sampleTurn('two', 2));
    const stored = await rows(url, 'SELECT seq, turn_seq FROM messages WHERE session_id = $1 ORDER BY seq', [id]);
    expect(stored).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((seq) => ({ seq, turn_seq: seq <= 4 ? 1 : 2 })));
  });

  it('stores nothing for a session deleted while its turn ran', async () => {
    const store = await freshStore();
    const { id } = await store.create();
    expect(await store.delete(id)).toBe(true);
    expect(await store.appendTurn(id, sampleTurn('late', 1))).toBe(false);
    expect(await store.saveArtifact(id, 'k', 1)).toBe(false);
    expect(await store.get(id)).toBeUndefined();
  });

  it('refuses a database written by a newer schema, naming APP_DB', async () => {
    const { url } = await database();
    await (await storeOn(url)).close();
    await rows(url, 'UPDATE app_schema_version SET version = $1', [POSTGRES_SCHEMA_VERSION + 1]);
    await expect(openPostgresStore({ url, ttlMs: 0 })).rejects.toThrow(/^APP_DB: the PostgreSQL database has schema version 2/);
  });

  it('names APP_DB, without the password, when the server cannot be reached', async () => {
    const closed = await startRelay((await postgresUrls()).adminUrl);
    const unreachable = new URL(closed.url);
    await closed.close();
    unreachable.username = 'analyst';
    unreachable.password = 's3cret-pw';
    const failure = openPostgresStore({ url: unreachable.toString(), ttlMs: 0 });
    await expect(failure).rejects.toThrow(new RegExp(`^APP_DB: postgres://127\\.0\\.0\\.1:${unreachable.port}/postgres cannot be opened as the application database: \\S`));
    await expect(failure).rejects.not.toThrow(/s3cret/);
  });
});

describe('PostgresStore: titles, pages and owners', () => {
  it('keeps the first question as the title', async () => {
    const store = await freshStore();
    const { id } = await store.create();
    expect((await store.get(id))!.title).toBeNull();
    await store.appendTurn(id, sampleTurn('  first\n question ', 1));
    await store.appendTurn(id, sampleTurn('second question', 2));
    expect((await store.get(id))!.title).toBe('first question');
  });

  it('pages through 25 sessions, most recently updated first, with an opaque cursor', async () => {
    const time = clock();
    const store = await freshStore({ now: time.now });
    const ids: string[] = [];
    for (let index = 0; index < 25; index += 1) {
      time.advance(1000);
      ids.push((await store.create()).id);
    }
    time.advance(1000);
    await store.appendTurn(ids[0]!, sampleTurn('touched', 1));
    const seen: string[] = [];
    const pageSizes: number[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages += 1) {
      const page = await store.list({ limit: 10, cursor });
      seen.push(...page.sessions.map((s) => s.id));
      pageSizes.push(page.sessions.length);
      if (page.nextCursor === null) break;
      expect(page.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
      cursor = page.nextCursor;
    }
    expect(pageSizes).toEqual([10, 10, 5]);
    expect(seen).toEqual([ids[0]!, ...ids.slice(1).reverse()]);
    const top = (await store.list({ limit: 1 })).sessions[0]!;
    expect(top).toEqual({ id: ids[0], title: 'touched', createdAt: new Date('2025-03-01T08:00:01.000Z'), updatedAt: new Date(time.now()), turns: 1 });
    expect((await store.list()).sessions).toHaveLength(20);
    expect((await store.list({ limit: 25 })).nextCursor).toBeNull();
  });

  it('pages correctly through sessions updated in the same millisecond, and refuses bad limits and cursors', async () => {
    const store = await freshStore({ now: () => Date.parse('2025-03-01T08:00:00.000Z') });
    const ids: string[] = [];
    for (let index = 0; index < 7; index += 1) ids.push((await store.create()).id);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ limit: 3, cursor });
      seen.push(...page.sessions.map((s) => s.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...ids].sort().reverse());
    await expect(store.list({ limit: 0 })).rejects.toThrow(RangeError);
    await expect(store.list({ limit: 101 })).rejects.toThrow(RangeError);
    await expect(store.list({ cursor: 'nonsense' })).rejects.toThrow(RangeError);
  });

  it("reads another owner's session as missing, and lists and pages only the caller's", async () => {
    const store = await freshStore();
    const mine = await store.create('key-a');
    const theirs = await store.create('key-b');
    const nobodys = await store.create();
    await store.appendTurn(mine.id, sampleTurn('mine', 1));
    expect(await store.get(mine.id, 'key-b')).toBeUndefined();
    expect(await store.get(mine.id)).toBeUndefined();
    expect(await store.get(nobodys.id, 'key-a')).toBeUndefined();
    expect(await store.history(mine.id, 'key-b', { limit: 5 })).toBeUndefined();
    expect((await store.recentHistory(mine.id, 'key-b')).messages).toEqual([]);
    expect((await store.list({ owner: 'key-a' })).sessions.map((s) => s.id)).toEqual([mine.id]);
    expect((await store.list()).sessions.map((s) => s.id)).toEqual([nobodys.id]);
    expect(await store.delete(theirs.id, 'key-a')).toBe(false);
    expect(await store.delete(theirs.id)).toBe(false);
    expect(await store.get(theirs.id, 'key-b')).toBeDefined();
  });

  it('reads the history a page at a time', async () => {
    const store = await freshStore();
    const { id } = await store.create();
    for (let seq = 1; seq <= 5; seq += 1) await store.appendTurn(id, sampleTurn(`question ${seq}`, seq));
    const first = (await store.history(id, undefined, { limit: 2 }))!;
    expect([first.turnRecords.map((turn) => turn.seq), first.nextAfter]).toEqual([[1, 2], 2]);
    const last = (await store.history(id, undefined, { limit: 2, after: 4 }))!;
    expect([last.turnRecords.map((turn) => turn.seq), last.nextAfter]).toEqual([[5], null]);
  });
});

describe('PostgresStore: delete and expiry', () => {
  it('deletes a session with its turns, messages and artifacts', async () => {
    const { url } = await database();
    const store = await storeOn(url);
    const kept = await store.create();
    const gone = await store.create();
    await store.appendTurn(kept.id, sampleTurn('kept', 1));
    await store.appendTurn(gone.id, sampleTurn('gone', 2));
    await store.saveArtifact(gone.id, 'comparison', { rows: [1] });
    expect(await store.delete(gone.id)).toBe(true);
    expect(await store.delete(gone.id)).toBe(false);
    expect(await store.history(gone.id)).toBeUndefined();
    const count = async (table: string, id: string) => (await rows<{ n: number }>(url, `SELECT count(*)::int AS n FROM ${table} WHERE session_id = $1`, [id]))[0]!.n;
    expect([await count('turns', gone.id), await count('messages', gone.id), await count('session_artifacts', gone.id)]).toEqual([0, 0, 0]);
    expect([await count('turns', kept.id), await count('messages', kept.id)]).toEqual([1, 4]);
  });

  it('treats a session idle past the TTL as missing and expires it; sweeps at open', async () => {
    const time = clock();
    const { url } = await database();
    const store = await storeOn(url, { ttlMs: 2 * HOUR, now: time.now });
    const idle = await store.create();
    const active = await store.create();
    time.advance(HOUR);
    await store.appendTurn(active.id, sampleTurn('still here', 1));
    time.advance(HOUR);
    expect(await store.get(idle.id)).toBeDefined();
    time.advance(1);
    expect(await store.get(idle.id)).toBeUndefined();
    expect(await store.history(idle.id)).toBeUndefined();
    expect((await store.list()).sessions.map((s) => s.id)).toEqual([active.id]);
    expect(await store.expireIdle()).toBe(1);
    expect(await store.expireIdle()).toBe(0);
    time.advance(2 * HOUR);
    // Another instance opening later sweeps what expired meanwhile.
    await storeOn(url, { ttlMs: 2 * HOUR, now: time.now });
    expect(await rows(url, 'SELECT id FROM sessions')).toEqual([]);
  });

  it('never expires a session whose turn is in progress on another instance', async () => {
    const time = clock();
    const { url } = await database();
    const running = await storeOn(url, { ttlMs: HOUR, now: time.now });
    const sweeping = await storeOn(url, { ttlMs: HOUR, now: time.now });
    const { id } = await running.create();
    await running.runExclusive(id, async () => {
      time.advance(2 * HOUR);
      expect(await sweeping.expireIdle()).toBe(0);
      expect(await running.appendTurn(id, sampleTurn('slow answer', 1))).toBe(true);
    });
    expect((await sweeping.get(id))?.turns).toBe(1);
  });
});

describe('PostgresStore: one turn at a time per session, across instances', () => {
  it('serialises turns sent to two instances at once: none overlaps, each sees every turn stored before it', async () => {
    const { url } = await database();
    const instances = [await storeOn(url, { leaseMs: 2_000 }), await storeOn(url, { leaseMs: 2_000 })];
    const { id } = await instances[0]!.create();
    const spans: { start: number; end: number; historySeen: number }[] = [];
    let inside = 0;
    let overlaps = 0;
    const turns = Array.from({ length: 12 }, (_unused, index) => {
      const store = instances[index % 2]!;
      return store.runExclusive(id, async () => {
        if (++inside > 1) overlaps++;
        const start = performance.now();
        const { messages } = await store.recentHistory(id);
        await sleep(5 + (index % 3) * 10);
        const stored = await store.appendTurn(id, sampleTurn(`question ${index}`, index));
        inside--;
        spans.push({ start, end: performance.now(), historySeen: messages.length });
        return stored;
      });
    });
    expect(await Promise.all(turns)).toEqual(Array(12).fill(true));
    expect(overlaps).toBe(0);
    // The n-th turn to run saw the 4 messages of each of the n - 1 turns before it.
    expect(spans.map((span) => span.historySeen)).toEqual(spans.map((_span, index) => 4 * index));
    const history = (await instances[1]!.history(id))!;
    expect(history.turnRecords.map((turn) => turn.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(await rows(url, 'SELECT * FROM session_leases')).toEqual([]);
  });

  it('keeps the lease while a turn runs longer than the lease (renewal), so the other instance waits', async () => {
    const { url } = await database();
    const [first, second] = [await storeOn(url, { leaseMs: 1_000 }), await storeOn(url, { leaseMs: 1_000 })];
    const { id } = await first.create();
    const events: string[] = [];
    const long = first.runExclusive(id, async () => {
      events.push('long start');
      await sleep(2_500);
      events.push('long end');
    });
    await sleep(50);
    const waiting = second.runExclusive(id, async () => events.push('other instance'));
    await Promise.all([long, waiting]);
    expect(events).toEqual(['long start', 'long end', 'other instance']);
  });

  it("takes over the lease a dead instance left, once it expires", async () => {
    const { url } = await database();
    const store = await storeOn(url);
    const { id } = await store.create();
    // What a holder killed mid-turn leaves behind: a lease nobody renews, expiring in 1.5 s.
    const [dead] = await rows<{ expires_at: Date }>(url, "INSERT INTO session_leases (session_id, holder, expires_at) VALUES ($1, 'dead-instance/1', clock_timestamp() + interval '1500 milliseconds') RETURNING expires_at", [id]);
    // Taken over after the dead lease expired, by the server's clock (not this machine's timing).
    const taken = await store.runExclusive(id, async () => (await rows<{ holder: string; expired: boolean }>(url, 'SELECT holder, clock_timestamp() >= $2 AS expired FROM session_leases WHERE session_id = $1', [id, dead!.expires_at]))[0]);
    expect(taken?.holder).toMatch(new RegExp(`^${store.instanceId}/`));
    expect(taken?.expired).toBe(true);
    expect(await rows(url, 'SELECT * FROM session_leases')).toEqual([]);
  });

  it('refuses to store a turn whose lease another instance took over meanwhile', async () => {
    const { url } = await database();
    const store = await storeOn(url);
    const { id } = await store.create();
    const attempt = store.runExclusive(id, async () => {
      // As if this instance could not renew for a whole lease and another one took the session.
      await rows(url, "UPDATE session_leases SET holder = 'other-instance/7' WHERE session_id = $1", [id]);
      return store.appendTurn(id, sampleTurn('stale answer', 1));
    });
    await expect(attempt).rejects.toSatisfy(StorageUnavailableError.isInstance);
    expect((await store.get(id))?.turns).toBe(0);
    // Outside a lease (and on a session nobody holds) turns are stored as usual.
    await rows(url, 'DELETE FROM session_leases');
    expect(await store.runExclusive(id, () => store.appendTurn(id, sampleTurn('fresh answer', 1)))).toBe(true);
  });
});

describe('PostgresStore: PostgreSQL going away', () => {
  it('answers StorageUnavailableError and reports down, then recovers when the server is back', async () => {
    const { url, name } = await database();
    const relay = await startRelay(url);
    cleanups.push(relay.close);
    const store = await storeOn(relay.url, { healthCheckIntervalMs: 50 });
    const { id } = await store.create();
    expect(store.storageHealth()).toEqual({ status: 'ok' });

    await relay.cut();
    await until(() => store.storageHealth().status === 'down', 5_000, 'the store to report PostgreSQL down');
    const health = store.storageHealth();
    expect(health.reason).toMatch(/APP_DB/);
    expect(health.reason).not.toContain(name);
    await expect(store.get(id)).rejects.toSatisfy(StorageUnavailableError.isInstance);
    await expect(store.runExclusive(id, async () => 'ran')).rejects.toSatisfy(StorageUnavailableError.isInstance);
    await expect(store.appendTurn(id, sampleTurn('lost?', 1))).rejects.toSatisfy(StorageUnavailableError.isInstance);

    await relay.restore();
    await until(() => store.storageHealth().status === 'ok', 10_000, 'the store to see PostgreSQL back');
    expect(await store.runExclusive(id, () => store.appendTurn(id, sampleTurn('after the outage', 1)))).toBe(true);
    expect((await store.get(id))?.turns).toBe(1);
  });
});

describe('APP_DB as a PostgreSQL URL', () => {
  const env = (values: Record<string, string>) => values as NodeJS.ProcessEnv;

  it('is read as a URL (not a path), with a lease of 30 s unless SESSION_LEASE_SECONDS says otherwise', () => {
    const url = 'postgresql://analyst:pw@db.internal:5432/analyst_app';
    expect(loadConfig(env({ APP_DB: url }))).toMatchObject({ appDatabaseUrl: url, appDatabasePath: undefined, sessionLeaseSeconds: 30 });
    expect(loadConfig(env({ APP_DB: 'var/app.db', SESSION_LEASE_SECONDS: '5' }))).toMatchObject({ appDatabaseUrl: undefined, appDatabasePath: path.resolve('var/app.db'), sessionLeaseSeconds: 5 });
    expect(() => loadConfig(env({ SESSION_LEASE_SECONDS: '0' }))).toThrow(/SESSION_LEASE_SECONDS: must be at least 1/);
  });

  it('stops startup with one clear message naming APP_DB, without the password, when the server cannot be reached', async () => {
    const closed = await startRelay((await postgresUrls()).adminUrl);
    const unreachable = new URL(closed.url);
    await closed.close();
    unreachable.username = 'analyst';
    unreachable.password = 'pw-never-shown';
    const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src/main.ts')], {
      env: { ...process.env, LOG_LEVEL: 'silent', PORT: '0', MODEL_PROVIDER: 'offline', APP_DB: unreachable.toString() },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toMatch(new RegExp(`^APP_DB: postgres://127\\.0\\.0\\.1:${unreachable.port}/postgres cannot be opened as the application database: \\S`));
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).not.toContain('pw-never-shown');
  });
});
