/**
 * Runs data operations in a pool of worker processes, so SQL never blocks the HTTP event loop
 * and a query past its timeout is truly stopped: its process is killed (the CPU is freed at
 * once) and replaced, and the caller gets a `timeout` tool error with a hint to narrow the question.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolError } from '../errors/index.ts';
import type { Logger } from '../logging/logger.ts';
import { queryFailure, type DataAccess } from './dataAccess.ts';
import type { OperationInput, OperationName, OperationResult } from './operations.ts';
import type { WorkerReply, WorkerRequest } from './queryWorker.ts';

const workerScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'queryWorker.ts');

export interface QueryPoolOptions {
  databasePath: string;
  /** Worker processes, i.e. queries that run at once; more wait in line. */
  workers: number;
  /** Longest a single query may run before its process is killed. */
  timeoutMs: number;
  logger: Logger;
}

interface Task {
  id: number;
  operation: OperationName;
  input: unknown;
  signal: AbortSignal | undefined;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Worker {
  process: ChildProcess;
  ready: Promise<void>;
  task: Task | undefined;
  timer: NodeJS.Timeout | undefined;
}

export interface QueryPoolStats {
  workers: number;
  busy: number;
  queued: number;
  timeouts: number;
  restarts: number;
}

/** A DataAccess backed by worker processes. */
export class QueryPool implements DataAccess {
  private readonly workers: Worker[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;
  private timeouts = 0;
  private restarts = 0;

  private constructor(private readonly options: QueryPoolOptions) {}

  /** Starts the workers and waits until each has opened the database. */
  static async start(options: QueryPoolOptions): Promise<QueryPool> {
    const pool = new QueryPool(options);
    for (let index = 0; index < Math.max(1, options.workers); index += 1) pool.workers.push(pool.spawn());
    await Promise.all(pool.workers.map((worker) => worker.ready));
    return pool;
  }

  aggregate(plan: OperationInput<'aggregate'>, signal?: AbortSignal) {
    return this.run('aggregate', plan, signal);
  }

  compare(plan: OperationInput<'compare'>, signal?: AbortSignal) {
    return this.run('compare', plan, signal);
  }

  valueExists(table: string, column: string, value: string | null, signal?: AbortSignal) {
    return this.run('valueExists', { table, column, value }, signal);
  }

  distinctValues(table: string, column: string, limit: number, signal?: AbortSignal) {
    return this.run('distinctValues', { table, column, limit }, signal);
  }

  findDuplicates(plan: OperationInput<'findDuplicates'>, signal?: AbortSignal) {
    return this.run('findDuplicates', plan, signal);
  }

  findBlankValues(plan: OperationInput<'findBlankValues'>, signal?: AbortSignal) {
    return this.run('findBlankValues', plan, signal);
  }

  periodTotals(plan: OperationInput<'periodTotals'>, signal?: AbortSignal) {
    return this.run('periodTotals', plan, signal);
  }

  stats(): QueryPoolStats {
    return { workers: this.workers.length, busy: this.workers.filter((w) => w.task).length, queued: this.queue.length, timeouts: this.timeouts, restarts: this.restarts };
  }

  /** Stops every worker; queued and running operations fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new ToolError('query_failed', 'The service is shutting down.'));
    await Promise.all(
      this.workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.process.exitCode !== null || worker.process.signalCode !== null) return resolve();
            worker.process.once('exit', () => resolve());
            worker.process.kill('SIGKILL');
          }),
      ),
    );
  }

  private run<Name extends OperationName>(operation: Name, input: OperationInput<Name>, signal?: AbortSignal): Promise<OperationResult<Name>> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new ToolError('query_failed', 'The service is shutting down.'));
      if (signal?.aborted) return reject(cancelled());
      const onAbort = () => this.cancel(task);
      // Detach from the caller's signal once settled: a question may run many queries on one signal.
      const settle = () => signal?.removeEventListener('abort', onAbort);
      const task: Task = {
        id: this.nextId++,
        operation,
        input,
        signal,
        resolve: (value) => {
          settle();
          (resolve as (value: unknown) => void)(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(task);
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const worker of this.workers) {
      if (worker.task || this.queue.length === 0) continue;
      const task = this.queue.shift()!;
      worker.task = task;
      // The clock starts when the query reaches a ready worker, not while a fresh one boots.
      worker.ready.then(
        () => {
          if (worker.task !== task) return;
          worker.timer = setTimeout(() => this.timeOut(worker, task), this.options.timeoutMs);
          worker.process.send({ id: task.id, operation: task.operation, input: task.input } satisfies WorkerRequest);
        },
        () => undefined, // a worker that dies while starting is handled by its exit listener
      );
    }
  }

  private timeOut(worker: Worker, task: Task): void {
    if (worker.task !== task) return;
    this.timeouts += 1;
    this.options.logger.warn({ operation: task.operation, timeout_ms: this.options.timeoutMs }, 'query timed out; its worker is killed');
    this.replace(worker);
    task.reject(
      new ToolError('timeout', `The query ran longer than ${describeDuration(this.options.timeoutMs)} and was stopped.`, {
        hint: 'Narrow the question: filter on fewer companies or periods, align on fewer dimensions, or ask for totals first.',
      }),
    );
    this.dispatch();
  }

  private cancel(task: Task): void {
    const queued = this.queue.indexOf(task);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      task.reject(cancelled());
      return;
    }
    const worker = this.workers.find((w) => w.task === task);
    if (!worker) return;
    // Nobody waits for the answer any more: free the CPU now.
    this.replace(worker);
    task.reject(cancelled());
    this.dispatch();
  }

  /** Kills a worker (if still alive) and puts a fresh one in its place. */
  private replace(worker: Worker): void {
    clearTimeout(worker.timer);
    worker.task = undefined;
    worker.process.removeAllListeners('exit');
    worker.process.kill('SIGKILL');
    const index = this.workers.indexOf(worker);
    if (index !== -1 && !this.closed) {
      this.restarts += 1;
      this.workers[index] = this.spawn();
    }
  }

  private spawn(): Worker {
    const child = fork(workerScript, [this.options.databasePath], {
      execArgv: ['--import', 'tsx'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const worker: Worker = { process: child, task: undefined, timer: undefined, ready: Promise.resolve() };
    worker.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (message: { ready?: boolean }) => {
        if (message?.ready) {
          child.off('message', onMessage);
          resolve();
        }
      };
      child.on('message', onMessage);
      child.once('exit', (code) => reject(new ToolError('query_failed', `A query worker could not start (exit code ${code}).`)));
    });
    worker.ready.catch(() => undefined);
    child.on('message', (reply: WorkerReply | { ready: true }) => {
      if (!('id' in reply)) return;
      const task = worker.task;
      if (!task || task.id !== reply.id) return;
      clearTimeout(worker.timer);
      worker.task = undefined;
      if (reply.ok) task.resolve(reply.result);
      else task.reject(reply.toolError ? new ToolError(reply.toolError.code, reply.toolError.message, { hint: reply.toolError.hint, details: reply.toolError.details }) : queryFailed(reply.message));
      this.dispatch();
    });
    child.on('exit', (code, signal) => {
      if (this.closed) return;
      this.options.logger.error({ code, signal }, 'query worker stopped unexpectedly; starting another');
      const task = worker.task;
      this.replace(worker);
      task?.reject(queryFailed(`the query process stopped unexpectedly (${signal ?? `exit code ${code}`})`));
      this.dispatch();
    });
    return worker;
  }
}

function queryFailed(message: string): ToolError {
  return queryFailure(new Error(message));
}

function describeDuration(milliseconds: number): string {
  return milliseconds < 1000 ? `${milliseconds} ms` : `${Math.round(milliseconds / 100) / 10} s`;
}

function cancelled(): ToolError {
  return new ToolError('timeout', 'The question was cancelled before the query finished.');
}
