/**
 * A query worker process: opens the configured connections and runs the query descriptions sent
 * by the pool (with the skills' reducers, see reducer.ts). It is a process, not a thread, so a
 * query past its timeout can be stopped for real (better-sqlite3 cannot interrupt a running
 * statement; killing the process can). DuckDB and PostgreSQL statements are interrupted first
 * when the pool asks (`{cancel}`), which keeps the process.
 *
 * The connections come in the environment (ANALYST_CONNECTIONS, JSON: URLs may hold secrets,
 * which must not show in a process list), the default connection's file as the argument.
 * Its first message says how startup went: `{ready: true, identity}` (the file it opened, so
 * the pool can tell when it is replaced), or `{ready: false, reason, message}` followed by exit
 * status 3 when the file is missing or unreadable, so the pool backs off instead of restarting
 * it in a loop. Messages are typed in workerProtocol.ts.
 */
// First in the worker's own module: signals are ignored from here on (workerSignals.ts).
import './workerSignals.ts';
import { existsSync } from 'node:fs';
import { ToolError } from '../errors/index.ts';
import { fileIdentitySync } from '../shared/fileIdentity.ts';
import { isDamaged, sqliteCode } from '../shared/sqliteErrors.ts';
import { Connections, DEFAULT_CONNECTION, openEngine, type ConnectionSpec } from './connections.ts';
import { runQuery } from './execute.ts';
import { dataUnavailableError } from './poolErrors.ts';
import { WORKER_START_FAILED, type WorkerMessage, type WorkerReply, type WorkerStartup } from './workerProtocol.ts';

const defaultFile = process.argv[2] ?? '';
if (!process.send) {
  process.stderr.write('queryWorker: run by the query pool\n');
  process.exit(2);
}
// A pool whose process ended while this one started leaves no one to answer: this process ends
// quietly then, instead of failing on the closed channel (ERR_IPC_CHANNEL_CLOSED) with a stack trace.
const orphaned = () => process.exit(0);
process.on('disconnect', orphaned);
const send = (message: WorkerStartup | WorkerReply, callback?: () => void): void => {
  if (process.connected) process.send!(message, undefined, {}, callback ?? (() => undefined));
  else orphaned();
};
const specs = JSON.parse(process.env.ANALYST_CONNECTIONS ?? '[]') as ConnectionSpec[];
const options = { statementTimeoutMs: Number(process.env.ANALYST_STATEMENT_TIMEOUT_MS ?? 0) };
delete process.env.ANALYST_CONNECTIONS;
const connections = new Connections(specs, options);

await start();

async function start(): Promise<void> {
  // A default connection on a file is opened now: a missing or unreadable file is the pool's to handle.
  const fileDefault = defaultFile !== '' ? connections.spec(DEFAULT_CONNECTION) : undefined;
  if (fileDefault) {
    try {
      connections.adopt(DEFAULT_CONNECTION, await openEngine(fileDefault, options));
    } catch (error) {
      const startup: WorkerStartup = { ready: false, reason: existsSync(defaultFile) ? 'unreadable' : 'missing', message: (error as Error).message };
      // Exit once the pool has the reason (or after a second, should the channel be gone).
      send(startup, () => process.exit(WORKER_START_FAILED));
      setTimeout(() => process.exit(WORKER_START_FAILED), 1_000).unref();
      return;
    }
  }
  serve();
}

function serve(): void {
  process.on('message', (message: WorkerMessage) => {
    if ('cancel' in message) {
      connections.interrupt();
      return;
    }
    // The pool sends one query at a time, so runs never overlap on a connection.
    runQuery(connections, message.query).then(
      (result) => send({ id: message.id, ok: true, result } satisfies WorkerReply),
      (error: unknown) => send(replyFor(message.id, error)),
    );
  });
  // The pool closes the channel to stop a worker.
  process.off('disconnect', orphaned);
  process.on('disconnect', () => {
    // A statement still running is stopped; a connection that will not close (a PostgreSQL
    // server gone quiet) does not keep the process.
    connections.interrupt();
    setTimeout(() => process.exit(0), 2_000).unref();
    void connections.close().finally(() => process.exit(0));
  });
  send({ ready: true, identity: defaultFile ? fileIdentitySync(defaultFile) : undefined } satisfies WorkerStartup);
}

function replyFor(id: number, error: unknown): WorkerReply {
  if (ToolError.isInstance(error)) {
    return { id, ok: false, toolError: { code: error.code, message: error.message, hint: error.hint, details: error.details }, message: error.message };
  }
  const code = sqliteCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if (isDamaged(code)) {
    // The file, not the query: overwritten or truncated in place ("file is not a database"); the pool checks it at once.
    const unavailable = dataUnavailableError(`its file is damaged or no longer a database (${message})`, 1);
    return { id, ok: false, toolError: { code: unavailable.code, message: unavailable.message, hint: unavailable.hint, details: unavailable.details }, message, sqliteCode: code };
  }
  return { id, ok: false, message, ...(code ? { sqliteCode: code } : {}) };
}
