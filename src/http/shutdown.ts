/**
 * Graceful shutdown of the HTTP server: stop accepting connections, let in-flight requests
 * finish within a grace period, end the event streams still open then with a final `error`
 * event (`/problems/shutting-down`, 503), close the idle keep-alive sockets, then close the
 * service (query workers, application database).
 *
 * Open event streams register here (see eventStream.ts) so the shutdown can reach them.
 */
import type { Server } from 'node:http';
import type { Logger } from '../logging/logger.ts';
import { problemTypes } from './problem.ts';

/** The problem an event stream still open at the end of the grace period receives. */
export const shuttingDownProblem = {
  ...problemTypes.shuttingDown,
  detail: 'The service is restarting or stopping and could not finish this answer in time; ask again in a moment.',
} as const;

/** Ends one open stream with an `error` event carrying this problem. */
export type EndStream = (problem: Record<string, unknown>) => void;

const openStreams = new Set<EndStream>();

/** Registers an open event stream; returns the function that unregisters it (call it when the stream ends). */
export function registerOpenStream(end: EndStream): () => void {
  openStreams.add(end);
  return () => {
    openStreams.delete(end);
  };
}

/** How many event streams are open. */
export function openStreamCount(): number {
  return openStreams.size;
}

/** Ends every open event stream with the shutdown event; returns how many there were. */
export function endOpenStreams(extra: Record<string, unknown> = {}): number {
  const streams = [...openStreams];
  openStreams.clear();
  for (const end of streams) {
    try {
      end({ ...shuttingDownProblem, ...extra });
    } catch {
      // a stream whose socket already broke: nothing left to tell it
    }
  }
  return streams.length;
}

export interface GracefulShutdownOptions {
  server: Server;
  logger: Logger;
  /** How long in-flight requests may take to finish. */
  graceMs: number;
  /** Closes the rest of the service (query workers, application database). */
  closeService: () => Promise<void>;
}

/**
 * Runs the shutdown sequence; resolves with the exit status (0 when everything closed, 1 when
 * closing the service failed). Never rejects.
 */
export async function gracefulShutdown({ server, logger, graceMs, closeService }: GracefulShutdownOptions): Promise<number> {
  const startedAt = Date.now();
  // Responses sent from now on close their connection instead of keeping it alive.
  server.prependListener('request', (_request, response) => {
    if (!response.headersSent) response.setHeader('connection', 'close');
  });
  const closed = new Promise<void>((resolve) => {
    server.close(() => resolve());
  });
  logger.info({ grace_ms: graceMs, open_streams: openStreamCount() }, 'shutdown: stopped accepting connections; waiting for in-flight requests');
  server.closeIdleConnections();
  // A keep-alive socket becomes idle once its request finished: close those as they appear.
  const idleSweep = setInterval(() => server.closeIdleConnections(), 100);
  idleSweep.unref();
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), graceMs);
    timer.unref();
  });
  const outcome = await Promise.race([closed.then(() => 'drained' as const), graceOver]);
  clearTimeout(timer);
  clearInterval(idleSweep);
  if (outcome === 'drained') {
    logger.info({ elapsed_ms: Date.now() - startedAt }, 'shutdown: every in-flight request finished');
  } else {
    const streams = endOpenStreams();
    logger.warn({ elapsed_ms: Date.now() - startedAt, open_streams: streams }, `shutdown: grace period over; ended ${streams} open event stream(s) with /problems/shutting-down`);
    // Give the final events a moment to be flushed, then drop whatever is left.
    await new Promise<void>((resolve) => setTimeout(resolve, 100).unref());
    server.closeAllConnections();
    logger.info('shutdown: closed the remaining connections');
  }
  try {
    await closeService();
    logger.info({ elapsed_ms: Date.now() - startedAt }, 'shutdown: query workers stopped and application database closed');
    return 0;
  } catch (error) {
    logger.error({ err: error }, 'shutdown: closing the service failed');
    return 1;
  }
}
