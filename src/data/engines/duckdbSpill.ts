/**
 * Where DuckDB writes what does not fit in its memory_limit: a folder of each engine's own under
 * the system's temporary folder ($TMPDIR). DuckDB's default, `.tmp` in the working directory (or
 * beside the database file), fails on a read-only file system. A folder is removed when its
 * engine closes or its process exits normally; a query worker's live in a folder the pool gives
 * it (workerTemporaryFolder) and removes once the worker has ended, SIGKILL or not.
 * The first engine a process opens also removes, in the background, folders left by processes
 * that ended otherwise (a crash, a host's OOM killer).
 *
 * A folder is named by its process as the kernel knows it, `analyst-duckdb-<boot>-<pid
 * namespace>-<pid>-<start time>-…`: a pid alone is ambiguous where containers share /tmp (each
 * counts pids from 1), across hosts sharing a volume, and once the pid is reused. Folders of
 * another boot or pid namespace are never touched. Without /proc (not Linux) nothing is swept.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const PREFIX = 'analyst-duckdb-';
/** Set by the query pool for each worker (workerTemporaryFolder): where its spill folders go instead of $TMPDIR. */
export const SPILL_DIRECTORY_VARIABLE = 'ANALYST_SPILL_DIRECTORY';

/** Where an engine makes its spill folder: the worker's own folder, or $TMPDIR (the only one swept). */
const spillBase = () => process.env[SPILL_DIRECTORY_VARIABLE] || tmpdir();
const NAME = /^analyst-duckdb-([0-9a-f]+)-(\d+)-(\d+)-(\d+)-/;

export interface SpillFolder {
  /** The folder, or '' when none could be made (DuckDB then cannot spill: a larger query fails). */
  path: string;
  /** Removes the folder (after its engine closed). */
  remove(): void;
}

interface Identity {
  /** The kernel's boot (part of its boot_id): pid namespaces are numbered per boot and host. */
  boot: string;
  namespace: string;
  pid: number;
  started: string;
}

/** Folders of engines still open in this process, removed if it exits without closing them. */
const live = new Set<string>();
process.once('exit', () => {
  for (const folder of live) rmSync(folder, { recursive: true, force: true });
});

/** This process (read once: it does not change), and the start of its folders' names. */
const self = identity();
const ownPrefix = self ? `${PREFIX}${self.boot}-${self.namespace}-${self.pid}-${self.started}-` : `${PREFIX}0-0-${process.pid}-0-`;
let swept = false;

/** Removes, once per process, the folders ended processes left in $TMPDIR (see removeEnded). */
function sweepOnce(): void {
  if (swept || !self) return;
  swept = true;
  removeEnded(self);
}

/**
 * Makes a spill folder for one DuckDB engine.
 * @example
 * const spill = spillFolder();
 * const instance = await DuckDBInstance.create(':memory:', { temp_directory: spill.path });
 * // … on close:
 * spill.remove();
 */
export function spillFolder(): SpillFolder {
  // A query worker's base is its own fresh folder: nothing to sweep there (its pool sweeps $TMPDIR).
  if (!process.env[SPILL_DIRECTORY_VARIABLE]) sweepOnce();
  let folder: string;
  try {
    folder = mkdtempSync(path.join(spillBase(), ownPrefix));
  } catch {
    // $TMPDIR not writable (a read-only file system without a temporary volume): DuckDB still
    // answers everything that fits in memory.
    return { path: '', remove: () => undefined };
  }
  live.add(folder);
  return {
    path: folder,
    remove: () => {
      live.delete(folder);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/**
 * A folder for one query worker's spill folders, under $TMPDIR, named like a spill folder after
 * this (the pool's) process: the worker gets it in SPILL_DIRECTORY_VARIABLE, and the pool
 * removes it, in the background, once the worker has ended — a worker stopped with SIGKILL (at
 * shutdown, or past its time) cannot remove its own. Should the pool's process end first, the
 * next sweep removes it. Undefined when none can be made.
 * @example
 * const folder = workerTemporaryFolder();
 * fork(script, [], { env: { ...process.env, ...(folder ? { [SPILL_DIRECTORY_VARIABLE]: folder } : {}) } });
 */
export function workerTemporaryFolder(): string | undefined {
  sweepOnce();
  try {
    return mkdtempSync(path.join(tmpdir(), `${ownPrefix}worker-`));
  } catch {
    return undefined;
  }
}

/**
 * Removes the folders in $TMPDIR of this boot and pid namespace whose process has ended: its pid no longer
 * runs, or runs a process started at another time (the pid was reused). A process whose start
 * cannot be read for another reason (too many open files, a hidden /proc) is taken as running.
 */
function removeEnded(self: Identity): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const [, boot, namespace, pidText, started] = NAME.exec(name) ?? [];
    const pid = Number(pidText);
    if (boot !== self.boot || namespace !== self.namespace) continue;
    if (pid === self.pid && started === self.started) continue;
    const now = startOf(pid);
    if (now === 'unknown' || now === started) continue;
    // In the background: a spill of gigabytes takes a while to delete. Another user's folder, or
    // one being removed by another process, is not ours to insist on.
    void rm(path.join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined);
  }
}

/** This process as /proc/self says (its pid there, so a /proc of another namespace is noticed); undefined without /proc. */
function identity(): Identity | undefined {
  try {
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').replaceAll('-', '').slice(0, 12);
    const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const pid = Number(stat.slice(0, stat.indexOf(' ')));
    const started = fieldsAfterName(stat)[19];
    if (!/^[0-9a-f]+$/.test(boot) || !namespace || pid !== process.pid || !started) return undefined;
    return { boot, namespace, pid, started };
  } catch {
    return undefined;
  }
}

/**
 * When a process started (clock ticks after boot, field 22 of /proc/<pid>/stat); 'ended' when it
 * does not run, 'unknown' when that cannot be read.
 */
function startOf(pid: number): string | 'ended' | 'unknown' {
  try {
    return fieldsAfterName(readFileSync(`/proc/${pid}/stat`, 'utf8'))[19] ?? 'unknown';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ESRCH' ? 'ended' : 'unknown';
  }
}

/** The fields of a stat line from field 3 on: after the command name, which may hold spaces and parentheses. */
function fieldsAfterName(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
