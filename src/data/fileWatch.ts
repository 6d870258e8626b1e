/**
 * Notices when a database file disappears, comes back or is replaced: an asynchronous `stat`
 * on a timer (never on a request, never blocking the event loop), reporting the file's
 * identity (device and inode). Used by the query pool for DATA_DB.
 */
import { stat } from 'node:fs/promises';
import type { FileIdentity } from './workerProtocol.ts';

/** What a check found: no file at the path, or the file there. */
export type FileState = { present: false } | { present: true; identity: FileIdentity };

export interface FileWatch {
  /** Checks now (a check already under way is not repeated). */
  check(): void;
  stop(): void;
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
      (found) => report({ present: true, identity: { dev: found.dev, ino: found.ino } }),
      // Any failure to stat (gone, permissions, a folder vanished) means the file cannot be used.
      () => report({ present: false }),
    );
  };
  const report = (state: FileState) => {
    running = false;
    if (!stopped) onState(state);
  };
  const timer = setInterval(check, intervalMs);
  timer.unref();
  return {
    check,
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/**
 * The identity of a file now, or undefined when there is none.
 * @example
 * const identity = await fileIdentity('data/sample.db');
 */
export async function fileIdentity(file: string): Promise<FileIdentity | undefined> {
  try {
    const found = await stat(file);
    return { dev: found.dev, ino: found.ino };
  } catch {
    return undefined;
  }
}
