/**
 * A query worker process: opens the data database read-only and runs the query descriptions
 * sent by the pool (with the skills' reducers, see reducer.ts). It is a process, not a thread, so a query past its timeout can be stopped for real
 * (better-sqlite3 cannot interrupt a running statement; killing the process can).
 *
 * Its first message says how startup went: `{ready: true, identity}` (the file it opened, so
 * the pool can tell when DATA_DB is replaced), or `{ready: false, reason, message}` followed by
 * exit status 3 when the file is missing or unreadable, so the pool backs off instead of
 * restarting it in a loop. Messages are typed in workerProtocol.ts.
 */
import { existsSync } from 'node:fs';
import { ToolError } from '../errors/index.ts';
import { openDataDatabase, type DataDatabase } from './database.ts';
import { runQuery } from './sqliteEngine.ts';
import { fileIdentitySync } from '../shared/fileIdentity.ts';
import { sqliteCode } from '../shared/sqliteErrors.ts';
import { WORKER_START_FAILED, type WorkerReply, type WorkerRequest, type WorkerStartup } from './workerProtocol.ts';

const databasePath = process.argv[2];
if (!databasePath || !process.send) {
  process.stderr.write('queryWorker: run by the query pool with the database path as argument\n');
  process.exit(2);
}
const send = process.send.bind(process);

let database: DataDatabase | undefined;
try {
  database = openDataDatabase(databasePath);
} catch (error) {
  const startup: WorkerStartup = { ready: false, reason: existsSync(databasePath) ? 'unreadable' : 'missing', message: (error as Error).message };
  // Exit once the pool has the reason (or after a second, should the channel be gone).
  send(startup, () => process.exit(WORKER_START_FAILED));
  setTimeout(() => process.exit(WORKER_START_FAILED), 1_000).unref();
}

if (database) serve(database);

function serve(db: DataDatabase): void {
  process.on('message', (request: WorkerRequest) => {
    // The pool sends one query at a time, so runs never overlap on the connection.
    runQuery(db, request.query).then(
      (result) => send({ id: request.id, ok: true, result } satisfies WorkerReply),
      (error: unknown) => send(replyFor(request.id, error)),
    );
  });
  // The pool closes the channel to stop a worker.
  process.on('disconnect', () => {
    db.close();
    process.exit(0);
  });
  send({ ready: true, identity: fileIdentitySync(databasePath!) } satisfies WorkerStartup);
}

function replyFor(id: number, error: unknown): WorkerReply {
  if (ToolError.isInstance(error)) {
    return { id, ok: false, toolError: { code: error.code, message: error.message, hint: error.hint, details: error.details }, message: error.message };
  }
  const code = sqliteCode(error);
  return { id, ok: false, message: error instanceof Error ? error.message : String(error), ...(code ? { sqliteCode: code } : {}) };
}
