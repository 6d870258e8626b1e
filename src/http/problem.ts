/**
 * Error responses as RFC 9457 problem details (`application/problem+json`), each kind with
 * a stable `type`, plus the middleware that turns anything thrown into one — never a stack trace.
 */
import type { ErrorRequestHandler, Response } from 'express';
import { SessionGoneError, TurnLimitError } from '../conversations/turnErrors.ts';
import { ModelProviderError, StorageUnavailableError } from '../errors/index.ts';
import type { Logger } from '../logging/logger.ts';

export const problemTypes = {
  invalidJson: { type: '/problems/invalid-json', status: 400, title: 'Request body is not valid JSON' },
  invalidRequest: { type: '/problems/invalid-request', status: 400, title: 'Invalid request' },
  unauthorized: { type: '/problems/unauthorized', status: 401, title: 'Unauthorized' },
  unsupportedMediaType: { type: '/problems/unsupported-media-type', status: 415, title: 'Unsupported media type' },
  payloadTooLarge: { type: '/problems/payload-too-large', status: 413, title: 'Request body too large' },
  notFound: { type: '/problems/not-found', status: 404, title: 'Not found' },
  sessionNotFound: { type: '/problems/session-not-found', status: 404, title: 'Session not found' },
  toolNotFound: { type: '/problems/tool-not-found', status: 404, title: 'Tool not found' },
  toolError: { type: '/problems/tool-error', status: 422, title: 'The tool could not run with these arguments' },
  rateLimited: { type: '/problems/rate-limited', status: 429, title: 'Too many requests' },
  // The key's max_model_tokens_per_day is spent (security/tokenBudget.ts); it resets at the next UTC midnight.
  tokenBudgetExhausted: { type: '/problems/token-budget-exhausted', status: 429, title: "The key's model token budget for today is spent" },
  modelTimeout: { type: '/problems/model-timeout', status: 504, title: 'The model did not answer in time' },
  modelRateLimited: { type: '/problems/model-rate-limited', status: 503, title: 'The model provider is rate limiting' },
  modelUnavailable: { type: '/problems/model-unavailable', status: 502, title: 'The model provider failed' },
  busy: { type: '/problems/busy', status: 503, title: 'The service is busy' },
  dataUnavailable: { type: '/problems/data-unavailable', status: 503, title: 'The data database is unavailable' },
  storageUnavailable: { type: '/problems/storage-unavailable', status: 503, title: 'Conversations cannot be stored' },
  internal: { type: '/problems/internal', status: 500, title: 'Internal error' },
  // Refused before routing: a Host or Origin outside the allowlists (DNS rebinding, cross-site calls).
  forbiddenHost: { type: '/problems/forbidden-host', status: 403, title: 'Host not allowed' },
  forbiddenOrigin: { type: '/problems/forbidden-origin', status: 403, title: 'Origin not allowed' },
  credentialsInQuery: { type: '/problems/credentials-in-query', status: 400, title: 'Credentials in the query string' },
  sessionTurnLimit: { type: '/problems/session-turn-limit', status: 409, title: 'The conversation has reached its turn limit' },
  // Sent as the last event of a stream still open when a shutdown's grace period ends (shutdown.ts).
  shuttingDown: { type: '/problems/shutting-down', status: 503, title: 'The service is shutting down' },
} as const;

export type ProblemKind = keyof typeof problemTypes;

/** The problem document itself, for a response body or a streamed `error` event. */
export function problemBody(response: Response, kind: ProblemKind, detail: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const requestId = response.req?.id;
  return { ...problemTypes[kind], detail, ...(requestId ? { request_id: String(requestId) } : {}), ...extra };
}

/** Sends a problem response; `extra` adds members such as `errors`, `session_id` or `error`. */
export function sendProblem(response: Response, kind: ProblemKind, detail: string, extra: Record<string, unknown> = {}): void {
  response
    .status(problemTypes[kind].status)
    .type('application/problem+json')
    .send(JSON.stringify(problemBody(response, kind, detail, extra)));
}

const modelKinds: Record<ModelProviderError['kind'], ProblemKind> = {
  timeout: 'modelTimeout',
  rate_limited: 'modelRateLimited',
  unavailable: 'modelUnavailable',
  bad_response: 'modelUnavailable',
  rejected: 'modelUnavailable',
  context_too_small: 'modelUnavailable',
};

/** What to answer for an error: its problem kind, detail and extra members. */
export interface Problem {
  kind: ProblemKind;
  detail: string;
  extra: Record<string, unknown>;
}

/**
 * The problem for an error the service expects (the model provider failed, turns cannot be
 * stored, the session is gone or full), or undefined for anything else: a bug, answered 500.
 * @example
 * problemFor(new TurnLimitError(id, 200));
 * // { kind: 'sessionTurnLimit', detail: 'This conversation has reached …', extra: { session_id: id, max_turns: 200 } }
 */
export function problemFor(error: unknown): Problem | undefined {
  if (ModelProviderError.isInstance(error)) return { kind: modelKinds[error.kind], detail: error.message, extra: { reason: error.kind } };
  // APP_DB deleted, replaced or damaged: a 503 that says why, never a 200 for a turn that would be lost.
  if (StorageUnavailableError.isInstance(error)) return { kind: 'storageUnavailable', detail: error.message, extra: {} };
  // A session deleted (or expired) while its turn waited or ran: 404, never a 200 for a turn not kept.
  if (SessionGoneError.isInstance(error)) return { kind: 'sessionNotFound', detail: error.message, extra: { session_id: error.sessionId } };
  if (TurnLimitError.isInstance(error)) return { kind: 'sessionTurnLimit', detail: error.message, extra: { session_id: error.sessionId, max_turns: error.maxTurns } };
  return undefined;
}

/** The last middleware: body-parser errors become 4xx, anything unexpected a logged 500. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, _request, response, _next) => {
    if (response.headersSent) return;
    const status = (error as { status?: number; type?: string }).status;
    const type = (error as { type?: string }).type;
    if (type === 'entity.parse.failed') return sendProblem(response, 'invalidJson', `The body could not be parsed as JSON: ${(error as Error).message}.`);
    if (type === 'entity.too.large') return sendProblem(response, 'payloadTooLarge', `The body exceeds the limit of ${(error as { limit?: number }).limit ?? 'the allowed'} bytes.`);
    if (type === 'encoding.unsupported' || type === 'charset.unsupported') return sendProblem(response, 'unsupportedMediaType', (error as Error).message);
    if (status === 404) return sendProblem(response, 'notFound', 'The requested resource is not available.');
    // Other 4xx errors come from body parsing; their messages are written for clients (`expose`).
    if (status && status >= 400 && status < 500) {
      return sendProblem(response, 'invalidRequest', (error as { expose?: boolean }).expose ? (error as Error).message : 'The request could not be processed.');
    }
    const problem = problemFor(error);
    if (problem) return sendProblem(response, problem.kind, problem.detail, problem.extra);
    logger.error({ err: error }, 'unhandled error');
    sendProblem(response, 'internal', 'Something went wrong on our side; the error was logged.');
  };
}
