/**
 * Which file a path names (device and inode), and a watch that notices when a file disappears,
 * comes back, is replaced, or is overwritten or truncated in place (its first bytes no longer
 * those of the database it was): an asynchronous `stat` and header read on a timer (never on a
 * request, never blocking the event loop). Used for DATA_DB by the query pool and its workers,
 * and for APP_DB by the application database guard.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';

/** A file's device and inode: whether a path still names the file that was opened. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/**
 * What a check found: the file there, or no usable one: none at all, or (`problem`) one that is no
 * longer the database it was, e.g. "cannot be opened as a SQLite database: it was overwritten or truncated, …".
 */
export type FileState = { present: false; problem?: string } | { present: true; identity: FileIdentity };

export interface FileWatch {
  /** Checks now (a check already under way is not repeated). */
  check(): void;
  stop(): void;
}

/**
 * Whether two identities name the same file.
 * @example
 * sameFile({ dev: 1, ino: 7 }, { dev: 1, ino: 7 }); // true
 */
export function sameFile(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  return a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;
}

/**
 * The identity of a file now, or undefined when there is none.
 * @example
 * const identity = await fileIdentity('data/sample.db');
 */
export async function fileIdentity(file: string): Promise<FileIdentity | undefined> {
  try {
    return identityOf(await stat(file));
  } catch {
    return undefined;
  }
}

/**
 * {@link fileIdentity}, synchronously: for a worker's startup and a check before a write.
 * @example
 * const identity = fileIdentitySync('data/app.db');
 */
export function fileIdentitySync(file: string): FileIdentity | undefined {
  const found = statSync(file, { throwIfNoEntry: false });
  return found ? identityOf(found) : undefined;
}

function identityOf(found: { dev: number; ino: number }): FileIdentity {
  return { dev: found.dev, ino: found.ino };
}

export interface WatchOptions {
  /**
   * Also report a SQLite file shorter than its header records (default true). Off for a file this
   * process writes itself: a checkpoint writes the header's new size before the pages that follow.
   */
  checkSize?: boolean;
}

/** The database formats a watched file is recognised as, by its first bytes. */
type FileFormat = 'SQLite' | 'DuckDB';

/** SQLite's header is 100 bytes; DuckDB's magic sits at bytes 8–11. */
const HEADER_BYTES = 100;
const SQLITE_MAGIC = 'SQLite format 3\0';
/** A file shorter than its header says is read again after this pause before it is reported: a writer may be between two writes. */
const CONFIRM_MS = 50;

/**
 * Calls `onState` after every check, every `intervalMs` and whenever `check()` is called. A file
 * first seen as a SQLite or DuckDB database is expected to stay one: when its first bytes no
 * longer say so, or a SQLite file is shorter than its header says (truncated; read again a
 * moment later to be sure), the check reports `{ present: false, problem }`. A file that is whole
 * again is reported present as usual.
 * @example
 * const watch = watchFile('/data/finance.db', 1000, (state) => console.log(state.present));
 * watch.stop();
 */
export function watchFile(file: string, intervalMs: number, onState: (state: FileState) => void, options: WatchOptions = {}): FileWatch {
  let running = false;
  let stopped = false;
  // What the file is now (read once, at startup): a file damaged before the first check is still noticed.
  let format = formatOfFileSync(file);
  const check = () => {
    if (running || stopped) return;
    running = true;
    inspect().then(report, () => report({ present: false }));
  };
  const inspect = async (): Promise<FileState> => {
    // Any failure to stat (gone, permissions, a folder vanished) means the file cannot be used.
    const found = await stat(file).catch(() => undefined);
    if (!found) return { present: false };
    const state: FileState = { present: true, identity: identityOf(found) };
    const first = await readHeader(file);
    format ??= first && formatOf(first.header);
    const checkSize = options.checkSize ?? true;
    const damage = format && first ? contentProblem(format, first, checkSize) : undefined;
    if (!format || !damage) return state;
    // Another database kind's bytes are conclusive; a short file may be a writer between two writes.
    if (formatOf(first!.header) !== format) return { present: false, problem: damage };
    await new Promise((resolve) => setTimeout(resolve, CONFIRM_MS));
    const again = await readHeader(file);
    const problem = again ? contentProblem(format, again, checkSize) : undefined;
    return problem ? { present: false, problem } : state;
  };
  const report = (state: FileState) => {
    running = false;
    if (!stopped) onState(state);
  };
  const timer = setInterval(check, intervalMs);
  // The watch alone must not keep the process alive.
  timer.unref();
  return {
    check,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/** The first HEADER_BYTES bytes of a file (fewer when it is shorter) and its size; undefined when it cannot be read. */
async function readHeader(file: string): Promise<{ header: Buffer; size: number } | undefined> {
  const handle = await open(file, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(HEADER_BYTES), 0, HEADER_BYTES, 0);
    return { header: buffer.subarray(0, bytesRead), size: (await handle.stat()).size };
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function formatOfFileSync(file: string): FileFormat | undefined {
  try {
    const fd = openSync(file, 'r');
    try {
      const header = Buffer.alloc(HEADER_BYTES);
      return formatOf(header.subarray(0, readSync(fd, header, 0, HEADER_BYTES, 0)));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

function formatOf(header: Buffer): FileFormat | undefined {
  if (header.length >= SQLITE_MAGIC.length && header.toString('latin1', 0, SQLITE_MAGIC.length) === SQLITE_MAGIC) return 'SQLite';
  if (header.length >= 12 && header.toString('latin1', 8, 12) === 'DUCK') return 'DuckDB';
  return undefined;
}

/**
 * Why a file that was a `format` database cannot be used as one now, or undefined. A SQLite file
 * is also checked against the size its header records (trusted only when the header says it is
 * current, bytes 92–95 equal to the change counter at 24–27).
 */
function contentProblem(format: FileFormat, { header, size }: { header: Buffer; size: number }, checkSize: boolean): string | undefined {
  if (formatOf(header) !== format) return `cannot be opened as a ${format} database: it was overwritten or truncated, or another kind of file put in its place`;
  if (format !== 'SQLite' || !checkSize) return undefined;
  if (header.length < HEADER_BYTES) return `was truncated in place: it holds ${size} bytes, less than a SQLite header`;
  const pageSize = header.readUInt16BE(16) === 1 ? 65_536 : header.readUInt16BE(16);
  const pages = header.readUInt32BE(28);
  const current = header.readUInt32BE(92) === header.readUInt32BE(24);
  if (current && size < pages * pageSize) return `was truncated in place: it holds ${size} bytes of the ${pages * pageSize} its header records`;
  return undefined;
}
