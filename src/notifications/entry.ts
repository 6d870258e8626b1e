/**
 * What the outbox stores per notification, where, and the checks on what a sender passes in.
 * Two collections, so finding what is due never reads the past: `outbox` holds only what is
 * still to deliver (a small set), `finished` keeps each key that was delivered or given up on,
 * for ever (the proof that a key is not sent again), read one id at a time. Moving an entry
 * writes `finished` first and then deletes it from `outbox`: a crash between the two leaves an
 * `outbox` entry whose `finished` twin exists, and whoever claims it next drops it unsent.
 */
import { createHash } from 'node:crypto';
import { ToolError } from '../errors/index.ts';

/** What a sender hands the outbox (Outbox.send). */
export interface Notification {
  /** Idempotency key chosen by the sender, e.g. `close:check-fi-bpc:2026-11:break`: a key is delivered at most once, ever (a second send with the same key is ignored). Any text, max 200 chars. */
  key: string;
  /** Short machine name, e.g. `check.status_changed`. */
  event: string;
  /** One or two lines for people (Slack shows it). */
  text: string;
  /** Any JSON for machines. */
  data?: unknown;
}

export type EntryState = 'pending' | 'sending' | 'delivered' | 'failed';

/** One notification as stored (times are ISO 8601). */
export interface OutboxEntry {
  source: string;
  key: string;
  event: string;
  text: string;
  /** Left out of `finished` records: they prove a key was sent, they are not an archive. */
  data?: unknown;
  state: EntryState;
  /** Claims so far: each claim is one attempt, also when its instance died mid-send. */
  attempts: number;
  next_attempt_at: string;
  /** While `sending`: until when the claiming instance holds it. */
  lease_until?: string;
  last_error?: string;
  created_at: string;
  delivered_at?: string;
  failed_at?: string;
  /** Targets (by targetId, never the URL) that answered 2xx, or refused the message for good. */
  targets?: Record<string, 'delivered' | 'rejected'>;
}

/** Still to deliver: pending, or being sent under a lease. */
export const QUEUE = 'outbox';
/** Delivered or failed: kept, so the key is never sent again. */
export const FINISHED = 'finished';

const MAX_KEY_CHARACTERS = 200;
const MAX_TEXT_CHARACTERS = 4_000;
const EVENT = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,99}$/;
const SOURCE = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/;

/**
 * The record id of a notification: a hash of its source and key, so ids stay short and any key is safe.
 * @example
 * entryId('month_end_close', 'close:check-fi-bpc:2026-11:break') // 32 hex digits
 */
export function entryId(source: string, key: string): string {
  return createHash('sha256').update(JSON.stringify([source, key])).digest('hex').slice(0, 32);
}

/**
 * Checks what a sender passed in.
 * @throws ToolError `invalid_value` naming the field and what is wrong.
 * @example
 * checkNotification('month_end_close', { key: 'k1', event: 'check.status_changed', text: 'FI vs BPC: break' }); // fine
 */
export function checkNotification(source: string, notification: Notification): void {
  const fail = (message: string) => {
    throw new ToolError('invalid_value', `A notification ${message}.`);
  };
  if (typeof source !== 'string' || !SOURCE.test(source)) fail(`source is a skill name (letters, digits, '.', '_', '-', '/', at most 100); got ${describe(source)}`);
  if (notification === null || typeof notification !== 'object') fail(`is an object { key, event, text, data? }; got ${describe(notification)}`);
  const { key, event, text } = notification;
  // eslint-disable-next-line no-control-regex
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_CHARACTERS || /[\u0000-\u001f\u007f]/.test(key)) {
    fail(`key is 1 to ${MAX_KEY_CHARACTERS} characters without control characters; got ${describe(key)}`);
  }
  if (typeof event !== 'string' || !EVENT.test(event)) fail(`event is a short machine name such as check.status_changed (letters, digits, '.', '_', ':', '-', at most 100); got ${describe(event)}`);
  if (typeof text !== 'string' || text.trim() === '' || text.length > MAX_TEXT_CHARACTERS) fail(`text is 1 to ${MAX_TEXT_CHARACTERS} characters for people to read; got ${describe(text)}`);
}

/** What a bad value was, without echoing a long one. */
function describe(value: unknown): string {
  if (typeof value === 'string') return value.length <= 60 ? JSON.stringify(value) : `${value.length} characters`;
  return value === null ? 'null' : typeof value;
}
