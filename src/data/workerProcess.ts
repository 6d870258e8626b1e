/**
 * One query worker process as the pool sees it: started with `fork`, ready once it has opened
 * the data database (or failed, with the reason), then one request at a time. The pool owns
 * the scheduling; this module only wraps the process and its messages.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { constants, getPriority, setPriority } from 'node:os';
import type { FileIdentity } from '../shared/fileIdentity.ts';
import { SPILL_DIRECTORY_VARIABLE, workerTemporaryFolder } from './engines/duckdbSpill.ts';
import { TYPESCRIPT_LAUNCH, type WorkerLaunch } from './workerBuild.ts';
import type { WorkerMessage, WorkerReply, WorkerStartup } from './workerProtocol.ts';

/**
 * The niceness of a process that yields the CPU: the lowest priority there is (19). At +10 an
 * abandoned statement still took enough of a core to push another key's p99 past 2× its idle
 * p99 in some runs of the fairness load; at 19 it only runs when nothing else wants the core.
 */
const YIELD_NICENESS = constants.priority.PRIORITY_LOW;

/**
 * Whether this process may give a lowered worker its priority back. Linux needs CAP_SYS_NICE:
 * root has it, except in containers that drop it (Docker does by default). Where it is missing
 * nothing is lowered at all: a worker lowered once would stay below its peers for good, and a
 * short query sent to it would wait behind them.
 */
export const mayRaisePriority: boolean = canRaisePriority();

function canRaisePriority(): boolean {
  try {
    const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    // Bit 23 of the effective capabilities is CAP_SYS_NICE.
    if (effective !== undefined) return ((BigInt(`0x${effective}`) >> 23n) & 1n) === 1n;
  } catch {
    // Not Linux: raising a priority needs root.
  }
  return process.getuid?.() === 0;
}

/** Why a worker did not become ready. */
export interface StartFailure {
  /** `missing`/`unreadable`: the data file; `crashed`: the process died without saying why. */
  reason: 'missing' | 'unreadable' | 'crashed';
  message: string;
}

export interface WorkerEvents<Task = unknown> {
  reply(worker: WorkerProcess<Task>, reply: WorkerReply): void;
  /** The process ended by itself (not through `kill`) after it was ready. */
  exit(worker: WorkerProcess<Task>, description: string): void;
}

/**
 * Worker processes still running, with their spill folders. Should this process exit without
 * stopping them (a second Ctrl-C, a fatal error), they are killed with it: a worker ignores the signals a terminal or
 * systemd sends the whole group, and one inside a long SQLite statement would not notice its
 * closed channel until the statement ends.
 */
const live = new Map<ChildProcess, string | undefined>();
process.once('exit', () => {
  for (const [child, folder] of live) {
    child.kill('SIGKILL');
    // Best effort: a file the dying worker still writes is left to the next start's sweep.
    if (folder) rmSync(folder, { recursive: true, force: true, maxRetries: 2 });
  }
});

/** A forked worker process and the query it is running, if any. */
export class WorkerProcess<Task = unknown> {
  readonly child: ChildProcess;
  /** Resolves with the identity of the file it opened; rejects with a StartFailure. */
  readonly ready: Promise<FileIdentity | undefined>;
  state: 'starting' | 'ready' | 'gone' = 'starting';
  identity: FileIdentity | undefined;
  /** The query running here (also while a cancelled one is given a moment to finish). */
  task: Task | undefined;
  /** Fires QUERY_TIMEOUT_MS after the task started, or at the end of a cancel's grace period. */
  timer: NodeJS.Timeout | undefined;
  graceTimer: NodeJS.Timeout | undefined;
  /** The data file was replaced since this worker opened it: retire it when a fresh one is ready. */
  stale = false;
  /** Fires when the running query has run long enough to yield the CPU (see yieldCpu). */
  yieldTimer: NodeJS.Timeout | undefined;
  /** The priority the process had before it yielded (see yieldCpu); undefined when it has not. */
  private normalPriority: number | undefined;
  /** Settles once the process has ended (or could not start) and its spill folder is removed. */
  private removed: Promise<void>;
  /** What an exit means for the pool (a crash, a failed start); kill() leaves it unheard. */
  private exited: ((code: number | null, signal: NodeJS.Signals | null) => void) | undefined;

  /**
   * @param databasePath the default connection's file ('' when it has none), checked at startup
   * @param environment the connections (ANALYST_CONNECTIONS) and statement timeout, kept out of the process list
   * @param launch the worker script (built JavaScript, see workerBuild.ts) and Node's flags for it
   */
  /**
   * @param yieldWhileStarting start at the lowest priority (a replacement or spare, while queries run);
   *   the first workers start at the service's own: nothing runs yet, and lowered they waited behind
   *   the service's own start-up threads (a tenth of a start).
   */
  constructor(databasePath: string, events: WorkerEvents<Task>, environment: Record<string, string> = {}, launch: WorkerLaunch = TYPESCRIPT_LAUNCH, yieldWhileStarting = true) {
    const temporary = workerTemporaryFolder();
    try {
      this.child = fork(launch.script, [databasePath], {
        execArgv: launch.execArgv,
        env: { ...process.env, ...environment, ...(temporary ? { [SPILL_DIRECTORY_VARIABLE]: temporary } : {}) },
        serialization: 'advanced',
        // A worker's stdout goes to stderr: under the MCP stdio server, stdout carries the protocol alone.
        stdio: ['ignore', process.stderr, 'inherit', 'ipc'],
      });
    } catch (error) {
      if (temporary) rmSync(temporary, { recursive: true, force: true });
      throw error;
    }
    this.ready = new Promise<FileIdentity | undefined>((resolve, reject) => {
      let failure: StartFailure | undefined;
      this.child.on('message', (message: WorkerStartup | WorkerReply) => {
        if ('id' in message) {
          if (this.state === 'ready') events.reply(this, message);
        } else if (message.ready) {
          this.state = 'ready';
          this.identity = message.identity;
          resolve(message.identity);
        } else {
          failure = { reason: message.reason, message: message.message };
        }
      });
      // A process that cannot be started at all (EAGAIN) counts as a crash while starting.
      this.child.on('error', (error) => {
        if (this.state !== 'starting') return;
        this.state = 'gone';
        reject({ reason: 'crashed', message: `a query worker could not be started (${error.message})` } satisfies StartFailure);
      });
      this.exited = (code, signal) => {
        const description = signal ?? `exit code ${code}`;
        const wasReady = this.state === 'ready';
        this.state = 'gone';
        if (!wasReady) reject(failure ?? ({ reason: 'crashed', message: `a query worker stopped while starting (${description})` } satisfies StartFailure));
        else events.exit(this, description);
      };
      this.child.once('exit', this.exited);
    });
    // A worker stopped with SIGKILL (shutdown, a query past its time) cannot remove what it
    // spilled: its spill folder goes once it has ended, in the background (gigabytes take a
    // while), and stopped() waits for that. A process that could not be started ends with
    // 'error' alone.
    live.set(this.child, temporary);
    this.removed = new Promise((resolve) => {
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        live.delete(this.child);
        if (!temporary) return resolve();
        rm(temporary, { recursive: true, force: true }).then(resolve, () => resolve());
      };
      this.child.once('exit', finish);
      this.child.once('error', () => {
        if (this.child.pid === undefined) finish();
      });
    });
    this.ready.catch(() => undefined);
    // Starting a process (about 0.13 s of CPU) is no one's answer yet: it yields to running queries.
    if (yieldWhileStarting) {
      this.yieldCpu();
      this.ready.then(() => this.reclaimCpu(), () => undefined);
    }
  }

  /**
   * Lowers the process's CPU priority, so that a long statement or a start-up gives the cores
   * to short queries first: on a small machine one key's heavy or abandoned comparisons would
   * otherwise double another key's trivial query (issue 19). A priority Node may not set is ignored.
   */
  yieldCpu(): void {
    if (!mayRaisePriority || this.normalPriority !== undefined || this.child.pid === undefined) return;
    try {
      const normal = getPriority(this.child.pid);
      setPriority(this.child.pid, Math.max(normal, YIELD_NICENESS));
      this.normalPriority = normal;
    } catch {
      // Not permitted or already gone: the process keeps its priority.
    }
  }

  /**
   * Gives the process its normal priority back once its long query ended (yieldCpu only lowers
   * where this is allowed: mayRaisePriority).
   */
  reclaimCpu(): void {
    clearTimeout(this.yieldTimer);
    this.yieldTimer = undefined;
    if (this.normalPriority === undefined || this.child.pid === undefined || this.state === 'gone') return;
    try {
      setPriority(this.child.pid, this.normalPriority);
      this.normalPriority = undefined;
    } catch {
      // Already gone, or the capability was dropped since start: it stays lowered.
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  send(message: WorkerMessage): void {
    this.child.send(message);
  }

  /** Stops the process now (SIGKILL: a running statement cannot be interrupted otherwise); no exit event follows. */
  kill(): void {
    clearTimeout(this.timer);
    clearTimeout(this.graceTimer);
    clearTimeout(this.yieldTimer);
    this.timer = undefined;
    this.graceTimer = undefined;
    this.yieldTimer = undefined;
    this.task = undefined;
    this.state = 'gone';
    if (this.exited) this.child.removeListener('exit', this.exited);
    this.child.removeAllListeners('message');
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  /** Resolves once the process has ended and its spill folder is gone (call `kill` first to stop it). */
  stopped(): Promise<void> {
    return this.removed;
  }
}
