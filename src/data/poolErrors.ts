/**
 * The tool errors the query pool answers with: the service is busy, the data database is
 * unavailable, the query ran too long, the caller cancelled, the worker failed. Each carries a
 * hint the model (or a dashboard) can act on; `busy` and `data_unavailable` also say when to retry.
 * A worker's own failure is dataAccess.ts's `queryFailure`.
 */
import { ToolError } from '../errors/index.ts';

/**
 * All workers are busy and the queue is full, the caller's key already has its share of the
 * queue waiting, or the query waited too long for a worker.
 * @example
 * throw busyError('queue_full', { workers: 2, queued: 32, retryAfterSeconds: 2 });
 */
export function busyError(reason: 'queue_full' | 'key_share' | 'queue_wait', state: { workers: number; queued: number; waitedMs?: number; retryAfterSeconds: number }): ToolError {
  const message =
    reason === 'queue_full'
      ? `The service is busy: all ${state.workers} query workers are running and ${state.queued} queries are waiting.`
      : reason === 'key_share'
        ? `The service is busy: this API key already has ${state.queued} queries waiting, its share of the queue; other keys' queries go first.`
        : `The service is busy: the query waited ${describeDuration(state.waitedMs ?? 0)} for a query worker and was given up.`;
  return new ToolError('busy', message, {
    hint: `Retry in ${state.retryAfterSeconds} s; nothing was run. A narrower question (fewer companies, periods or alignment dimensions) runs faster.`,
    details: { reason, retry_after_seconds: state.retryAfterSeconds },
  });
}

/**
 * The data database cannot be read (missing, unreadable or being replaced); nothing was run.
 * @example
 * throw dataUnavailableError('the data database sample.db is missing', 3);
 */
export function dataUnavailableError(reason: string, retryAfterSeconds: number): ToolError {
  return new ToolError('data_unavailable', `The data database is unavailable: ${reason}.`, {
    hint: `Nothing was run. Retry in ${retryAfterSeconds} s; the service checks the file again on its own. GET /health says when it is back.`,
    details: { retry_after_seconds: retryAfterSeconds },
  });
}

/**
 * A query stopped at QUERY_TIMEOUT_MS.
 * @example
 * throw timeoutError(30_000);
 */
export function timeoutError(timeoutMs: number): ToolError {
  return new ToolError('timeout', `The query ran longer than ${describeDuration(timeoutMs)} and was stopped.`, {
    hint: 'Narrow the question: filter on fewer companies or periods, align on fewer dimensions, or ask for totals first.',
  });
}

/**
 * The caller went away (client disconnect, deadline) before the query finished.
 * @example
 * task.reject(cancelledError());
 */
export function cancelledError(): ToolError {
  return new ToolError('timeout', 'The question was cancelled before the query finished.');
}

/**
 * The pool is closing: queued and running operations fail, and new ones are refused.
 * @example
 * task.reject(shuttingDownError());
 */
export function shuttingDownError(): ToolError {
  return new ToolError('query_failed', 'The service is shutting down.');
}

/** `250 ms`, `1.5 s`. */
function describeDuration(milliseconds: number): string {
  return milliseconds < 1000 ? `${Math.round(milliseconds)} ms` : `${Math.round(milliseconds / 100) / 10} s`;
}
