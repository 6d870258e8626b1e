/**
 * The outbox (src/notifications/outbox.ts) against a real HTTP receiver, with entries in a real
 * SQLite application database and a clock the test moves: one signed JSON message per key; a
 * 5xx retried after the backoff (and after Retry-After); a 4xx given up on at once; an
 * unreachable receiver retried until the attempts run out; a target that took a message not
 * sent it again while another is retried; nothing stored without a webhook; and no secret, URL
 * path or query in a log line. Several instances: outboxInstances.test.ts.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../src/errors/index.ts';
import { silentLogger, type Logger } from '../../src/logging/logger.ts';
import { Outbox, type OutboxEntry, type WebhookTarget } from '../../src/notifications/outbox.ts';
import type { SkillRecords } from '../../src/skills/sdk/records.ts';
import type { SessionStore } from '../../src/sessions/sessionStore.ts';
import { openSqliteStore } from '../../src/sessions/sqliteStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { capturedLogger, startReceiver, unreachableUrl, verified, type Answer, type Receiver } from './support/receiver.ts';

const SECRET = 'whsec-0123456789abcdef';
const start = Date.parse('2026-11-30T18:00:00Z');
const change = { key: 'close:check-fi-bpc:2026-11:break', event: 'check.status_changed', text: 'FI vs BPC (2026-11): tie → break, difference 1,200.50 EUR', data: { check: 'check-fi-bpc', from: 'tie', to: 'break', difference: 1200.5 } };

const stores: SessionStore[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const receiver of receivers.splice(0)) await receiver.close();
});

function sqliteRecords(file = path.join(temporaryDirectory('outbox-'), 'app.db')): SkillRecords {
  const store = openSqliteStore({ path: file, ttlMs: 0, expiryIntervalMs: 0, healthCheckIntervalMs: 0 });
  stores.push(store);
  return store.skillRecords('notifications/');
}

async function receiver(...answers: Answer[]): Promise<Receiver> {
  const started = await startReceiver(answers);
  receivers.push(started);
  return started;
}

function outbox(options: { webhooks: WebhookTarget[]; records?: SkillRecords; clock?: { now: number }; logger?: Logger; maxAttempts?: number }) {
  const clock = options.clock ?? { now: start };
  const records = options.records ?? sqliteRecords();
  return { clock, records, outbox: new Outbox({ records, webhooks: options.webhooks, logger: options.logger ?? silentLogger(), now: () => clock.now, maxAttempts: options.maxAttempts }) };
}

const queued = (records: SkillRecords) => records.list<OutboxEntry>('outbox');

describe('Outbox', () => {
  it('posts one signed JSON message per key, with the headers a receiver needs', async () => {
    const hook = await receiver();
    const { outbox: box, clock, records } = outbox({ webhooks: [{ url: hook.url, secret: SECRET }] });
    expect(await box.send('month_end_close', change)).toEqual({ queued: true });
    expect(await box.send('month_end_close', { ...change, text: 'the same key again' })).toEqual({ queued: false, reason: 'duplicate' });
    expect(await box.send('month_end_close', { ...change, key: 'close:check-fi-bpc:2026-11:tie', text: 'FI vs BPC (2026-11): break → tie' })).toEqual({ queued: true });
    // Another skill's key is its own.
    expect(await box.send('other_skill', change)).toEqual({ queued: true });

    expect(await box.deliverDue()).toBe(3);
    expect(await box.deliverDue()).toBe(0);
    expect(hook.requests).toHaveLength(3);
    const first = hook.requests.find((request) => request.headers['x-analyst-delivery'] === change.key && JSON.parse(request.body).source === 'month_end_close')!;
    expect(first).toMatchObject({ method: 'POST', path: '/services/T0KEN-IN-PATH?token=query-secret' });
    expect(first.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'analyst-agent', 'x-analyst-timestamp': String(start / 1000) });
    expect(JSON.parse(first.body)).toEqual({ id: change.key, event: 'check.status_changed', source: 'month_end_close', created_at: '2026-11-30T18:00:00.000Z', text: change.text, data: change.data });
    for (const request of hook.requests) expect(verified(request, SECRET, clock.now)).toBe(true);
    expect(verified({ ...first, body: first.body.replace('1200.5', '1.5') }, SECRET, clock.now)).toBe(false);
    expect(verified(first, 'another-secret-of-16', clock.now)).toBe(false);

    // Delivered keys are kept (the proof), off the queue: a later send of one is still a duplicate.
    expect(await queued(records)).toEqual([]);
    expect((await records.list<OutboxEntry>('finished')).map((record) => record.value.state)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(await box.send('month_end_close', change)).toEqual({ queued: false, reason: 'duplicate' });
    expect(await box.deliverDue()).toBe(0);
    expect(hook.requests).toHaveLength(3);
  });

  it('retries a 500 after the backoff, then delivers; honours Retry-After', async () => {
    const hook = await receiver(500, { status: 429, headers: { 'retry-after': '120' } }, 200);
    const { outbox: box, clock, records } = outbox({ webhooks: [{ url: hook.url, secret: SECRET }] });
    await box.send('month_end_close', change);
    expect(await box.deliverDue()).toBe(0);
    const [afterFirst] = await queued(records);
    expect(afterFirst?.value).toMatchObject({ state: 'pending', attempts: 1, last_error: expect.stringContaining('HTTP 500 from http://127.0.0.1:') });
    const wait = Date.parse(afterFirst!.value.next_attempt_at) - clock.now;
    expect(wait).toBeGreaterThanOrEqual(5_000);
    expect(wait).toBeLessThanOrEqual(5_500);

    clock.now += 4_000; // not due yet
    expect(await box.deliverDue()).toBe(0);
    expect(hook.requests).toHaveLength(1);
    clock.now += 2_000;
    expect(await box.deliverDue()).toBe(0); // 429, Retry-After: 120
    const [afterSecond] = await queued(records);
    expect(Date.parse(afterSecond!.value.next_attempt_at) - clock.now).toBeGreaterThanOrEqual(120_000);
    clock.now += 60_000;
    expect(await box.deliverDue()).toBe(0);
    clock.now += 61_000;
    expect(await box.deliverDue()).toBe(1);
    expect(hook.requests.map((request) => request.headers['x-analyst-delivery'])).toEqual([change.key, change.key, change.key]);
    expect((await records.get<OutboxEntry>('finished', afterFirst!.id))?.value).toMatchObject({ state: 'delivered', attempts: 3, delivered_at: new Date(clock.now).toISOString() });
  });

  it('gives up at once on a 400 (a misconfigured receiver), logging its status, and keeps the key', async () => {
    const hook = await receiver(400);
    const { logger, lines } = capturedLogger();
    const { outbox: box, clock, records } = outbox({ webhooks: [{ url: hook.url, secret: SECRET }], logger });
    await box.send('month_end_close', change);
    expect(await box.deliverDue()).toBe(0);
    clock.now += 3_600_000;
    expect(await box.deliverDue()).toBe(0);
    expect(hook.requests).toHaveLength(1);
    expect(await queued(records)).toEqual([]);
    const [finished] = await records.list<OutboxEntry>('finished');
    expect(finished?.value).toMatchObject({ state: 'failed', attempts: 1, last_error: expect.stringContaining('HTTP 400') });
    expect(finished?.value.data).toBeUndefined();
    expect(lines.some((line) => JSON.parse(line).level === 50 && JSON.parse(line).status === 400)).toBe(true);
    expect(await box.send('month_end_close', change)).toEqual({ queued: false, reason: 'duplicate' });
    const logged = lines.join('\n');
    for (const secret of [SECRET, 'T0KEN-IN-PATH', 'query-secret']) expect(logged).not.toContain(secret);
  });

  it('retries an unreachable receiver with growing waits, then records it as failed', async () => {
    const { logger, lines } = capturedLogger();
    const url = `${await unreachableUrl()}/T0KEN-IN-PATH?token=query-secret`;
    const { outbox: box, clock, records } = outbox({ webhooks: [{ url, secret: SECRET }], logger, maxAttempts: 3 });
    await box.send('month_end_close', change);
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 2; attempt++) {
      expect(await box.deliverDue()).toBe(0);
      const [entry] = await queued(records);
      expect(entry?.value).toMatchObject({ state: 'pending', attempts: attempt, last_error: expect.stringContaining('could not be reached') });
      waits.push(Date.parse(entry!.value.next_attempt_at) - clock.now);
      clock.now = Date.parse(entry!.value.next_attempt_at);
    }
    expect(waits[1]!).toBeGreaterThan(waits[0]!);
    expect(await box.deliverDue()).toBe(0);
    expect(await queued(records)).toEqual([]);
    expect((await records.list<OutboxEntry>('finished'))[0]?.value).toMatchObject({ state: 'failed', attempts: 3 });
    expect(lines.some((line) => JSON.parse(line).level === 50 && /given up/.test(JSON.parse(line).msg))).toBe(true);
    const logged = lines.join('\n');
    for (const secret of [SECRET, 'T0KEN-IN-PATH', 'query-secret']) expect(logged).not.toContain(secret);
  });

  it('with two targets, does not send again to the one that took it while the other is retried', async () => {
    const [steady, flaky] = [await receiver(), await receiver(503)];
    const { outbox: box, clock } = outbox({ webhooks: [{ url: steady.url, secret: SECRET }, { url: flaky.url, secret: 'another-secret-0123' }] });
    await box.send('month_end_close', change);
    expect(await box.deliverDue()).toBe(0);
    clock.now += 60_000;
    expect(await box.deliverDue()).toBe(1);
    expect([steady.requests.length, flaky.requests.length]).toEqual([1, 2]);
    expect(verified(flaky.requests[1]!, 'another-secret-0123', clock.now)).toBe(true);
  });

  it('records a notification as failed when one target refused it, though the other took it on a retry', async () => {
    const [refusing, flaky] = [await receiver(404), await receiver(502)];
    const { outbox: box, clock, records } = outbox({ webhooks: [{ url: refusing.url, secret: SECRET }, { url: flaky.url, secret: SECRET }] });
    await box.send('month_end_close', change);
    expect(await box.deliverDue()).toBe(0);
    clock.now += 60_000;
    expect(await box.deliverDue()).toBe(0);
    expect([refusing.requests.length, flaky.requests.length]).toEqual([1, 2]);
    expect((await records.list<OutboxEntry>('finished'))[0]?.value).toMatchObject({ state: 'failed', attempts: 2, last_error: expect.stringContaining('HTTP 404') });
  });

  it('stores nothing and says so without a webhook', async () => {
    const { outbox: box, records } = outbox({ webhooks: [] });
    expect(await box.send('month_end_close', change)).toEqual({ queued: false, reason: 'no_webhook' });
    expect(await queued(records)).toEqual([]);
    expect(await box.deliverDue()).toBe(0);
  });

  it('refuses a bad notification with a message naming the field', async () => {
    const { outbox: box } = outbox({ webhooks: [{ url: 'http://127.0.0.1:9/hook', secret: SECRET }] });
    const refusal = (pending: Promise<unknown>) => pending.then(() => undefined, (error: unknown) => error);
    const tooLong = await refusal(box.send('month_end_close', { ...change, key: 'k'.repeat(201) }));
    expect(ToolError.isInstance(tooLong) && tooLong.message).toMatch(/key is 1 to 200 characters/);
    expect(String(await refusal(box.send('month_end_close', { ...change, event: 'status changed' })))).toMatch(/event is a short machine name.*"status changed"/);
    expect(String(await refusal(box.send('month_end_close', { ...change, text: ' ' })))).toMatch(/text is 1 to 4000 characters/);
    expect(String(await refusal(box.send('month_end_close', { ...change, data: { size: 10n } })))).toMatch(/cannot be stored as JSON/);
  });

  it('refuses a lease no longer than one request may take', () => {
    expect(() => new Outbox({ records: sqliteRecords(), webhooks: [], logger: silentLogger(), leaseMs: 10_000, requestTimeoutMs: 10_000 })).toThrow(/lease \(10000 ms\) must be longer than one webhook request/);
  });
});
