/**
 * The skills' durable records (ToolContext.records, src/skills/sdk/records.ts), one contract run
 * against every store: in memory (a skill's test kit), the SQLite file and PostgreSQL. A record
 * keeps its value and version across a reopen, each skill sees only its own, a write naming a
 * stale version is refused (of two writers racing on one version exactly one wins), pages follow
 * the ids' bytewise order, and bad names or values are refused with a message naming them.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RecordConflictError, ToolError } from '../../src/errors/index.ts';
import { memoryRecords, type SkillRecords } from '../../src/skills/sdk/records.ts';
import { openPostgresStore } from '../../src/sessions/postgresStore.ts';
import type { SessionStore } from '../../src/sessions/sessionStore.ts';
import { openSqliteStore } from '../../src/sessions/sqliteStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { postgresUrls } from '../support/engineServers.ts';
import { scratchDatabase } from './support/postgresDatabase.ts';

/** Where one test's records are kept: `open` gives a skill's records, on a fresh connection when `fresh`. */
interface Backend {
  name: string;
  /** Whether records outlive the object holding them (a store's file or server). */
  durable: boolean;
  storage(): Promise<(namespace: string) => Promise<SkillRecords>>;
}

const stores: SessionStore[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const backends: Backend[] = [
  {
    name: 'memory',
    durable: false,
    storage: async () => {
      const byNamespace = new Map<string, SkillRecords>();
      return async (namespace) => byNamespace.get(namespace) ?? byNamespace.set(namespace, memoryRecords()).get(namespace)!;
    },
  },
  {
    name: 'SQLite',
    durable: true,
    storage: async () => {
      const file = path.join(temporaryDirectory('skill-records-'), 'app.db');
      return async (namespace) => {
        const store = openSqliteStore({ path: file, ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 });
        stores.push(store);
        return store.skillRecords(namespace);
      };
    },
  },
  {
    name: 'PostgreSQL',
    durable: true,
    storage: async () => {
      const database = await scratchDatabase((await postgresUrls()).adminUrl, 'records');
      cleanups.push(database.drop);
      return async (namespace) => {
        const store = await openPostgresStore({ url: database.url, ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 });
        stores.push(store);
        return store.skillRecords(namespace);
      };
    },
  },
];

/** The error `pending` rejects with. */
async function rejection(pending: Promise<unknown>): Promise<unknown> {
  return pending.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe.each(backends)('skill records on $name', (backend) => {
  it('keep a value with its version, one more with every write, across a reopen', async () => {
    const open = await backend.storage();
    const records = await open('month_end_close');
    expect(await records.get('checks', 'fi-vs-bpc')).toBeUndefined();
    const first = await records.put('checks', 'fi-vs-bpc', { sources: ['fi_reporting', 'bpc_reporting'], tolerance: { absolute: 0.5 } });
    expect(first).toMatchObject({ collection: 'checks', id: 'fi-vs-bpc', version: 1, value: { sources: ['fi_reporting', 'bpc_reporting'], tolerance: { absolute: 0.5 } } });
    expect(Number.isNaN(Date.parse(first.updatedAt))).toBe(false);
    const second = await records.put('checks', 'fi-vs-bpc', { sources: ['fi_reporting', 'bpc_reporting'], note: 'a\u0000b ünïcödé' });
    expect(second.version).toBe(2);
    const again = backend.durable ? await open('month_end_close') : records;
    expect(await again.get('checks', 'fi-vs-bpc')).toEqual(second);
  });

  it('keep each skill to its own records', async () => {
    const open = await backend.storage();
    const close = await open('month_end_close');
    const other = await open('data_quality');
    await close.put('checks', 'same-id', { owner: 'close' });
    expect(await other.get('checks', 'same-id')).toBeUndefined();
    expect(await other.list('checks')).toEqual([]);
    await other.put('checks', 'same-id', { owner: 'quality' });
    expect((await close.get('checks', 'same-id'))?.value).toEqual({ owner: 'close' });
    expect(await other.delete('checks', 'same-id')).toBe(true);
    expect((await close.get('checks', 'same-id'))?.version).toBe(1);
  });

  it('refuse a write or delete naming a version the record no longer has, and write nothing', async () => {
    const records = await (await backend.storage())('month_end_close');
    const created = await records.put('runs', '2026-11', { status: 'tie' }, { version: 0 });
    expect(created.version).toBe(1);
    const duplicate = await rejection(records.put('runs', '2026-11', { status: 'break' }, { version: 0 }));
    expect(RecordConflictError.isInstance(duplicate)).toBe(true);
    expect(duplicate).toMatchObject({ collection: 'runs', id: '2026-11', expected: 0, found: 1 });
    expect((await records.put('runs', '2026-11', { status: 'break' }, { version: 1 })).version).toBe(2);
    const stale = await rejection(records.put('runs', '2026-11', { status: 'signed' }, { version: 1 }));
    expect(stale).toMatchObject({ expected: 1, found: 2 });
    expect((await rejection(records.put('runs', 'never-written', {}, { version: 3 })) as RecordConflictError).found).toBeUndefined();
    expect(await rejection(records.delete('runs', '2026-11', { version: 1 }))).toMatchObject({ expected: 1, found: 2 });
    expect((await records.get('runs', '2026-11'))?.value).toEqual({ status: 'break' });
    expect(await records.delete('runs', '2026-11', { version: 2 })).toBe(true);
    expect(await records.delete('runs', '2026-11')).toBe(false);
  });

  it('continue the version count of a record deleted and created again, so an old writer cannot match the new one', async () => {
    const records = await (await backend.storage())('month_end_close');
    const old = await records.put('checks', 'reused', { owner: 'first' });
    expect(await records.delete('checks', 'reused')).toBe(true);
    expect(await records.get('checks', 'reused')).toBeUndefined();
    expect(await records.list('checks')).toEqual([]);
    const again = await records.put('checks', 'reused', { owner: 'second' }, { version: 0 });
    expect(again.version).toBeGreaterThan(old.version);
    expect(await rejection(records.put('checks', 'reused', { owner: 'stale writer' }, { version: old.version }))).toMatchObject({ expected: old.version, found: again.version });
    expect((await records.get('checks', 'reused'))?.value).toEqual({ owner: 'second' });
  });

  it('let exactly one of two writers racing on the same version win', async () => {
    const open = await backend.storage();
    // Two connections where the store has them (two instances sharing PostgreSQL, say).
    const [one, two] = [await open('month_end_close'), await open('month_end_close')];
    await one.put('schedules', 'nightly', { due: '2026-11-27T02:00:00Z' });
    const outcomes = await Promise.allSettled([one.put('schedules', 'nightly', { ranBy: 'one' }, { version: 1 }), two.put('schedules', 'nightly', { ranBy: 'two' }, { version: 1 })]);
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const lost = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(RecordConflictError.isInstance(lost.reason)).toBe(true);
    const winner = (outcomes.find((outcome) => outcome.status === 'fulfilled') as PromiseFulfilledResult<{ value: unknown }>).value.value;
    expect((await one.get('schedules', 'nightly'))).toMatchObject({ version: 2, value: winner });
  });

  it('list a collection in bytewise order of the ids, by prefix and in pages', async () => {
    const records = await (await backend.storage())('month_end_close');
    for (const id of ['fi-vs-bpc/3000', 'fi-vs-bpc/1000', 'Zebra', 'fi-vs-bpc/2000', 'mart-vs-bpc/1000', 'éclair']) await records.put('checks', id, { id });
    await records.put('runs', 'fi-vs-bpc/1000', {});
    expect((await records.list('checks')).map((record) => record.id)).toEqual(['Zebra', 'fi-vs-bpc/1000', 'fi-vs-bpc/2000', 'fi-vs-bpc/3000', 'mart-vs-bpc/1000', 'éclair']);
    expect((await records.list('checks', { prefix: 'fi-vs-bpc/' })).map((record) => record.id)).toEqual(['fi-vs-bpc/1000', 'fi-vs-bpc/2000', 'fi-vs-bpc/3000']);
    const page = await records.list('checks', { prefix: 'fi-vs-bpc/', limit: 2 });
    expect(page.map((record) => record.id)).toEqual(['fi-vs-bpc/1000', 'fi-vs-bpc/2000']);
    expect((await records.list('checks', { prefix: 'fi-vs-bpc/', after: page.at(-1)!.id, limit: 2 })).map((record) => record.id)).toEqual(['fi-vs-bpc/3000']);
    expect(await records.list('checks', { prefix: 'nothing' })).toEqual([]);
  });

  it('refuse bad names, values and options with a message naming them', async () => {
    const records = await (await backend.storage())('month_end_close');
    const refused = async (pending: Promise<unknown>, message: RegExp) => {
      const error = await rejection(pending);
      expect(ToolError.isInstance(error) && error.code).toBe('invalid_value');
      expect((error as Error).message).toMatch(message);
    };
    await refused(records.put('Checks!', 'a', {}), /'Checks!' is not a collection name/);
    await refused(records.get('checks', ''), /A record id is 1 to 200 characters/);
    await refused(records.put('checks', 'line\nbreak', {}), /without control characters/);
    await refused(records.put('checks', 'x'.repeat(201), {}), /1 to 200 characters without control characters \(well-formed Unicode\); got 201 characters/);
    await refused(records.put('checks', 'a', undefined), /has no JSON value/);
    await refused(records.put('checks', 'a', 'x'.repeat(1_000_001)), /at most 1000000/);
    await refused(records.put('checks', 'a', {}, { version: -1 }), /whole number from 0/);
    await refused(records.list('checks', { limit: 0 }), /from 1 to 1000; got 0/);
    await refused(records.put('checks', 'broken \ud800 surrogate', {}), /well-formed Unicode/);
    await refused(records.list('checks', { prefix: 7 as unknown as string }), /prefix is text/);
    await refused(records.put('checks', 'a', {}, { version: 2 ** 31 }), /to 2147483647/);
    expect(await records.list('checks')).toEqual([]);
  });
});
