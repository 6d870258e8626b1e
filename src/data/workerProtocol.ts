/**
 * The messages between the query pool and its worker processes (see queryPool.ts and
 * queryWorker.ts), in a module of their own so the pool can import them without running a worker.
 */
import type { ToolError } from '../errors/index.ts';
import type { OperationName } from './operations.ts';

export interface WorkerRequest {
  id: number;
  operation: OperationName;
  input: unknown;
}

export type WorkerReply =
  | { id: number; ok: true; result: unknown }
  | {
      id: number;
      ok: false;
      toolError?: { code: ToolError['code']; message: string; hint: string | undefined; details: Record<string, unknown> };
      message: string;
      /** SQLite's error code (`SQLITE_CORRUPT`…), so the pool can tell a damaged file from a bad query. */
      sqliteCode?: string;
    };

/** A file's device and inode: whether a path still names the file that was opened. */
export interface FileIdentity {
  dev: number;
  ino: number;
}

/** The first message of a worker: it opened the data database, or why it could not. */
export type WorkerStartup =
  | { ready: true; identity: FileIdentity | undefined }
  | { ready: false; reason: 'missing' | 'unreadable'; message: string };

/** Exit status of a worker that could not open the data database. */
export const WORKER_START_FAILED = 3;

/** SQLite error codes that mean the file itself is damaged or gone, not that the query was wrong. */
export function isFileFailure(sqliteCode: string | undefined): boolean {
  return sqliteCode !== undefined && /^SQLITE_(CORRUPT|NOTADB|IOERR|CANTOPEN)/.test(sqliteCode);
}

/**
 * Whether two identities name the same file.
 * @example
 * sameFile({ dev: 1, ino: 7 }, { dev: 1, ino: 7 }); // true
 */
export function sameFile(a: FileIdentity | undefined, b: FileIdentity | undefined): boolean {
  return a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;
}
