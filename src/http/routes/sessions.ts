/**
 * Stored conversations: GET /sessions lists them (most recently updated first, paginated with
 * an opaque cursor), GET /sessions/{id} returns one with every turn and its tool calls,
 * DELETE /sessions/{id} removes one. Expired and unknown sessions are 404. With API keys, a key
 * sees only the sessions it created: another key's session is a 404 like an unknown one.
 */
import { Router, type Response } from 'express';
import { z } from 'zod';
import { decodeCursor, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../sessions/sessionPaging.ts';
import type { SessionSummary, TurnRecord } from '../../sessions/sessionRecords.ts';
import type { AppServices } from '../app.ts';
import { sendProblem } from '../problem.ts';
import { callerOf } from '../security/access.ts';

const once = (what: string) => z.string({ error: (issue) => (Array.isArray(issue.input) ? 'must be given once' : `must be ${what}`) });

const listQuery = z.strictObject({
  limit: once(`a whole number from 1 to ${MAX_PAGE_SIZE}`)
    .regex(/^\d{1,3}$/, { error: `must be a whole number from 1 to ${MAX_PAGE_SIZE}` })
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= MAX_PAGE_SIZE, { error: `must be a whole number from 1 to ${MAX_PAGE_SIZE}` })
    .optional(),
  cursor: once('a next_cursor from an earlier page')
    .refine((cursor) => decodeCursor(cursor) !== undefined, { error: 'must be a next_cursor from an earlier page' })
    .optional(),
});

/** Turns per page of GET /sessions/{id} when paged (`limit`); without it every turn comes (at most SESSION_MAX_TURNS). */
const MAX_TURNS_PAGE = 200;

// Not strict: unknown parameters were always ignored on this route (cache busters keep working).
const historyQuery = z.object({
  limit: once(`a whole number from 1 to ${MAX_TURNS_PAGE}`)
    .regex(/^\d{1,3}$/, { error: `must be a whole number from 1 to ${MAX_TURNS_PAGE}` })
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= MAX_TURNS_PAGE, { error: `must be a whole number from 1 to ${MAX_TURNS_PAGE}` })
    .optional(),
  after: once('the seq of a turn (next_after of the previous page)')
    .regex(/^\d{1,9}$/, { error: 'must be the seq of a turn (next_after of the previous page)' })
    .transform(Number)
    .optional(),
});

export function sessionRoutes(services: AppServices): Router {
  const router = Router();

  router.get('/sessions', async (request, response) => {
    const parsed = listQuery.safeParse(request.query);
    if (!parsed.success) return invalidQuery(response, parsed.error);
    const page = await services.sessions.list({ limit: parsed.data.limit ?? DEFAULT_PAGE_SIZE, cursor: parsed.data.cursor, owner: callerOf(response) });
    response.json({ sessions: page.sessions.map(summaryJson), next_cursor: page.nextCursor });
  });

  router.get('/sessions/:id', async (request, response) => {
    const query = historyQuery.safeParse(request.query);
    if (!query.success) return invalidQuery(response, query.error);
    // Paged when asked (limit or after): a long conversation can be read a part at a time.
    const { limit, after } = query.data;
    const paged = limit !== undefined || after !== undefined;
    const history = await services.sessions.history(request.params.id, callerOf(response), paged ? { limit: limit ?? MAX_TURNS_PAGE, after: after ?? 0 } : undefined);
    if (!history) return notFound(response, request.params.id);
    response.json({ ...summaryJson(history), turns: history.turnRecords.map(turnJson), ...(paged ? { next_after: history.nextAfter ?? null } : {}) });
  });

  router.delete('/sessions/:id', async (request, response) => {
    if (!(await services.sessions.delete(request.params.id, callerOf(response)))) return notFound(response, request.params.id);
    request.log.info({ session_id: request.params.id }, 'session deleted');
    response.status(204).end();
  });

  return router;
}

function invalidQuery(response: Response, error: z.ZodError): void {
  const errors = error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : '(query)'),
    message: issue.message,
  }));
  sendProblem(response, 'invalidRequest', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
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
    usage: turn.usage,
    started_at: turn.startedAt.toISOString(),
    finished_at: turn.finishedAt.toISOString(),
  };
}
