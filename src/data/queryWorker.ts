/**
 * A query worker process: opens the data database read-only and runs operations sent by the
 * pool. It is a process, not a thread, so a query past its timeout can be stopped for real
 * (better-sqlite3 cannot interrupt a running statement; killing the process can).
 */
import { openDataDatabase } from './database.ts';
import { operations, type OperationName } from './operations.ts';
import { ToolError } from '../errors/index.ts';

export interface WorkerRequest {
  id: number;
  operation: OperationName;
  input: unknown;
}

export type WorkerReply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; toolError?: { code: ToolError['code']; message: string; hint: string | undefined; details: Record<string, unknown> }; message: string };

const databasePath = process.argv[2];
if (!databasePath || !process.send) {
  process.stderr.write('queryWorker: run by the query pool with the database path as argument\n');
  process.exit(2);
}
const database = openDataDatabase(databasePath);
const send = process.send.bind(process);

process.on('message', (request: WorkerRequest) => {
  try {
    const run = operations[request.operation] as (db: typeof database, input: unknown) => unknown;
    send({ id: request.id, ok: true, result: run(database, request.input) } satisfies WorkerReply);
  } catch (error) {
    const reply: WorkerReply = ToolError.isInstance(error)
      ? { id: request.id, ok: false, toolError: { code: error.code, message: error.message, hint: error.hint, details: error.details }, message: error.message }
      : { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
    send(reply);
  }
});
// The pool closes the channel to stop a worker.
process.on('disconnect', () => {
  database.close();
  process.exit(0);
});
send({ ready: true });
