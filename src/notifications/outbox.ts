/**
 * Outbound notifications any skill may send (a check's status changed): queued in the
 * application database, then delivered to the configured webhooks by whichever instance claims
 * them first. So a notification survives a restart in the middle of a run, and instances
 * sharing a PostgreSQL APP_DB do not both send it. A claim is a write naming the version it
 * read, with a lease, as the scheduler's (schedules/scheduler.ts): of two instances writing one
 * version exactly one succeeds, and an entry whose lease ran out (its instance died) is claimed
 * again. How entries are stored, and why in two collections: entry.ts.
 *
 * The honest limit: an instance that dies after the receiver answered 2xx, before recording
 * it, leaves the entry to be claimed again, and the message is sent once more with the same
 * `x-analyst-delivery` id, by which receivers drop repeats (docs/notifications.md).
 */
import { ConfigurationError, RecordConflictError } from '../errors/index.ts';
import type { Logger } from '../logging/logger.ts';
import type { SkillRecord, SkillRecords } from '../skills/sdk/records.ts';
import { checkNotification, entryId, FINISHED, QUEUE, type Notification, type OutboxEntry } from './entry.ts';
import { postWebhook, retryDelay, shownTarget, targetId, type WebhookMessage, type WebhookTarget } from './webhook.ts';

export type { EntryState, Notification, OutboxEntry } from './entry.ts';
export type { WebhookTarget } from './webhook.ts';

export interface OutboxOptions {
  /** Where entries are kept: a namespace of their own (the service passes `skillRecords('notifications/')`). */
  records: SkillRecords;
  /** Every notification goes to each of these; none: nothing is queued. */
  webhooks: readonly WebhookTarget[];
  logger: Logger;
  now?: () => number;
  fetch?: typeof fetch;
  /** How long a claim holds without a write (default 30 s); longer than one request may take. */
  leaseMs?: number;
  /** Attempts before a notification is recorded as failed (default 10). */
  maxAttempts?: number;
  /** The most one request may take (default 10 s). */
  requestTimeoutMs?: number;
}

/** What send answers: `duplicate` when the key was queued before, `no_webhook` when none is configured. */
export interface SendResult {
  queued: boolean;
  reason?: 'duplicate' | 'no_webhook';
}

const PAGE = 1_000;
/** How long stop() waits for a delivery in flight; its lease covers the rest. */
const STOP_WAIT_MS = 5_000;
const iso = (time: number) => new Date(time).toISOString();

/**
 * The service's outbox.
 * @example
 * const outbox = new Outbox({ records: sessions.skillRecords('notifications/'), webhooks: config.notifications.webhooks, logger });
 * outbox.start(15_000);
 * await outbox.send('month_end_close', { key: 'close:fi-bpc:2026-11:break', event: 'check.status_changed', text: 'FI vs BPC: tie → break' });
 * await outbox.stop();
 */
export class Outbox {
  private readonly records: SkillRecords;
  private readonly webhooks: readonly WebhookTarget[];
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly fetch: typeof fetch;
  private readonly leaseMs: number;
  private readonly maxAttempts: number;
  private readonly requestTimeoutMs: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;
  private waiting: Promise<number> | undefined;
  private stopping = new AbortController();

  constructor(options: OutboxOptions) {
    this.records = options.records;
    this.webhooks = options.webhooks;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.fetch = options.fetch ?? fetch;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.maxAttempts = options.maxAttempts ?? 10;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    // A lease shorter than a request would let a second instance send what the first still sends.
    if (!(this.leaseMs > this.requestTimeoutMs)) throw new ConfigurationError(`The outbox's lease (${this.leaseMs} ms) must be longer than one webhook request may take (${this.requestTimeoutMs} ms).`);
    if (!Number.isInteger(this.maxAttempts) || this.maxAttempts < 1) throw new ConfigurationError(`The outbox's attempts must be a whole number of at least 1; got ${this.maxAttempts}.`);
  }

  /**
   * Queues the notification from `source` (a skill name); resolves { queued: false } when its key
   * was queued before (nothing new is sent). With no webhooks configured, { queued: false,
   * reason: 'no_webhook' } and nothing is stored. Once started, delivery begins right away.
   * @throws ToolError `invalid_value` for a bad key, event, text, or data that is not JSON.
   * @example
   * await outbox.send('month_end_close', { key: 'close:fi-bpc:2026-11:break', event: 'check.status_changed', text: 'FI vs BPC: tie → break', data: { difference: 1200.5 } });
   * // { queued: true }; the same again: { queued: false, reason: 'duplicate' }
   */
  async send(source: string, notification: Notification): Promise<SendResult> {
    checkNotification(source, notification);
    if (this.webhooks.length === 0) return { queued: false, reason: 'no_webhook' };
    const id = entryId(source, notification.key);
    if (await this.records.get(FINISHED, id)) return { queued: false, reason: 'duplicate' };
    const at = iso(this.now());
    const { key, event, text } = notification;
    const entry: OutboxEntry = { source, key, event, text, data: notification.data ?? null, state: 'pending', attempts: 0, next_attempt_at: at, created_at: at, targets: {} };
    try {
      await this.records.put(QUEUE, id, entry, { version: 0 });
    } catch (error) {
      if (RecordConflictError.isInstance(error)) return { queued: false, reason: 'duplicate' };
      throw error;
    }
    this.logger.debug({ source, notification: key, event }, 'notification queued');
    if (this.timer) this.deliverInBackground();
    return { queued: true };
  }

  /**
   * Delivers what is due now, claiming each entry with a lease so instances sharing the database
   * never both send it; one pass at a time (a call during a pass runs one more pass after it).
   * @returns the number of notifications delivered (to every target).
   * @example
   * const delivered = await outbox.deliverDue();
   */
  deliverDue(): Promise<number> {
    if (!this.running) {
      this.running = this.pass().finally(() => (this.running = undefined));
      return this.running;
    }
    this.waiting ??= this.running
      .catch(() => 0)
      .then(() => {
        this.waiting = undefined;
        return this.deliverDue();
      });
    return this.waiting;
  }

  /**
   * Delivers every `intervalMs` (the timer does not keep the process alive), now, and right after each send.
   * @example
   * outbox.start(15_000);
   */
  start(intervalMs: number): void {
    if (this.timer) return;
    if (this.stopping.signal.aborted) this.stopping = new AbortController();
    this.timer = setInterval(() => this.deliverInBackground(), intervalMs);
    this.timer.unref();
    this.deliverInBackground();
  }

  /**
   * Stops delivering: aborts requests in flight (their entries are released to be sent again)
   * and waits for the pass in progress, at most 5 s (past that, its leases run out).
   * @example
   * await outbox.stop();
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    this.stopping.abort();
    const inFlight = this.waiting ?? this.running;
    if (!inFlight) return;
    let timeout: NodeJS.Timeout | undefined;
    const bound = new Promise((resolve) => (timeout = setTimeout(resolve, STOP_WAIT_MS)).unref());
    await Promise.race([inFlight.catch(() => undefined), bound]);
    clearTimeout(timeout);
  }

  private deliverInBackground(): void {
    this.deliverDue().catch((error: unknown) => this.logger.error({ err: error }, 'the outbox could not look for notifications to deliver'));
  }

  /** One look at the queue, page by page (it holds only what is undelivered). */
  private async pass(): Promise<number> {
    // Without a webhook, what was queued under another configuration waits for one.
    if (this.webhooks.length === 0) return 0;
    let delivered = 0;
    let after: string | undefined;
    for (;;) {
      if (this.stopping.signal.aborted) return delivered;
      const page = await this.records.list<OutboxEntry>(QUEUE, { limit: PAGE, ...(after === undefined ? {} : { after }) });
      for (const record of page) {
        if (this.stopping.signal.aborted) return delivered;
        if (!this.isDue(record.value)) continue;
        try {
          if (await this.deliver(record)) delivered++;
        } catch (error) {
          this.logger.error({ err: error, ...about(record.value) }, 'a notification could not be delivered or recorded; it is tried again');
        }
      }
      if (page.length < PAGE) return delivered;
      after = page.at(-1)!.id;
    }
  }

  private isDue(entry: OutboxEntry): boolean {
    const now = this.now();
    if (entry.state === 'sending') return entry.lease_until === undefined || Date.parse(entry.lease_until) <= now;
    return Date.parse(entry.next_attempt_at) <= now;
  }

  /** Claims the entry and sends it to each target it has not reached; true when it reached all. */
  private async deliver(record: SkillRecord<OutboxEntry>): Promise<boolean> {
    const entry = record.value;
    let claim = await this.write({ ...entry, state: 'sending', attempts: entry.attempts + 1, lease_until: iso(this.now() + this.leaseMs) }, record, false);
    if (!claim) return false; // another instance claimed it first
    if (await this.records.get(FINISHED, record.id)) {
      // Finished already (its instance died before taking it off the queue, or the key was sent again meanwhile).
      await this.remove(claim);
      return false;
    }
    if (claim.value.attempts > this.maxAttempts) {
      // Claimed that often without an outcome: the instances sending it kept stopping mid-send.
      return this.finish(claim, claim.value.targets ?? {}, 'failed', `no outcome recorded in ${this.maxAttempts} attempts (${entry.last_error ?? 'the instances sending it stopped'})`);
    }
    const targets = { ...(claim.value.targets ?? {}) };
    const message = messageOf(claim.value);
    let retry: { error: string; retryAfterMs?: number } | undefined;
    const refusals: string[] = [];
    for (const target of this.webhooks) {
      const id = targetId(target.url);
      if (targets[id]) continue;
      const outcome = await postWebhook(target, message, { fetch: this.fetch, now: this.now, timeoutMs: this.requestTimeoutMs, signal: this.stopping.signal });
      if (outcome.kind === 'interrupted') {
        // Stopping: hand it back at once rather than leave it until the lease runs out.
        await this.write({ ...claim.value, targets, state: 'pending', lease_until: undefined, next_attempt_at: iso(this.now()), last_error: 'interrupted: the instance sending it stopped' }, claim);
        return false;
      }
      if (outcome.kind === 'delivered') {
        targets[id] = 'delivered';
        // Recorded at once (which renews the lease): retrying another target does not send this one again.
        claim = await this.write({ ...claim.value, targets, lease_until: iso(this.now() + this.leaseMs) }, claim);
        if (!claim) return false;
      } else if (outcome.kind === 'rejected') {
        targets[id] = 'rejected';
        refusals.push(outcome.error);
        this.logger.error({ ...about(entry), target: shownTarget(target.url), status: outcome.status }, `a webhook refused a notification; it is not sent there again: ${outcome.error}`);
      } else {
        retry = { error: retry ? `${retry.error}; ${outcome.error}` : outcome.error, retryAfterMs: Math.max(retry?.retryAfterMs ?? 0, outcome.retryAfterMs ?? 0) };
      }
    }
    const attempts = claim.value.attempts;
    if (retry && attempts < this.maxAttempts) {
      const delay = retryDelay(attempts, retry.retryAfterMs);
      this.logger.warn({ ...about(entry), attempts, retry_in_ms: delay }, `a notification was not delivered; it is tried again: ${retry.error}`);
      await this.write({ ...claim.value, targets, state: 'pending', lease_until: undefined, next_attempt_at: iso(this.now() + delay), last_error: [...refusals, retry.error].join('; ') }, claim);
      return false;
    }
    if (retry) return this.finish(claim, targets, 'failed', `${retry.error} (after ${attempts} attempts)`);
    // A target may have refused it in an earlier attempt, while another was retried.
    const refused = this.webhooks.some((target) => targets[targetId(target.url)] === 'rejected');
    if (refused) return this.finish(claim, targets, 'failed', refusals.join('; ') || `a webhook refused it (${entry.last_error ?? 'see the earlier log lines'})`);
    return this.finish(claim, targets, 'delivered');
  }

  /** Moves the entry to `finished` (first: the proof the key was handled), then off the queue. */
  private async finish(claim: SkillRecord<OutboxEntry>, targets: Record<string, 'delivered' | 'rejected'>, state: 'delivered' | 'failed', error?: string): Promise<boolean> {
    const at = iso(this.now());
    const { data: _data, lease_until: _lease, ...kept } = claim.value;
    const final: OutboxEntry = { ...kept, targets, state, ...(state === 'delivered' ? { delivered_at: at } : { failed_at: at, last_error: error }) };
    try {
      await this.records.put(FINISHED, claim.id, final, { version: 0 });
    } catch (conflict) {
      if (!RecordConflictError.isInstance(conflict)) throw conflict;
      // Another instance finished it after this one's lease ran out: it was sent twice.
      this.logger.warn(about(claim.value), 'a notification was finished by another instance while this one still held it');
    }
    await this.remove(claim);
    if (state === 'failed') this.logger.error({ ...about(claim.value), attempts: claim.value.attempts }, `a notification was given up on: ${error}`);
    else this.logger.info({ ...about(claim.value), attempts: claim.value.attempts }, 'notification delivered');
    return state === 'delivered';
  }

  private async remove(claim: SkillRecord<OutboxEntry>): Promise<void> {
    try {
      await this.records.delete(QUEUE, claim.id, { version: claim.version });
    } catch (conflict) {
      // Someone claimed it since: they find its `finished` record and drop it.
      if (!RecordConflictError.isInstance(conflict)) throw conflict;
    }
  }

  /**
   * Writes the entry if it is still at the version read; undefined when another instance wrote
   * first (it holds the entry now). `held`: this instance had claimed it, so losing it is news.
   */
  private async write(entry: OutboxEntry, read: SkillRecord<OutboxEntry>, held = true): Promise<SkillRecord<OutboxEntry> | undefined> {
    try {
      return await this.records.put(QUEUE, read.id, entry, { version: read.version });
    } catch (error) {
      if (!RecordConflictError.isInstance(error)) throw error;
      if (held) this.logger.warn(about(entry), "a notification's claim ran out and another instance took it over");
      return undefined;
    }
  }
}

/** The fields a log line names a notification by (never a URL or a secret). */
function about(entry: OutboxEntry): { source: string; notification: string; event: string } {
  return { source: entry.source, notification: entry.key, event: entry.event };
}

function messageOf(entry: OutboxEntry): WebhookMessage {
  return { id: entry.key, event: entry.event, source: entry.source, created_at: entry.created_at, text: entry.text, data: entry.data ?? null };
}
