/**
 * The query pool's wait line (queryPool.ts): queries from their submission until a worker takes
 * them. The line is bounded in length (`max`) and in time (`waitMs`), so under load a caller
 * gets a `busy` tool error that says when to retry instead of waiting without end; a query
 * cancelled while it waits simply leaves the line, touching no worker. Kept apart from the pool
 * so the pool reads as what happens to a query once a worker runs it.
 */
import type { ToolError } from '../errors/index.ts';
import { busyError, cancelledError } from './poolErrors.ts';
import type { PoolCounters } from './poolHealth.ts';
import type { Query } from './query.ts';

/** A query submitted to the pool, from its submission to its answer. */
export interface PoolTask {
  id: number;
  query: Query;
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
}

/** Queries waiting for a worker, first come first served. */
export class WaitLine {
  private readonly tasks: PoolTask[] = [];
  private nextId = 1;

  constructor(private readonly options: WaitLineOptions) {}

  /** Queries waiting now. */
  get length(): number {
    return this.tasks.length;
  }

  /** Most queries that may wait. */
  get max(): number {
    return this.options.max;
  }

  /** True when no further query may wait. */
  get full(): boolean {
    return this.tasks.length >= this.options.max;
  }

  /**
   * Counts a query refused because the line is full and returns the `busy` error for it.
   * @example
   * if (!workers.idle() && line.full) return reject(line.refuseFull());
   */
  refuseFull(): ToolError {
    this.options.counters.rejected.queue_full += 1;
    return busyError('queue_full', { workers: this.options.workerCount(), queued: this.tasks.length, retryAfterSeconds: this.retryAfterSeconds() });
  }

  /**
   * Puts a query at the end of the line. `resolve` and `reject` answer the caller (and stop the
   * wait clock); an abort of `signal` calls `onAbort` with the task.
   * @example
   * const task = line.enter(query, signal, (task) => pool.cancel(task), resolve, reject);
   * pool.dispatch();
   * line.startWaitClock(task);
   */
  enter(query: Query, signal: AbortSignal | undefined, onAbort: (task: PoolTask) => void, resolve: (value: unknown) => void, reject: (error: unknown) => void): PoolTask {
    const aborted = () => onAbort(task);
    const settle = () => {
      clearTimeout(task.waitTimer);
      signal?.removeEventListener('abort', aborted);
    };
    const task: PoolTask = {
      id: this.nextId++,
      query,
      enqueuedAt: Date.now(),
      startedAt: 0,
      waitTimer: undefined,
      abandoned: false,
      resolve: (value) => (settle(), resolve(value)),
      reject: (error) => (settle(), reject(error)),
    };
    signal?.addEventListener('abort', aborted, { once: true });
    this.tasks.push(task);
    return task;
  }

  /**
   * Starts the wait limit of a task still in the line (one a worker took at once has none): past
   * it, the task leaves the line with a `busy` error.
   * @example
   * line.startWaitClock(task);
   */
  startWaitClock(task: PoolTask): void {
    if (this.tasks.includes(task)) task.waitTimer = setTimeout(() => this.giveUp(task), this.options.waitMs);
  }

  /**
   * The first task in line, taken out of it (its wait clock stopped), if any.
   * @example
   * const task = line.take();
   */
  take(): PoolTask | undefined {
    const task = this.tasks.shift();
    if (task) clearTimeout(task.waitTimer);
    return task;
  }

  /**
   * A task cancelled while it waits leaves the line, answered `cancelled`. False when it is not
   * in line (a worker runs it).
   * @example
   * if (line.leave(task)) return;
   */
  leave(task: PoolTask): boolean {
    const queued = this.tasks.indexOf(task);
    if (queued === -1) return false;
    this.tasks.splice(queued, 1);
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
    for (const task of this.tasks.splice(0)) task.reject(failure());
  }

  private giveUp(task: PoolTask): void {
    const index = this.tasks.indexOf(task);
    if (index === -1) return;
    this.tasks.splice(index, 1);
    this.options.counters.rejected.queue_wait += 1;
    const waitedMs = Date.now() - task.enqueuedAt;
    task.reject(busyError('queue_wait', { workers: this.options.workerCount(), queued: this.tasks.length, waitedMs, retryAfterSeconds: this.retryAfterSeconds() }));
  }

  private retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(this.options.waitMs / 2000));
  }
}
