/**
 * One webhook request: the JSON body, its HMAC signature, and what the receiver's answer means
 * (delivered, try again later, or refused for good). Kept apart from the outbox, which decides
 * what is due and which instance sends it, so the wire format a receiver checks sits in one
 * place, next to docs/notifications.md. URLs are shown only as scheme and host: a chat
 * webhook (Slack's, for one) carries its token in the path.
 */
import { createHash, createHmac } from 'node:crypto';

/** Where notifications go: an http(s) URL and the secret its messages are signed with. */
export interface WebhookTarget {
  url: string;
  secret: string;
}

/** The JSON body of a webhook request. `text` at the top level is what Slack shows. */
export interface WebhookMessage {
  /** The sender's idempotency key (the same as the `x-analyst-delivery` header). */
  id: string;
  event: string;
  source: string;
  created_at: string;
  text: string;
  data: unknown;
}

/** How one request went: `retry` for network errors, timeouts, 408, 429 and 5xx; `rejected` for other answers. */
export type PostOutcome =
  | { kind: 'delivered'; status: number }
  | { kind: 'retry'; error: string; retryAfterMs?: number }
  | { kind: 'rejected'; error: string; status: number }
  | { kind: 'interrupted' };

const FIRST_RETRY_MS = 5_000;
const LONGEST_RETRY_MS = 10 * 60_000;
/** A receiver asking for more than this (Retry-After) is asked again after this. */
const LONGEST_RETRY_AFTER_MS = 60 * 60_000;

/**
 * The signature header's value: HMAC-SHA256 of `<timestamp>.<body>` with the target's secret.
 * @example
 * signature('a-secret-of-16-chars', 1795000000, '{"id":"k"}') // 'sha256=5b1c…'
 */
export function signature(secret: string, timestampSeconds: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex')}`;
}

/**
 * A short, stable name for a target, to record which targets a notification reached without
 * storing the URL (which may hold a token).
 * @example
 * targetId('https://hooks.example.com/analyst') // 'c0ffee…' (16 hex digits)
 */
export function targetId(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 16);
}

/**
 * A target as logs and stored errors show it: scheme, host and port only.
 * @example
 * shownTarget('https://hooks.slack.com/services/T0/B0/token?x=1') // 'https://hooks.slack.com'
 */
export function shownTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return '(an invalid URL)';
  }
}

/**
 * How long to wait before attempt `failures + 1`: 5 s, 10 s, 20 s … at most 10 min, each up to
 * 10% longer (so instances retrying together spread out), or longer when the receiver said so.
 * @example
 * retryDelay(1) // 5,000 to 5,500
 * retryDelay(2, 120_000) // 120,000 (Retry-After: 120)
 */
export function retryDelay(failures: number, retryAfterMs?: number, random: () => number = Math.random): number {
  const backoff = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, failures - 1), LONGEST_RETRY_MS) * (1 + random() / 10);
  return Math.round(Math.max(backoff, Math.min(retryAfterMs ?? 0, LONGEST_RETRY_AFTER_MS)));
}

/**
 * A Retry-After header in ms from now (seconds, or an HTTP date), or undefined.
 * @example
 * retryAfterMs('120', Date.now()) // 120000
 */
export function retryAfterMs(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * POSTs the message to the target, signed, and tells what the answer means. Never throws for
 * what the receiver or the network does; `interrupted` when `signal` (the outbox stopping) aborted it.
 * @example
 * const outcome = await postWebhook(target, message, { fetch, now: Date.now, timeoutMs: 10_000, signal });
 * if (outcome.kind === 'retry') console.log(outcome.error); // 'HTTP 503 from https://hooks.example.com'
 */
export async function postWebhook(
  target: WebhookTarget,
  message: WebhookMessage,
  options: { fetch: typeof fetch; now: () => number; timeoutMs: number; signal: AbortSignal },
): Promise<PostOutcome> {
  const body = JSON.stringify(message);
  const timestamp = Math.floor(options.now() / 1000);
  const shown = shownTarget(target.url);
  let response: Response;
  try {
    response = await options.fetch(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'analyst-agent',
        'x-analyst-delivery': message.id,
        'x-analyst-timestamp': String(timestamp),
        'x-analyst-signature': signature(target.secret, timestamp, body),
      },
      body,
      // A redirect would re-send a signed message to an address nobody configured.
      redirect: 'manual',
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]),
    });
  } catch (error) {
    if (options.signal.aborted) return { kind: 'interrupted' };
    if ((error as Error)?.name === 'TimeoutError') return { kind: 'retry', error: `no answer from ${shown} within ${options.timeoutMs} ms` };
    return { kind: 'retry', error: `${shown} could not be reached: ${networkProblem(error)}` };
  }
  // The answer's body is not needed; reading it to the end frees the connection.
  await response.arrayBuffer().catch(() => undefined);
  const status = response.status;
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 408 || status === 429 || status >= 500) {
    const after = retryAfterMs(response.headers.get('retry-after'), options.now());
    return { kind: 'retry', error: `HTTP ${status} from ${shown}`, ...(after === undefined ? {} : { retryAfterMs: after }) };
  }
  if (status >= 300 && status < 400) return { kind: 'rejected', status, error: `HTTP ${status} (a redirect) from ${shown}: set NOTIFY_WEBHOOK_URL to the final address` };
  return { kind: 'rejected', status, error: `HTTP ${status} from ${shown}: the receiver refused the message (check its URL and secret)` };
}

/** A network error's message and code (fetch says only "fetch failed"; the cause says why), any URL in it cut to its host. */
function networkProblem(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const text = [(error as Error)?.message ?? String(error), cause?.code ?? cause?.message].filter(Boolean).join(': ');
  return text.replace(/\bhttps?:\/\/[^\s'"<>`]+/gi, (url) => shownTarget(url)).slice(0, 300);
}
