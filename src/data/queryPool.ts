/**
 * Runs query descriptions in a pool of worker processes, so SQL never blocks the HTTP event loop
 * and a query past its timeout is truly stopped: its process is killed (the CPU is freed at
 * once) and replaced, and the caller gets a `timeout` tool error with a hint to narrow the question.
 *
 * Under load and faults:
 * - the wait line (waitLine.ts) is bounded (`queueMax`) and so is the wait (`queueWaitMs`): past
 *   either, the query is refused with a `busy` tool error that says when to retry;
 * - it is fair between API keys (the `caller` of run): a free worker goes to the key running the
 *   fewest queries, one key may hold only its share of the line and, while another key is
 *   active, of the workers, so that key's query is served while one key floods or abandons work;
 * - a cancelled query that still waits leaves the line and touches no worker; a running one gets
 *   `cancelGraceMs` to finish (about what a new process costs) before its process is killed;
 * - a warm spare process takes a killed worker's place at once, and replacements are started one
 *   at a time, paced by a RespawnLimiter, so a storm of disconnects cannot starve other queries;
 * - DATA_DB is watched (watchFile, shared/fileIdentity.ts): while it is missing or unreadable,
 *   queries are refused at once with `data_unavailable`, no process is started in a loop, and
 *   it is retried with backoff.
 */
import path from 'node:path';
import { ConfigurationError, ToolError } from '../errors/index.ts';
import { fileIdentity, watchFile, type FileState, type FileWatch } from '../shared/fileIdentity.ts';
import type { ComponentHealth } from '../shared/health.ts';
import { isFileFailure } from '../shared/sqliteErrors.ts';
import { queryFailure, type DataAccess } from './dataAccess.ts';
import { ConnectionHealth } from './connectionHealth.ts';
import { DEFAULT_CONNECTION, type ConnectionState } from './connections.ts';
import type { Query, ResultOf } from './query.ts';
import { cancelledError, dataUnavailableError, shuttingDownError, timeoutError } from './poolErrors.ts';
import { PoolHealth, type PoolCounters, type QueryPoolStats } from './poolHealth.ts';
import { definedReducerModules } from './reducer.ts';
import { buildReducers, withBuiltReducer, workerLaunch, type WorkerLaunch } from './workerBuild.ts';
import type { WorkerProcess } from './workerProcess.ts';
import { WaitLine, type PoolTask } from './waitLine.ts';
import type { WorkerReply } from './workerProtocol.ts';
import { WorkerSet } from './workerSet.ts';
import type { QueryPoolOptions } from './queryPoolOptions.ts';

export type { PoolCounters, QueryPoolStats } from './poolHealth.ts';
export type { QueryPoolOptions } from './queryPoolOptions.ts';

type Worker = WorkerProcess<PoolTask>;

/** A DataAccess backed by worker processes. */
export class QueryPool implements DataAccess {
  private readonly line: WaitLine;
  private readonly workers: WorkerSet<PoolTask>;
  private readonly health: PoolHealth;
  private watch: FileWatch | undefined;
  private readonly connections: ConnectionHealth;
  private closed = false;
  private readonly graceMs: number;
  private readonly yieldAfterMs: number;
  /** Worker places left empty by killing a key's query, by place: the key (see runningFor). */
  private readonly killedFor = new Map<number, string>();

  private constructor(
    private readonly options: QueryPoolOptions,
    private readonly launch: WorkerLaunch,
  ) {
    this.graceMs = options.cancelGraceMs ?? 250;
    this.yieldAfterMs = options.yieldAfterMs ?? 50;
    this.connections = new ConnectionHealth(options.connectionStates);
    const database = options.databasePath ? path.basename(options.databasePath) : 'the default connection';
    this.health = new PoolHealth(database, options.monitorIntervalMs ?? 1_000, options.logger);
    this.line = new WaitLine({
      max: options.queueMax ?? 32,
      waitMs: options.queueWaitMs ?? 10_000,
      counters: this.health.counters,
      workerCount: () => this.workers.slots.length,
      ...(options.queuePerKey === undefined ? {} : { perKeyQueued: options.queuePerKey }),
      ...(options.workersPerKey === undefined ? {} : { perKeyRunning: options.workersPerKey }),
      ...(options.keyActiveMs === undefined ? {} : { activeWindowMs: options.keyActiveMs }),
    });
    const connections = options.connections ?? [{ name: DEFAULT_CONNECTION, url: `sqlite:${options.databasePath}` }];
    this.workers = new WorkerSet<PoolTask>({
      databasePath: options.databasePath ?? '',
      // Through the environment: connection URLs may hold passwords, which a process list would show.
      environment: { ANALYST_CONNECTIONS: JSON.stringify(connections), ANALYST_STATEMENT_TIMEOUT_MS: String(options.timeoutMs) },
      launch,
      workers: options.workers,
      spare: options.spare ?? true,
      ...(options.respawn ? { respawn: options.respawn } : {}),
      events: { reply: (worker, reply) => this.replied(worker, reply), exit: (worker, description) => this.exited(worker, description) },
      onStarted: () => (this.health.recovered(), this.dispatch()),
      onStartFailed: (failure, retryInMs, failures) => {
        this.health.startFailed(failure, retryInMs, failures);
        // A file that cannot be opened may be damaged in place: the watch's check names how.
        if (failure.reason === 'unreadable') this.watch?.check();
        this.dispatch();
      },
      // While the file is missing nothing is started; the watch resumes when it is back.
      paused: () => this.health.down?.missing === true,
      onRestart: () => (this.health.counters.restarts += 1),
      onReplaced: () => options.logger.info({ database }, 'the data database file was replaced; query workers reopen it'),
    });
  }

  /**
   * Starts the workers and waits until each has opened the database; the spare starts behind.
   * @throws ConfigurationError naming DATA_DB when the workers cannot open it.
   * @example
   * const pool = await QueryPool.start({ databasePath: 'data/sample.db', workers: 2, timeoutMs: 30_000, logger });
   */
  static async start(options: QueryPoolOptions): Promise<QueryPool> {
    const launch = await workerLaunch();
    if (launch.built) await buildReducers(definedReducerModules());
    const pool = new QueryPool(options, launch);
    try {
      await pool.workers.start(options.databasePath ? await fileIdentity(options.databasePath) : undefined);
    } catch (failure) {
      throw new ConfigurationError(`DATA_DB: the query workers cannot open ${options.databasePath}: ${(failure as { message: string }).message}`);
    }
    if (options.databasePath) pool.watch = watchFile(options.databasePath, options.monitorIntervalMs ?? 1_000, (state) => pool.fileChecked(state));
    return pool;
  }

  /** Queries that run at once: one per worker (DataAccess). */
  get concurrency(): number {
    return this.workers.slots.length;
  }

  /** Runs a query description in a worker process, in `caller`'s turn (DataAccess). */
  run<Q extends Query>(query: Q, signal?: AbortSignal, caller?: string): Promise<ResultOf<Q>> {
    // A built worker imports built reducers: its modules are JavaScript (workerBuild.ts).
    const sent = this.launch.built ? withBuiltReducer(query) : query;
    if (sent instanceof Promise) return sent.then((built) => this.submit(built, signal, caller)) as Promise<ResultOf<Q>>;
    return this.submit(sent, signal, caller) as Promise<ResultOf<Q>>;
  }

  stats(): QueryPoolStats {
    const ready = this.workers.slots.filter((w) => w?.state === 'ready');
    return {
      workers: this.workers.slots.length,
      ready: ready.length,
      busy: ready.filter((w) => w!.task).length,
      queued: this.line.length,
      queue_max: this.line.max,
      spare: this.workers.spare?.state === 'ready',
      timeouts: this.health.counters.timeouts,
      restarts: this.health.counters.restarts,
    };
  }

  /** Refusals and cancellations since startup (for the metrics). */
  counters(): PoolCounters {
    return this.health.counters;
  }

  /** The data database (and its connections) and the worker pool, as GET /health reports them (cheap: no I/O). */
  componentHealth(): { data: ComponentHealth; workers: ComponentHealth } {
    const report = this.health.report(this.stats(), this.workers.isStarting);
    return { ...report, data: this.connections.degrade(report.data) };
  }

  /** Each connection's engine, target and last known state (no secrets). */
  connectionStates(): ConnectionState[] {
    return this.connections.list();
  }

  /** Process ids of the workers in their places (tests, diagnostics). */
  workerPids(): (number | undefined)[] {
    return this.workers.slots.map((worker) => worker?.pid);
  }

  /** Stops every worker; queued and running operations fail. */
  async close(): Promise<void> {
    this.closed = true;
    this.watch?.stop();
    this.line.rejectAll(() => shuttingDownError());
    for (const worker of this.workers.all()) worker.task?.reject(shuttingDownError());
    await this.workers.close();
  }

  private submit(query: Query, signal: AbortSignal | undefined, caller: string | undefined): Promise<unknown> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(shuttingDownError());
      if (signal?.aborted) return reject(cancelledError());
      if (this.health.down) return reject(this.unavailable());
      if (!this.workers.idle() && this.line.full) return reject(this.line.refuseFull());
      const task = this.line.enter(query, caller, signal, (cancelled) => this.cancel(cancelled), resolve, reject);
      this.dispatch();
      // Still waiting, and its key already had its share of the line waiting: busy for this key only.
      if (this.line.overShare(task)) return;
      this.line.startWaitClock(task);
    });
  }

  private dispatch(): void {
    if (this.closed) return;
    if (this.health.down) {
      this.line.rejectAll(() => this.unavailable());
      return;
    }
    for (let index = 0; index < this.workers.slots.length && this.line.length > 0; index += 1) {
      // A worker on a replaced file gives its place to a fresh spare as soon as it is idle.
      const worker = this.workers.refresh(index);
      if (worker?.state !== 'ready' || worker.task) continue;
      // Every waiting key may be running its share: then this worker stays free for another key.
      const task = this.line.take((caller) => this.runningFor(caller));
      if (!task) break;
      task.startedAt = Date.now();
      worker.task = task;
      worker.timer = setTimeout(() => this.timeOut(worker, task), this.options.timeoutMs);
      // A statement still running after a short query's time gives the CPU to short ones first.
      worker.yieldTimer = setTimeout(() => worker.yieldCpu(), this.yieldAfterMs);
      worker.send({ id: task.id, query: task.query });
    }
  }

  /**
   * Worker places `caller` holds: its queries running, abandoned ones included (they hold their
   * worker until they end), and places left empty by killing one of its queries until the
   * replacement has started, so a key that abandons work cannot move on to the worker kept for others.
   */
  private runningFor(caller: string | undefined): number {
    return this.workers.slots.filter((worker, index) => (worker ? worker.task !== undefined && worker.task.caller === caller : this.killedFor.get(index) === caller)).length;
  }

  /** Kills the worker running `task`; a place it leaves empty counts as its key's until refilled (runningFor). */
  private retire(worker: Worker, task: PoolTask | undefined): void {
    const index = this.workers.slots.indexOf(worker);
    this.workers.retire(worker);
    if (index === -1) return;
    if (task?.caller !== undefined && this.workers.slots[index] === undefined) this.killedFor.set(index, task.caller);
    else this.killedFor.delete(index);
  }

  private replied(worker: Worker, reply: WorkerReply): void {
    const task = worker.task;
    if (!task || task.id !== reply.id) return;
    clearTimeout(worker.timer);
    clearTimeout(worker.graceTimer);
    worker.reclaimCpu();
    worker.task = undefined;
    this.connections.note(task.query, reply);
    if (task.abandoned) this.health.counters.cancelled.finished += 1;
    else if (reply.ok) task.resolve(reply.result);
    else if (reply.toolError) task.reject(new ToolError(reply.toolError.code, reply.toolError.message, { hint: reply.toolError.hint, details: reply.toolError.details }));
    else task.reject(queryFailure(reply.message));
    // A damaged or vanished file: look at it now rather than at the next tick of the watch.
    if (!reply.ok && isFileFailure(reply.sqliteCode)) this.watch?.check();
    this.workers.fill();
    this.dispatch();
  }

  /** A worker that was ready ended by itself (crash, OOM kill). */
  private exited(worker: Worker, description: string): void {
    if (this.closed) return;
    this.options.logger.error({ exit: description }, 'query worker stopped unexpectedly; starting another');
    const task = worker.task;
    // A crash is nobody's doing: the place is not counted against the key whose query ran there.
    this.retire(worker, undefined);
    if (task && !task.abandoned) task.reject(queryFailure(`the query process stopped unexpectedly (${description})`));
    this.dispatch();
  }

  private timeOut(worker: Worker, task: PoolTask): void {
    if (worker.task !== task) return;
    if (!task.abandoned) {
      this.health.counters.timeouts += 1;
      this.options.logger.warn({ query: task.query.kind, timeout_ms: this.options.timeoutMs }, 'query timed out; its worker is killed');
      task.reject(timeoutError(this.options.timeoutMs));
    }
    this.retire(worker, task);
    this.dispatch();
  }

  private cancel(task: PoolTask): void {
    // Still waiting: it simply leaves the line; no worker is touched.
    if (this.line.leave(task)) return;
    const worker = this.workers.slots.find((w) => w?.task === task);
    if (!worker) return;
    task.abandoned = true;
    task.reject(cancelledError());
    // DuckDB and PostgreSQL stop the statement where it runs and the worker replies; SQLite cannot.
    worker.send({ cancel: task.id });
    const kill = () => {
      if (worker.task !== task) return;
      this.health.counters.cancelled.killed += 1;
      this.retire(worker, task);
      this.dispatch();
    };
    // A query about to end is cheaper to let finish than a new process; a long one is killed for its
    // CPU. One that already ran longer than the grace period is no short one: when others wait and the
    // spare can step in (restarts not being paced), it is killed at once.
    const long = Date.now() - task.startedAt >= this.graceMs;
    if (this.graceMs <= 0 || (long && this.line.length > 0 && this.workers.canReplaceNow())) kill();
    else worker.graceTimer = setTimeout(kill, this.graceMs);
  }

  private fileChecked(state: FileState): void {
    if (this.closed) return;
    if (!state.present) {
      this.health.fileMissing(state.problem);
      // Overwritten or truncated in place: the workers have that very file open; fresh ones open it once it is whole.
      if (state.problem) for (const task of this.workers.retireAll()) if (!task.abandoned) task.reject(this.unavailable());
      this.dispatch();
      return;
    }
    const replaced = this.workers.noteIdentity(state.identity);
    if (this.health.down?.missing || (replaced && this.health.down)) {
      // Back as the very file a worker has open: usable at once; another file: once a worker opened it.
      this.health.fileBack(this.workers.hasFreshWorker());
      this.workers.resume();
    }
    this.workers.fill();
    this.dispatch();
  }

  private unavailable(): ToolError {
    this.health.counters.rejected.data_unavailable += 1;
    const down = this.health.down!;
    return dataUnavailableError(down.reason, Math.max(1, Math.ceil((down.retryAt - Date.now()) / 1000)));
  }
}
