/**
 * Which file a path names (device and inode), and a watch that notices when a file disappears,
 * comes back or is replaced: an asynchronous `stat` on a timer (never on a request, never
 * blocking the event loop). Used for DATA_DB by the query pool and its workers, and for APP_DB
 * by the application database guard.
 */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';

/** A file's device and inode: whether a path still names the file that was opened. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** What a check found: no file at the path, or the file there. */
export type FileState = { present: false } | { present: true; identity: FileIdentity };

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

/**
 * Calls `onState` after every check, every `intervalMs` and whenever `check()` is called.
 * @example
 * const watch = watchFile('/data/finance.db', 1000, (state) => console.log(state.present));
 * watch.stop();
 */
export function watchFile(file: string, intervalMs: number, onState: (state: FileState) => void): FileWatch {
  let running = false;
  let stopped = false;
  const check = () => {
    if (running || stopped) return;
    running = true;
    stat(file).then(
      (found) => report({ present: true, identity: identityOf(found) }),
      // Any failure to stat (gone, permissions, a folder vanished) means the file cannot be used.
      () => report({ present: false }),
    );
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
