/**
 * The outbox (src/notifications/outbox.ts) run by several instances on one application
 * database, SQLite file and PostgreSQL: every instance sends the same notifications and
 * delivers at the same moment, and each reaches the receiver exactly once; an entry claimed by
 * an instance that died mid-send is delivered by another once the lease ran out (on a clock
 * the test moves), and the dead instance coming back changes nothing; started, the outbox
 * delivers right after a send, and stop() hands a request in flight back at once.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/logger.ts';
import { Outbox, type OutboxEntry, type WebhookTarget } from '../../src/notifications/outbox.ts';
import type { SkillRecords } from '../../src/skills/sdk/records.ts';
import { openPostgresStore } from '../../src/sessions/postgresStore.ts';
import type { SessionStore } from '../../src/sessions/sessionStore.ts';
import { openSqliteStore } from '../../src/sessions/sqliteStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { postgresUrls } from '../support/engineServers.ts';
import { until } from '../support/until.ts';
import { scratchDatabase } from '../sessions/support/postgresDatabase.ts';
import { startReceiver, verified, type Receiver } from './support/receiver.ts';

const SECRET = 'whsec-0123456789abcdef';
const LEASE_MS = 30_000;
const start = Date.parse('2026-11-30T18:00:00Z');
const change = { key: 'close:check-fi-bpc:2026-11:break', event: 'check.status_changed', text: 'FI vs BPC (2026-11): tie → break' };

const stores: SessionStore[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One application database; `connect` opens another connection to it, as another instance does. */
interface Backend {
  name: string;
  database(): Promise<{ connect(): Promise<SkillRecords> }>;
}

const backends: Backend[] = [
  {
    name: 'SQLite',
    database: async () => {
      const file = path.join(temporaryDirectory('outbox-instances-'), 'app.db');
      return {
        connect: async () => {
          const store = openSqliteStore({ path: file, ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 });
          stores.push(store);
          return store.skillRecords('notifications/');
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    database: async () => {
      const database = await scratchDatabase((await postgresUrls()).adminUrl, 'outbox');
      cleanups.push(database.drop);
      return {
        connect: async () => {
          const store = await openPostgresStore({ url: database.url, ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 });
          stores.push(store);
          return store.skillRecords('notifications/');
        },
      };
    },
  },
];

async function receiver(): Promise<Receiver> {
  const started = await startReceiver();
  cleanups.push(started.close);
  return started;
}

/** A fetch that never answers until the test says so: the request of an instance that died mid-send. */
function hangingFetch() {
  let reached!: () => void;
  let fail!: (error: Error) => void;
  const called = new Promise<void>((resolve) => (reached = resolve));
  const fetch: typeof globalThis.fetch = () => {
    reached();
    return new Promise<Response>((_resolve, reject) => (fail = reject));
  };
  return { fetch, called, fail: (error: Error) => fail(error) };
}

describe.each(backends)('Outbox instances sharing one $name database', (backend) => {
  it('delivers each notification exactly once when every instance sends it and delivers at the same moment', async () => {
    const hook = await receiver();
    const database = await backend.database();
    const clock = { now: start };
    const webhooks: WebhookTarget[] = [{ url: hook.url, secret: SECRET }];
    const instances = await Promise.all([1, 2, 3].map(async () => new Outbox({ records: await database.connect(), webhooks, logger: silentLogger(), now: () => clock.now })));
    const keys = Array.from({ length: 12 }, (_, index) => `close:check-${index}:2026-11:break`);
    // Every instance noticed the same status changes.
    const sent = await Promise.all(instances.flatMap((instance) => keys.map((key) => instance.send('month_end_close', { ...change, key }))));
    expect(sent.filter((result) => result.queued)).toHaveLength(keys.length);
    expect(sent.filter((result) => !result.queued).every((result) => result.reason === 'duplicate')).toBe(true);

    const delivered = await Promise.all(instances.map((instance) => instance.deliverDue()));
    expect(delivered.reduce((sum, count) => sum + count, 0)).toBe(keys.length);
    expect(await Promise.all(instances.map((instance) => instance.deliverDue()))).toEqual([0, 0, 0]);
    expect(hook.requests.map((request) => request.headers['x-analyst-delivery']).sort()).toEqual([...keys].sort());
    for (const request of hook.requests) expect(verified(request, SECRET, clock.now)).toBe(true);
  });

  it('delivers what a dead instance had claimed once its lease ran out; the dead instance coming back changes nothing', async () => {
    const hook = await receiver();
    const database = await backend.database();
    const clock = { now: start };
    const webhooks: WebhookTarget[] = [{ url: hook.url, secret: SECRET }];
    const dead = hangingFetch();
    const dying = new Outbox({ records: await database.connect(), webhooks, logger: silentLogger(), now: () => clock.now, fetch: dead.fetch, leaseMs: LEASE_MS });
    await dying.send('month_end_close', change);
    const dyingPass = dying.deliverDue();
    await dead.called;

    // Another instance, or this one restarted: the entry is claimed, so it waits for the lease.
    const records = await database.connect();
    const restarted = new Outbox({ records, webhooks, logger: silentLogger(), now: () => clock.now, leaseMs: LEASE_MS });
    expect((await records.list<OutboxEntry>('outbox'))[0]?.value).toMatchObject({ state: 'sending', attempts: 1, lease_until: new Date(start + LEASE_MS).toISOString() });
    expect(await restarted.deliverDue()).toBe(0);
    expect(hook.requests).toEqual([]);
    clock.now += LEASE_MS;
    expect(await restarted.deliverDue()).toBe(1);
    expect(hook.requests).toHaveLength(1);

    // The first instance's request ends at last: its claim is gone, so it records nothing and sends nothing more.
    dead.fail(new Error('socket hang up'));
    expect(await dyingPass).toBe(0);
    expect(await restarted.deliverDue()).toBe(0);
    expect(await dying.deliverDue()).toBe(0);
    expect(hook.requests).toHaveLength(1);
    expect(await records.list('outbox')).toEqual([]);
    expect((await records.list<OutboxEntry>('finished'))[0]?.value).toMatchObject({ state: 'delivered', attempts: 2 });
    await dying.stop();
  });
});

describe('Outbox started', () => {
  it('delivers right after a send, and stop() hands a request in flight back at once', async () => {
    const hook = await receiver();
    const records = await (await backends[0]!.database()).connect();
    const clock = { now: start };
    const webhooks: WebhookTarget[] = [{ url: hook.url, secret: SECRET }];
    const running = new Outbox({ records, webhooks, logger: silentLogger(), now: () => clock.now });
    running.start(3_600_000);
    await running.send('month_end_close', change);
    await until(async () => hook.requests.length === 1 && (await records.list('outbox')).length === 0, 10_000, 'the delivery right after the send');
    await running.stop();

    // A request that has no answer yet when the instance stops is aborted and handed back, due at once.
    let reached!: () => void;
    const called = new Promise<void>((resolve) => (reached = resolve));
    const waitsForAnswer: typeof fetch = (_url, init) => {
      reached();
      return new Promise((_resolve, reject) => init!.signal!.addEventListener('abort', () => reject(init!.signal!.reason)));
    };
    const stopping = new Outbox({ records, webhooks, logger: silentLogger(), now: () => clock.now, fetch: waitsForAnswer });
    stopping.start(3_600_000);
    await stopping.send('month_end_close', { ...change, key: 'close:check-fi-bpc:2026-11:tie' });
    await called;
    await stopping.stop();
    expect((await records.list<OutboxEntry>('outbox'))[0]?.value).toMatchObject({ state: 'pending', attempts: 1, next_attempt_at: new Date(clock.now).toISOString(), last_error: expect.stringContaining('interrupted') });
    expect(await running.deliverDue()).toBe(0); // stopped instances deliver nothing
    const next = new Outbox({ records, webhooks, logger: silentLogger(), now: () => clock.now });
    expect(await next.deliverDue()).toBe(1);
    expect(hook.requests.map((request) => request.headers['x-analyst-delivery'])).toEqual([change.key, 'close:check-fi-bpc:2026-11:tie']);
  });
});
