/**
 * The query pool's processes: one place per worker (QUERY_WORKERS), a warm spare that takes a
 * killed worker's place at once, and the replacements, started one at a time and paced by a
 * RespawnLimiter. Also which file the workers have open: when DATA_DB is replaced, the workers
 * on the old file are "stale" and give their place to fresh ones as soon as they are idle.
 * The queue and the scheduling of queries are the pool's (queryPool.ts).
 */
import { sameFile, type FileIdentity } from '../shared/fileIdentity.ts';
import { DEFAULT_RESPAWN_LIMITS, RespawnLimiter, type RespawnLimits } from './respawnLimiter.ts';
import type { WorkerLaunch } from './workerBuild.ts';
import { WorkerProcess, type StartFailure, type WorkerEvents } from './workerProcess.ts';

export interface WorkerSetOptions<Task> {
  databasePath: string;
  /** The environment every worker gets: its connections (see queryWorker.ts). */
  environment: Record<string, string>;
  /** How a worker process is started (workerBuild.ts). */
  launch?: WorkerLaunch;
  workers: number;
  spare: boolean;
  respawn?: Partial<RespawnLimits>;
  events: WorkerEvents<Task>;
  /** A replacement is ready and placed. */
  onStarted(): void;
  /** A replacement could not start; the next attempt is in `retryInMs`. */
  onStartFailed(failure: StartFailure, retryInMs: number, consecutiveFailures: number): void;
  /** Whether starting processes is pointless now (no data file): the set waits for `resume()`. */
  paused(): boolean;
  /** Counts a replacement start. */
  onRestart(): void;
  /** The data file was replaced (logged by the pool). */
  onReplaced(): void;
}

/** The worker processes of one pool. */
export class WorkerSet<Task> {
  readonly slots: (WorkerProcess<Task> | undefined)[];
  spare: WorkerProcess<Task> | undefined;
  private starting: WorkerProcess<Task> | undefined;
  private spawnTimer: NodeJS.Timeout | undefined;
  private readonly limiter: RespawnLimiter;
  /** The file at DATA_DB as last seen (by the pool's watch or a worker start). */
  private identity: FileIdentity | undefined;
  private closed = false;

  constructor(private readonly options: WorkerSetOptions<Task>) {
    this.slots = new Array<WorkerProcess<Task> | undefined>(Math.max(1, options.workers)).fill(undefined);
    this.limiter = new RespawnLimiter({ ...DEFAULT_RESPAWN_LIMITS, burst: this.slots.length + 1, ...options.respawn });
  }

  /**
   * Starts every worker and waits until each is ready; the spare starts behind.
   * @throws the StartFailure of the first worker that could not start (every process is stopped).
   */
  async start(identity: FileIdentity | undefined): Promise<void> {
    this.identity = identity;
    const first = this.slots.map(() => new WorkerProcess<Task>(this.options.databasePath, this.options.events, this.options.environment, this.options.launch, false));
    try {
      await Promise.all(first.map((worker) => worker.ready));
    } catch (failure) {
      for (const worker of first) worker.kill();
      throw failure;
    }
    first.forEach((worker, index) => (this.slots[index] = worker));
    this.fill(false);
  }

  get isStarting(): boolean {
    return this.starting !== undefined;
  }

  /** A worker ready for a query now, if any. */
  idle(): WorkerProcess<Task> | undefined {
    return this.slots.find((w) => w?.state === 'ready' && !w.task);
  }

  /** Every live process (places, spare, the one starting). */
  all(): WorkerProcess<Task>[] {
    return [...this.slots, this.spare, this.starting].filter((w): w is WorkerProcess<Task> => w !== undefined);
  }

  /** Lets a stale idle worker at `index` give its place to a fresh ready spare. @returns the worker now there. */
  refresh(index: number): WorkerProcess<Task> | undefined {
    const worker = this.slots[index];
    if (!worker?.stale || worker.task || this.spare?.state !== 'ready' || this.spare.stale) return worker;
    worker.kill();
    this.slots[index] = this.spare;
    this.spare = undefined;
    this.fill();
    return this.slots[index];
  }

  /**
   * Kills every process, the one starting too (the data file was damaged in place: none may read
   * it again), leaving the places empty until `fill` or `resume`. @returns the tasks they were running.
   */
  retireAll(): Task[] {
    const workers = this.all();
    const tasks = workers.flatMap((worker) => (worker.task ? [worker.task] : []));
    for (const worker of workers) worker.kill();
    this.slots.fill(undefined);
    this.spare = undefined;
    this.starting = undefined;
    return tasks;
  }

  /** Kills a worker; the spare (if ready) takes its place at once, and a replacement is scheduled. */
  retire(worker: WorkerProcess<Task>): void {
    worker.kill();
    const index = this.slots.indexOf(worker);
    if (index !== -1) this.slots[index] = undefined;
    if (this.spare === worker) this.spare = undefined;
    if (this.closed) return;
    for (let slot = 0; slot < this.slots.length; slot += 1) {
      if (this.slots[slot] || this.spare?.state !== 'ready') continue;
      this.slots[slot] = this.spare;
      this.spare = undefined;
    }
    this.fill();
  }

  /** The file at DATA_DB is `identity`: workers that opened another one become stale. @returns whether it changed. */
  noteIdentity(identity: FileIdentity | undefined): boolean {
    if (!identity || sameFile(identity, this.identity)) return false;
    if (this.identity) this.options.onReplaced();
    this.identity = identity;
    // A file moved back makes the workers that still have it open fresh again.
    for (const worker of [...this.slots, this.spare]) {
      if (worker?.state === 'ready') worker.stale = !sameFile(worker.identity, identity);
    }
    if (this.spare?.stale) {
      this.spare.kill();
      this.spare = undefined;
    }
    return true;
  }

  /** Whether a killed worker's place would be taken at once, its replacement started without pacing. */
  canReplaceNow(): boolean {
    return this.spare?.state === 'ready' && !this.spare.stale && !this.starting && this.limiter.delay() === 0;
  }

  /** Whether a ready worker has the current file open. */
  hasFreshWorker(): boolean {
    return this.slots.some((w) => w?.state === 'ready' && !w.stale);
  }

  /** Drops the failure backoff (the data file is back) and fills empty places. */
  resume(): void {
    this.limiter.resetBackoff();
    this.fill();
  }

  /** Starts one process when a place needs one, paced by the limiter; one start at a time. */
  fill(countAsRestart = true): void {
    if (this.closed || this.starting || this.spawnTimer || !this.needsWorker() || this.options.paused()) return;
    const wait = this.limiter.delay();
    if (wait > 0) {
      this.spawnTimer = setTimeout(() => {
        this.spawnTimer = undefined;
        this.fill();
      }, wait);
      this.spawnTimer.unref();
      return;
    }
    this.limiter.take();
    if (countAsRestart) this.options.onRestart();
    const worker = new WorkerProcess<Task>(this.options.databasePath, this.options.events, this.options.environment, this.options.launch);
    this.starting = worker;
    worker.ready.then(
      (identity) => {
        if (this.starting !== worker) return;
        this.starting = undefined;
        this.limiter.succeeded();
        this.noteIdentity(identity);
        this.place(worker);
        this.options.onStarted();
        this.fill();
      },
      (failure: StartFailure) => {
        if (this.starting !== worker) return;
        this.starting = undefined;
        const retryInMs = this.limiter.failed();
        this.options.onStartFailed(failure, retryInMs, this.limiter.consecutiveFailures);
        this.fill();
      },
    );
  }

  /** Kills every process. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.spawnTimer);
    const workers = this.all();
    for (const worker of workers) worker.kill();
    await Promise.all(workers.map((worker) => worker.stopped()));
  }

  private needsWorker(): boolean {
    if (this.slots.some((w) => !w)) return true;
    if (this.options.spare && (!this.spare || this.spare.stale)) return true;
    return this.slots.some((w) => w?.stale && !w.task);
  }

  /** Puts a fresh worker in an empty place, or in place of an idle stale one, or in reserve. */
  private place(worker: WorkerProcess<Task>): void {
    let index = this.slots.findIndex((w) => !w);
    if (index === -1) index = this.slots.findIndex((w) => w?.stale && !w.task);
    if (index !== -1) {
      this.slots[index]?.kill();
      this.slots[index] = worker;
    } else if (!this.spare || this.spare.stale) {
      this.spare?.kill();
      this.spare = worker;
    } else {
      worker.kill();
    }
  }
}
