/**
 * The data layer's one entry point for skills: a query description in, a bounded result out.
 * Asynchronous because in the service the work runs in query worker processes (queryPool.ts),
 * off the HTTP event loop; `createDataAccess` runs it in this process, for tests and scripts.
 */
import { ToolError } from '../errors/index.ts';
import { DEFAULT_DUCKDB_MEMORY_LIMIT } from '../shared/memorySize.ts';
import { Connections, DEFAULT_CONNECTION } from './connections.ts';
import type { DataDatabase } from './database.ts';
import { sqliteEngine } from './engines/sqlite.ts';
import { runQuery } from './execute.ts';
import { cancelledError } from './poolErrors.ts';
import type { Query, ResultOf } from './query.ts';

export interface DataAccess {
  /**
   * Runs a query description (query.ts). `caller` is the identity of the API key it runs for
   * (Caller.identity): the worker pool shares its workers and wait line fairly between callers.
   * Skills leave it out; forCaller adds it.
   * @throws ToolError query_failed, timeout (also when cancelled), busy, data_unavailable
   */
  run<Q extends Query>(query: Q, signal?: AbortSignal, caller?: string): Promise<ResultOf<Q>>;
  /**
   * How many queries run at once (the pool's workers; 1 in process). A skill that runs several
   * queries side by side runs at most this many: more would wait in the pool's line, where a
   * query may wait only so long before it is refused as busy.
   */
  readonly concurrency: number;
  close(): Promise<void>;
}

/**
 * Runs queries in this process, on an open SQLite database (as the default connection) or on
 * connections. For tests and command-line tools; the service uses the worker pool so that
 * queries can be timed out.
 * @example
 * const data = createDataAccess(openDataDatabase('data/sample.db'));
 * const { rows } = await data.run({ kind: 'select', table: 'fi_reporting', aggregates: [{ name: 'rows', function: 'count' }] });
 */
export function createDataAccess(source: DataDatabase | Connections): DataAccess {
  const connections = source instanceof Connections ? source : Connections.of({ [DEFAULT_CONNECTION]: sqliteEngine(source) });
  // One query at a time, as one worker process runs them: each engine holds one connection, and
  // DuckDB cannot stream two results on one connection at once (callers may run queries together).
  let turn: Promise<unknown> = Promise.resolve();
  return {
    run: (query, signal) => {
      const result = turn.then(async () => {
        if (signal?.aborted) throw cancelledError();
        const onAbort = () => connections.interrupt();
        signal?.addEventListener('abort', onAbort, { once: true });
        try {
          return await runQuery(connections, query);
        } catch (error) {
          throw ToolError.isInstance(error) ? error : signal?.aborted ? cancelledError() : queryFailure(error);
        } finally {
          signal?.removeEventListener('abort', onAbort);
        }
      });
      turn = result.catch(() => undefined);
      return result;
    },
    concurrency: 1,
    close: () => connections.close(),
  };
}

/**
 * `data` with every query run for `caller` (an API key's identity), so the pool can keep one key
 * from holding more than its share of the workers.
 * @example
 * const data = forCaller(pool, caller.identity);
 * await data.run(query, signal); // queued in caller's turn
 */
export function forCaller(data: DataAccess, caller: string): DataAccess {
  return {
    run: (query, signal) => data.run(query, signal, caller),
    concurrency: data.concurrency,
    // A view: the data it reads from belongs to the service.
    close: async () => {},
  };
}

/** Database errors become a recoverable tool error with the database's message and no stack. */
export function queryFailure(error: unknown): ToolError {
  const message = error instanceof Error ? error.message : String(error);
  // DuckDB past its memory_limit, even after spilling: the names are right, the query too large.
  const hint = /Out of Memory Error/i.test(message)
    ? `DuckDB needed more memory than its connection's memory_limit allows: narrow the question (fewer companies, periods or alignment dimensions), or raise the limit (memory_limit of the connection in the catalog, or DUCKDB_MEMORY_LIMIT for every DuckDB connection, ${DEFAULT_DUCKDB_MEMORY_LIMIT} by default).`
    : 'Check the source, measure and filter names against the catalog of sources, or narrow the question.';
  return new ToolError('query_failed', `The database could not run the query: ${message}`, { hint });
}
