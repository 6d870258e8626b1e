/**
 * Where DuckDB writes what does not fit in its memory_limit: a folder of each engine's own under
 * the system's temporary folder ($TMPDIR). DuckDB's default, `.tmp` in the working directory (or
 * beside the database file), fails on a read-only file system. Folders are removed when their
 * engine closes or its process exits; the first engine a process opens also removes those of
 * processes that ended without either (a query worker stopped with SIGKILL), so a spill of
 * gigabytes does not stay behind.
 *
 * A folder is named by its process as the kernel knows it, `analyst-duckdb-<pid namespace>-<pid>-
 * <start time>-…`: a pid alone is ambiguous where containers share /tmp (each counts pids from 1)
 * and once the pid is reused. A folder from another pid namespace is never touched.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const PREFIX = 'analyst-duckdb-';

export interface SpillFolder {
  /** The folder, or '' when none could be made (DuckDB then cannot spill: a larger query fails). */
  path: string;
  /** Removes the folder (after its engine closed). */
  remove(): void;
}

/** Folders of engines still open in this process, removed if it exits without closing them. */
const live = new Set<string>();
let swept = false;

/**
 * Makes a spill folder for one DuckDB engine.
 * @example
 * const spill = spillFolder();
 * const instance = await DuckDBInstance.create(':memory:', { temp_directory: spill.path });
 * // … on close:
 * spill.remove();
 */
export function spillFolder(): SpillFolder {
  const self = identity();
  if (!swept) {
    swept = true;
    removeStale(self);
    process.once('exit', () => {
      for (const folder of live) rmSync(folder, { recursive: true, force: true });
    });
  }
  let folder: string;
  try {
    folder = mkdtempSync(path.join(tmpdir(), `${PREFIX}${self ? `${self.namespace}-${process.pid}-${self.started}` : `0-${process.pid}-0`}-`));
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

/** This process's pid namespace and start time, from /proc; undefined without it. */
function identity(): { namespace: string; started: string } | undefined {
  try {
    const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    const started = startOf(process.pid);
    return namespace && started ? { namespace, started } : undefined;
  } catch {
    return undefined;
  }
}

/** When a process started (clock ticks after boot: field 22 of /proc/<pid>/stat); undefined when it does not run. */
function startOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Counted after the command name, which may hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * Removes, in the background, the folders of ended processes of this pid namespace: the pid no
 * longer runs, or runs a process started at another time (the pid was reused).
 */
function removeStale(self: { namespace: string; started: string } | undefined): void {
  if (!self) return;
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const [, namespace, pid, started] = /^analyst-duckdb-(\d+)-(\d+)-(\d+)-/.exec(name) ?? [];
    if (namespace !== self.namespace || Number(pid) === process.pid) continue;
    if (startOf(Number(pid)) === started) continue;
    // In the background: a spill of gigabytes takes a while to delete. Another user's folder, or
    // one being removed by another process, is not ours to insist on.
    void rm(path.join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined);
  }
}
