/**
 * The messages between the query pool and its worker processes (see queryPool.ts and
 * queryWorker.ts), in a module of their own so the pool can import them without running a worker.
 */
import type { ToolError } from '../errors/index.ts';
import type { FileIdentity } from '../shared/fileIdentity.ts';
import type { Query } from './query.ts';

export interface WorkerRequest {
  id: number;
  query: Query;
}

/** Stop the running query's statement where the engine can (DuckDB, PostgreSQL); the reply follows as usual. */
export interface WorkerCancel {
  cancel: number;
}

export type WorkerMessage = WorkerRequest | WorkerCancel;

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

/** The first message of a worker: it opened the data database, or why it could not. */
export type WorkerStartup =
  | { ready: true; identity: FileIdentity | undefined }
  | { ready: false; reason: 'missing' | 'unreadable'; message: string };

/** Exit status of a worker that could not open the data database. */
export const WORKER_START_FAILED = 3;
