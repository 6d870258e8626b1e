/**
 * Stored conversations: GET /sessions lists them (most recently updated first, paginated with
 * an opaque cursor), GET /sessions/{id} returns one with every turn and its tool calls,
 * DELETE /sessions/{id} removes one. Expired and unknown sessions are 404. With API keys, a key
 * sees only the sessions it created: another key's session is a 404 like an unknown one.
 */
import { Router, type Response } from 'express';
import { decodeCursor, DEFAULT_PAGE_SIZE } from '../../sessions/sessionPaging.ts';
import type { SessionSummary, TurnRecord } from '../../sessions/sessionRecords.ts';
import type { SessionStore } from '../../sessions/sessionStore.ts';
import { sendProblem } from '../problem.ts';
import { ownerOf } from '../../access/caller.ts';

/** Turns per page of GET /sessions/{id} when paged (`limit`); without it every turn comes (at most SESSION_MAX_TURNS). */
const MAX_TURNS_PAGE = 200;

/**
 * A query parameter as a number. openapi.yaml bounds `limit` and `after` and the contract
 * middleware has refused anything else, so only the conversion is left here.
 */
const numberParameter = (value: unknown): number | undefined => (typeof value === 'string' ? Number(value) : undefined);

/**
 * @example
 * app.use(sessionRoutes({ sessions: store })); // GET /sessions, GET and DELETE /sessions/{id}
 */
export function sessionRoutes(services: { readonly sessions: SessionStore }): Router {
  const router = Router();

  router.get('/sessions', async (request, response) => {
    const cursor = typeof request.query.cursor === 'string' ? request.query.cursor : undefined;
    // The spec checks the cursor's characters; whether it is one of ours only the decoder knows.
    if (cursor !== undefined && decodeCursor(cursor) === undefined) return invalidCursor(response);
    const page = await services.sessions.list({ limit: numberParameter(request.query.limit) ?? DEFAULT_PAGE_SIZE, cursor, owner: ownerOf(response) });
    response.json({ sessions: page.sessions.map(summaryJson), next_cursor: page.nextCursor });
  });

  router.get('/sessions/:id', async (request, response) => {
    // Paged when asked (limit or after): a long conversation can be read a part at a time.
    const limit = numberParameter(request.query.limit);
    const after = numberParameter(request.query.after);
    const paged = limit !== undefined || after !== undefined;
    const history = await services.sessions.history(request.params.id, ownerOf(response), paged ? { limit: limit ?? MAX_TURNS_PAGE, after: after ?? 0 } : undefined);
    if (!history) return notFound(response, request.params.id);
    response.json({ ...summaryJson(history), turns: history.turnRecords.map(turnJson), ...(paged ? { next_after: history.nextAfter ?? null } : {}) });
  });

  router.delete('/sessions/:id', async (request, response) => {
    if (!(await services.sessions.delete(request.params.id, ownerOf(response)))) return notFound(response, request.params.id);
    request.log.info({ session_id: request.params.id }, 'session deleted');
    response.status(204).end();
  });

  return router;
}

function invalidCursor(response: Response): void {
  const errors = [{ path: 'cursor', message: 'must be a next_cursor from an earlier page' }];
  sendProblem(response, 'invalidRequest', 'cursor: must be a next_cursor from an earlier page', { errors });
}

function notFound(response: Response, id: string): void {
  sendProblem(response, 'sessionNotFound', `No session '${id}': it never existed, was deleted or has expired.`);
}

function summaryJson(session: SessionSummary) {
  return {
    id: session.id,
    title: session.title,
    created_at: session.createdAt.toISOString(),
    updated_at: session.updatedAt.toISOString(),
    turns: session.turns,
  };
}

function turnJson(turn: TurnRecord) {
  return {
    seq: turn.seq,
    question: turn.question,
    answer: turn.answer,
    finished: turn.finished,
    stop_reason: turn.stopReason,
    iterations: turn.iterations,
    tool_calls: turn.toolCalls,
    ...(turn.figures ? { figures: turn.figures } : {}),
    usage: turn.usage,
    started_at: turn.startedAt.toISOString(),
    finished_at: turn.finishedAt.toISOString(),
  };
}
