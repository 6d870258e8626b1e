/**
 * The data layer's one entry point for skills: a query description in, a bounded result out.
 * Asynchronous because in the service the work runs in query worker processes (queryPool.ts),
 * off the HTTP event loop; `createDataAccess` runs it in this process, for tests and scripts.
 */
import { ToolError } from '../errors/index.ts';
import type { DataDatabase } from './database.ts';
import { cancelledError } from './poolErrors.ts';
import type { Query, ResultOf } from './query.ts';
import { runQuery } from './sqliteEngine.ts';

export interface DataAccess {
  /**
   * Runs a query description (query.ts).
   * @throws ToolError query_failed, timeout (also when cancelled), busy, data_unavailable
   */
  run<Q extends Query>(query: Q, signal?: AbortSignal): Promise<ResultOf<Q>>;
  close(): Promise<void>;
}

/**
 * Runs queries on the given connection in this process. For tests and command-line tools; the
 * service uses the worker pool so that queries can be timed out.
 * @example
 * const data = createDataAccess(openDataDatabase('data/sample.db'));
 * const { rows } = await data.run({ kind: 'select', table: 'fi_reporting', aggregates: [{ name: 'rows', function: 'count' }] });
 */
export function createDataAccess(database: DataDatabase): DataAccess {
  return {
    run: async (query, signal) => {
      if (signal?.aborted) throw cancelledError();
      try {
        return await runQuery(database, query);
      } catch (error) {
        throw ToolError.isInstance(error) ? error : queryFailure(error);
      }
    },
    close: async () => {
      database.close();
    },
  };
}

/** Database errors become a recoverable tool error with the database's message and no stack. */
export function queryFailure(error: unknown): ToolError {
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError('query_failed', `The database could not run the query: ${message}`, {
    hint: 'Check the source, measure and filter names against the catalog of sources, or narrow the question.',
  });
}
