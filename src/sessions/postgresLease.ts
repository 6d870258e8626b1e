/**
 * Per-session leases in PostgreSQL: how turns on one session run one at a time across service
 * instances. A lease is a row (session, holder, expires_at on the server's clock): taken before
 * a turn, renewed every third of the lease while it runs, deleted after. A waiter retries with a
 * short backoff and is woken at once by the holder's NOTIFY on release (the LISTEN connection
 * is a speed-up only; polling alone is correct). An instance that dies stops renewing, so its
 * lease expires after SESSION_LEASE_SECONDS and the session is never blocked for good.
 *
 * A turn that outlives its lease (its instance could not reach the database for a whole lease)
 * may find the session taken over. The store then refuses to append that turn (see
 * `PostgresStore.appendTurn`): its answer was computed without the other holder's turn, and
 * storing it would break "each turn sees its predecessors". The client gets a 503 and asks again.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../logging/logger.ts';
import { isConnectionFailure, type PostgresHealth } from './postgresHealth.ts';

/** The NOTIFY channel a released lease is announced on (payload: the session id). */
const RELEASED_CHANNEL = 'analyst_session_lease_released';
/** First and longest pause between two attempts to take a lease held by someone else. */
const FIRST_RETRY_MS = 10;
const LONGEST_RETRY_MS = 250;
/** How long a broken LISTEN connection is left alone before the next attempt. */
const LISTEN_RETRY_MS = 5_000;

/** One held lease. */
export interface Lease {
  sessionId: string;
  /** This instance's id and the acquisition's number: unique to this holding. */
  holder: string;
  /** Set once a renewal found the lease taken by another holder. */
  lost: boolean;
}

export interface SessionLeasesOptions {
  pool: pg.Pool;
  /** Connection settings for the LISTEN connection (the pool's). */
  connection: pg.ClientConfig;
  health: PostgresHealth;
  /** How long a lease lasts without renewal. */
  leaseMs: number;
  logger?: Logger | undefined;
}

/**
 * The leases of one store (one service instance).
 * @example
 * const leases = new SessionLeases({ pool, connection, health, leaseMs: 30_000 });
 * await leases.hold(sessionId, async () => appendTheTurn());
 */
export class SessionLeases {
  /** Names this instance in lease rows (random: instances need no configuration). */
  readonly instanceId = randomUUID();
  private acquisitions = 0;
  private readonly held = new AsyncLocalStorage<Lease>();
  private readonly waiters = new Map<string, Set<() => void>>();
  private listener: pg.Client | undefined;
  private listenerRetryAt = 0;
  private closed = false;

  constructor(private readonly options: SessionLeasesOptions) {}

  /** The lease the calling code runs under for `sessionId`, if any (for fencing writes). */
  current(sessionId: string): Lease | undefined {
    const lease = this.held.getStore();
    return lease?.sessionId === sessionId ? lease : undefined;
  }

  /**
   * Takes the session's lease (waiting while another holder has it), runs `work` while renewing
   * it, and releases it after, whatever `work` does.
   * @throws StorageUnavailableError when the database cannot be reached to take the lease.
   */
  async hold<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const lease = await this.acquire(sessionId);
    const renewal = setInterval(() => void this.renew(lease), Math.max(50, Math.floor(this.options.leaseMs / 3)));
    try {
      return await this.held.run(lease, work);
    } finally {
      clearInterval(renewal);
      await this.release(lease);
    }
  }

  /** Stops listening; leases still held expire on the server if their release fails. */
  async close(): Promise<void> {
    this.closed = true;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    for (const wakers of this.waiters.values()) for (const wake of wakers) wake();
  }

  private async acquire(sessionId: string): Promise<Lease> {
    const lease: Lease = { sessionId, holder: `${this.instanceId}/${++this.acquisitions}`, lost: false };
    let pause = FIRST_RETRY_MS;
    for (;;) {
      // Registered before the attempt, so a release announced between the attempt and the pause is not missed.
      const woken = this.wakeOnRelease(sessionId);
      try {
        const previous = await this.tryTake(lease);
        if (previous !== false) {
          if (previous !== null) this.options.logger?.warn({ session_id: sessionId, previous_holder: previous }, 'took over the session lease of an instance that stopped renewing it');
          return lease;
        }
      } catch (error) {
        woken.cancel();
        throw error;
      }
      this.ensureListener();
      await woken.within(pause + Math.floor(Math.random() * pause));
      pause = Math.min(LONGEST_RETRY_MS, pause * 2);
    }
  }

  /**
   * One attempt: inserts the lease, or takes over one that has expired.
   * @returns false while someone else holds it; else the expired holder taken over, or null.
   */
  private async tryTake(lease: Lease): Promise<string | null | false> {
    const result = await this.options.health.guard(() =>
      this.options.pool.query<{ previous: string | null }>(
        `WITH earlier AS (SELECT holder FROM session_leases WHERE session_id = $1)
         INSERT INTO session_leases (session_id, holder, expires_at) VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
         ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
           WHERE session_leases.expires_at < clock_timestamp()
         RETURNING (SELECT holder FROM earlier) AS previous`,
        [lease.sessionId, lease.holder, this.options.leaseMs],
      ),
    );
    return result.rows.length === 0 ? false : (result.rows[0]!.previous ?? null);
  }

  private async renew(lease: Lease): Promise<void> {
    if (lease.lost || this.closed) return;
    try {
      const result = await this.options.pool.query(`UPDATE session_leases SET expires_at = clock_timestamp() + $3 * interval '1 millisecond' WHERE session_id = $1 AND holder = $2`, [
        lease.sessionId,
        lease.holder,
        this.options.leaseMs,
      ]);
      if (result.rowCount === 0) {
        lease.lost = true;
        this.options.logger?.warn({ session_id: lease.sessionId }, 'the session lease was taken over while a turn ran (this instance could not renew it in time); the turn will not be stored');
      }
    } catch (error) {
      // The lease may still be valid; the next renewal tries again, the health state says why.
      if (isConnectionFailure(error)) this.options.health.markDown(error);
      else this.options.logger?.warn({ session_id: lease.sessionId, reason: this.options.health.redact((error as Error).message) }, 'could not renew the session lease');
    }
  }

  private async release(lease: Lease): Promise<void> {
    try {
      await this.options.pool.query(
        `WITH gone AS (DELETE FROM session_leases WHERE session_id = $1 AND holder = $2 RETURNING session_id)
         SELECT pg_notify($3, session_id) FROM gone`,
        [lease.sessionId, lease.holder, RELEASED_CHANNEL],
      );
    } catch (error) {
      // Not released: it expires on the server within the lease time, as a crashed holder's would.
      this.options.logger?.warn({ session_id: lease.sessionId, err: new Error(this.options.health.redact((error as Error).message)) }, 'could not release the session lease; it expires on its own');
    }
  }

  /** A pause that ends after `ms` or when the session's lease is released, whichever comes first. */
  private wakeOnRelease(sessionId: string): { within(ms: number): Promise<void>; cancel(): void } {
    let wakers = this.waiters.get(sessionId);
    if (!wakers) this.waiters.set(sessionId, (wakers = new Set()));
    let wake: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (wake = resolve));
    wakers.add(wake);
    const cancel = () => {
      wakers.delete(wake);
      if (wakers.size === 0 && this.waiters.get(sessionId) === wakers) this.waiters.delete(sessionId);
    };
    return {
      cancel,
      within: async (ms) => {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([released, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
        clearTimeout(timer);
        cancel();
      },
    };
  }

  /** Starts the LISTEN connection when there is none (best effort: polling does not need it). */
  private ensureListener(): void {
    if (this.listener || this.closed || Date.now() < this.listenerRetryAt) return;
    this.listenerRetryAt = Date.now() + LISTEN_RETRY_MS;
    const client = new pg.Client(this.options.connection);
    this.listener = client;
    let dropped = false;
    const drop = () => {
      if (dropped) return;
      dropped = true;
      if (this.listener === client) this.listener = undefined;
      void client.end().catch(() => undefined);
    };
    client.on('error', drop);
    client.on('end', drop);
    client.on('notification', (message) => {
      for (const wake of this.waiters.get(message.payload ?? '') ?? []) wake();
    });
    client
      .connect()
      .then(() => client.query(`LISTEN ${RELEASED_CHANNEL}`))
      .then(() => {
        if (this.closed) drop();
      })
      .catch(drop);
  }
}
