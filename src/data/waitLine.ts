/**
 * The query pool's wait line (queryPool.ts): queries from their submission until a worker takes
 * them. The line is bounded in length (`max`) and in time (`waitMs`), so under load a caller
 * gets a `busy` tool error that says when to retry instead of waiting without end; a query
 * cancelled while it waits simply leaves the line, touching no worker. Kept apart from the pool
 * so the pool reads as what happens to a query once a worker runs it.
 *
 * Fair between API keys: each query may carry its caller's identity, and the line keeps one
 * queue per caller. A free worker goes to the waiting caller that runs the fewest queries (ties:
 * the one served least recently), so a key that floods or abandons work cannot keep another
 * key's query waiting behind all of its own. A key may have at most `perKeyQueued` queries
 * waiting, past which it gets `busy` (reason `key_share`) while other keys are still served, and
 * `perKeyRunning` running while another key has been active within `activeWindowMs` (a key
 * alone uses every worker). Queries without a caller (no API keys, tests, scripts) are one
 * caller without those caps: alone, the line is first come, first served, as it always was.
 */
import type { ToolError } from '../errors/index.ts';
import { busyError, cancelledError } from './poolErrors.ts';
import type { PoolCounters } from './poolHealth.ts';
import type { Query } from './query.ts';

/** A query submitted to the pool, from its submission to its answer. */
export interface PoolTask {
  id: number;
  query: Query;
  /** The caller's identity (an API key's); undefined: the anonymous caller, not capped. */
  caller: string | undefined;
  enqueuedAt: number;
  /** When a worker took it (0 while it waits). */
  startedAt: number;
  waitTimer: NodeJS.Timeout | undefined;
  /** The caller was answered `cancelled`; a reply is dropped. */
  abandoned: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export interface WaitLineOptions {
  /** Queries that may wait (QUERY_QUEUE_MAX). */
  max: number;
  /** Longest a query may wait (QUERY_QUEUE_WAIT_MS). */
  waitMs: number;
  /** The pool's counters: refusals and cancellations of waiting queries are counted here. */
  counters: PoolCounters;
  /** Worker places of the pool, as a `busy` error reports them. */
  workerCount: () => number;
  /** Queries one identified caller may have waiting (default: half of `max`, at least 1). */
  perKeyQueued?: number;
  /** Queries one identified caller may have running while others are active (default: all workers but one, at least 1). */
  perKeyRunning?: number;
  /** How long after its last query a caller counts as active (default 60 s). */
  activeWindowMs?: number;
}

/** The anonymous caller's queue in the line (queries without an identity). */
const ANONYMOUS = '';

/** Queries waiting for a worker: first come first served per caller, round-robin between callers. */
export class WaitLine {
  /** Each caller's waiting queries, oldest first. */
  private readonly queues = new Map<string, PoolTask[]>();
  /** When each caller was last served (a sequence number; one entry per caller, i.e. per API key). */
  private readonly served = new Map<string, number>();
  private serves = 0;
  /** When each identified caller last submitted a query (epoch ms); callers idle past the window are dropped. */
  private readonly seenAt = new Map<string, number>();
  private count = 0;
  private nextId = 1;

  constructor(private readonly options: WaitLineOptions) {}

  /** Queries waiting now. */
  get length(): number {
    return this.count;
  }

  /** Queries one identified caller may have waiting. */
  get perKeyQueued(): number {
    return this.options.perKeyQueued ?? Math.max(1, Math.ceil(this.options.max / 2));
  }

  /** Queries one identified caller may have running. */
  get perKeyRunning(): number {
    return this.options.perKeyRunning ?? Math.max(1, this.options.workerCount() - 1);
  }

  /** Most queries that may wait. */
  get max(): number {
    return this.options.max;
  }

  /** True when no further query may wait. */
  get full(): boolean {
    return this.count >= this.options.max;
  }

  /** Queries `caller` has waiting. */
  queuedBy(caller: string | undefined): number {
    return this.queues.get(caller ?? ANONYMOUS)?.length ?? 0;
  }

  /**
   * Counts a query refused because the line is full and returns the `busy` error for it.
   * @example
   * if (!workers.idle() && line.full) return reject(line.refuseFull());
   */
  refuseFull(): ToolError {
    this.options.counters.rejected.queue_full += 1;
    return busyError('queue_full', { workers: this.options.workerCount(), queued: this.count, retryAfterSeconds: this.retryAfterSeconds() });
  }

  /**
   * A task of a caller that already has its share of the line waiting leaves it with a `busy`
   * error (reason `key_share`); other callers are not affected. False when the caller is within
   * its share (or anonymous).
   * @example
   * if (line.overShare(task)) return; // the task was answered busy
   */
  overShare(task: PoolTask): boolean {
    if (task.caller === undefined || this.queuedBy(task.caller) <= this.perKeyQueued || !this.remove(task)) return false;
    this.options.counters.rejected.key_share += 1;
    task.reject(busyError('key_share', { workers: this.options.workerCount(), queued: this.queuedBy(task.caller), retryAfterSeconds: this.retryAfterSeconds() }));
    return true;
  }

  /**
   * Puts a query at the end of the line. `resolve` and `reject` answer the caller (and stop the
   * wait clock); an abort of `signal` calls `onAbort` with the task.
   * @example
   * const task = line.enter(query, signal, (task) => pool.cancel(task), resolve, reject);
   * pool.dispatch();
   * line.startWaitClock(task);
   */
  enter(query: Query, caller: string | undefined, signal: AbortSignal | undefined, onAbort: (task: PoolTask) => void, resolve: (value: unknown) => void, reject: (error: unknown) => void): PoolTask {
    const aborted = () => onAbort(task);
    const settle = () => {
      clearTimeout(task.waitTimer);
      signal?.removeEventListener('abort', aborted);
    };
    const task: PoolTask = {
      id: this.nextId++,
      query,
      caller,
      enqueuedAt: Date.now(),
      startedAt: 0,
      waitTimer: undefined,
      abandoned: false,
      resolve: (value) => (settle(), resolve(value)),
      reject: (error) => (settle(), reject(error)),
    };
    signal?.addEventListener('abort', aborted, { once: true });
    const key = caller ?? ANONYMOUS;
    if (caller !== undefined) this.seenAt.set(caller, Date.now());
    const queue = this.queues.get(key);
    if (queue) queue.push(task);
    else this.queues.set(key, [task]);
    this.count += 1;
    return task;
  }

  /**
   * Starts the wait limit of a task still in the line (one a worker took at once has none): past
   * it, the task leaves the line with a `busy` error.
   * @example
   * line.startWaitClock(task);
   */
  startWaitClock(task: PoolTask): void {
    if (this.queues.get(task.caller ?? ANONYMOUS)?.includes(task)) task.waitTimer = setTimeout(() => this.giveUp(task), this.options.waitMs);
  }

  /**
   * The next task for a free worker, taken out of the line (its wait clock stopped): the oldest
   * of the caller that runs the fewest queries (`running` counts them), ties going to the caller
   * served least recently; an identified caller running its share is passed over. Undefined when
   * nothing may run now.
   * @example
   * const task = line.take((caller) => runningQueriesOf(caller));
   */
  take(running: (caller: string | undefined) => number): PoolTask | undefined {
    let chosen: { key: string; queue: PoolTask[]; running: number; served: number } | undefined;
    for (const [key, queue] of this.queues) {
      const caller = queue[0]!.caller;
      const runs = running(caller);
      if (caller !== undefined && runs >= this.perKeyRunning && this.othersActive(caller)) continue;
      const served = this.served.get(key) ?? 0;
      if (!chosen || runs < chosen.running || (runs === chosen.running && served < chosen.served)) chosen = { key, queue, running: runs, served };
    }
    if (!chosen) return undefined;
    const task = chosen.queue.shift()!;
    clearTimeout(task.waitTimer);
    this.count -= 1;
    if (chosen.queue.length === 0) this.queues.delete(chosen.key);
    this.served.set(chosen.key, ++this.serves);
    return task;
  }

  /**
   * A task cancelled while it waits leaves the line, answered `cancelled`. False when it is not
   * in line (a worker runs it).
   * @example
   * if (line.leave(task)) return;
   */
  leave(task: PoolTask): boolean {
    if (!this.remove(task)) return false;
    this.options.counters.cancelled.queued += 1;
    task.reject(cancelledError());
    return true;
  }

  /**
   * Empties the line, failing every waiting task with the error `failure` makes for it.
   * @example
   * line.rejectAll(() => shuttingDownError());
   */
  rejectAll(failure: () => ToolError): void {
    const tasks = [...this.queues.values()].flat().sort((a, b) => a.id - b.id);
    this.queues.clear();
    this.count = 0;
    for (const task of tasks) task.reject(failure());
  }

  private giveUp(task: PoolTask): void {
    if (!this.remove(task)) return;
    this.options.counters.rejected.queue_wait += 1;
    const waitedMs = Date.now() - task.enqueuedAt;
    task.reject(busyError('queue_wait', { workers: this.options.workerCount(), queued: this.count, waitedMs, retryAfterSeconds: this.retryAfterSeconds() }));
  }

  /** Whether another identified caller submitted a query within the activity window. */
  private othersActive(caller: string): boolean {
    const since = Date.now() - (this.options.activeWindowMs ?? 60_000);
    let others = false;
    for (const [key, at] of this.seenAt) {
      if (at < since) this.seenAt.delete(key);
      else if (key !== caller) others = true;
    }
    return others;
  }

  /** Takes a waiting task out of its caller's queue. @returns false when it was not waiting. */
  private remove(task: PoolTask): boolean {
    const key = task.caller ?? ANONYMOUS;
    const queue = this.queues.get(key);
    const index = queue?.indexOf(task) ?? -1;
    if (index === -1) return false;
    queue!.splice(index, 1);
    if (queue!.length === 0) this.queues.delete(key);
    this.count -= 1;
    return true;
  }

  private retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.options.waitMs / 2000));
  }
}
