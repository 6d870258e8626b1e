/**
 * Paces the start of replacement worker processes. Starting one costs about a tenth of a CPU
 * second (Node and better-sqlite3, on the built worker of workerBuild.ts), so a storm of cancelled queries that each cost a restart
 * would starve every other query on a small machine. A token bucket allows a short burst, then
 * a steady rate; consecutive failed starts (data file missing or broken) back off exponentially.
 */

export interface RespawnLimits {
  /** Starts allowed back to back before pacing sets in. */
  burst: number;
  /** Then one start per this many milliseconds. */
  intervalMs: number;
  /** First wait after a failed start; doubles with each further failure… */
  backoffBaseMs: number;
  /** …up to this. */
  backoffMaxMs: number;
}

export const DEFAULT_RESPAWN_LIMITS: RespawnLimits = { burst: 3, intervalMs: 1_000, backoffBaseMs: 500, backoffMaxMs: 30_000 };

/**
 * Token bucket plus failure backoff.
 * @example
 * const limiter = new RespawnLimiter(DEFAULT_RESPAWN_LIMITS);
 * if (limiter.delay() === 0) { limiter.take(); spawn(); }
 */
export class RespawnLimiter {
  private tokens: number;
  private refilledAt: number;
  private failures = 0;
  private notBefore = 0;

  constructor(
    private readonly limits: RespawnLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = limits.burst;
    this.refilledAt = now();
  }

  /** Milliseconds until the next start may begin (0: now). */
  delay(): number {
    this.refill();
    const tokenWait = this.tokens >= 1 ? 0 : Math.ceil((1 - this.tokens) * this.limits.intervalMs);
    return Math.max(tokenWait, this.notBefore - this.now(), 0);
  }

  /** Records a start. */
  take(): void {
    this.refill();
    this.tokens = Math.max(0, this.tokens - 1);
  }

  /** Records a failed start. @returns how long the next attempt waits. */
  failed(): number {
    this.failures += 1;
    const wait = Math.min(this.limits.backoffMaxMs, this.limits.backoffBaseMs * 2 ** (this.failures - 1));
    this.notBefore = this.now() + wait;
    return wait;
  }

  /** A start succeeded: no more backoff. */
  succeeded(): void {
    this.failures = 0;
    this.notBefore = 0;
  }

  /** Drops the backoff (the data file came back), keeping the rate limit. */
  resetBackoff(): void {
    this.notBefore = 0;
  }

  /** Consecutive failed starts. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.limits.burst, this.tokens + (now - this.refilledAt) / this.limits.intervalMs);
    this.refilledAt = now;
  }
}
