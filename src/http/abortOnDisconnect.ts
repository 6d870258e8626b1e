/**
 * Cancelling a request's work when its client hangs up: queued queries leave the line, running
 * ones stop, the model call is abandoned. Shared by POST /chat and POST /tools/{name}.
 */
import type { Response } from 'express';

/**
 * A signal aborted when the connection closes before the response was sent in full.
 * @example
 * const disconnected = abortOnDisconnect(response);
 * await runTool(name, args, { signal: disconnected });
 * if (disconnected.aborted) return; // nobody to answer
 */
export function abortOnDisconnect(response: Response): AbortSignal {
  const controller = new AbortController();
  // 'close' also fires after a complete response; only an unfinished one means the client left.
  response.on('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}
