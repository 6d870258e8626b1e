/**
 * POST /chat: one question in, an explained answer out, with the tool calls that produced it,
 * as one JSON body or as a live event stream. A session_id continues a conversation; an
 * unknown one is a 404, never a silent new session; so is another API key's session.
 */
import { Router } from 'express';
import { z } from 'zod';
import { AIMessage } from '@langchain/core/messages';
import { progressOf, runAgent } from '../../agent/runLoop.ts';
import { MAX_MESSAGE_CHARS } from '../../agent/constants.ts';
import { ModelProviderError, StorageUnavailableError } from '../../errors/index.ts';
import { toModelProviderError } from '../../model/providerErrors.ts';
import type { AppServices } from '../app.ts';
import { openEventStream, wantsEventStream } from '../eventStream.ts';
import { modelProblemKind, problemBody, sendModelProblem, sendProblem } from '../problem.ts';
import { callerOf } from '../security/access.ts';
import { parseBody } from '../validation.ts';
import { DEFAULT_SESSION_MAX_TURNS, refusedTurnProblem, SessionGoneError, TurnLimitError } from './chatTurns.ts';

const chatRequest = z.strictObject({
  message: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .refine((text) => text.trim().length > 0, { error: 'must not be empty' })
    .refine((text) => [...text].length <= MAX_MESSAGE_CHARS, { error: `must be at most ${MAX_MESSAGE_CHARS} characters` }),
  session_id: z.uuid({ error: 'must be a session id returned by an earlier /chat response' }).optional(),
  stream: z.boolean({ error: 'must be true or false' }).optional(),
  /** BCP 47 locale the answer's numbers are written in, e.g. de-DE (the web chat sends its own). */
  locale: z.string().max(35).regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8}){0,4}$/, { error: 'must be a BCP 47 language tag such as en-US or de-DE' }).optional(),
});

export function chatRoutes(services: AppServices): Router {
  const router = Router();
  router.post('/chat', async (request, response) => {
    const body = parseBody(chatRequest, request, response);
    if (!body) return;
    const owner = callerOf(response);
    const session = body.session_id ? services.sessions.get(body.session_id, owner) : services.sessions.create(owner);
    if (!session) {
      sendProblem(response, 'sessionNotFound', `No session '${body.session_id}': it never existed or has expired. Omit session_id to start a new conversation.`);
      return;
    }
    const maxTurns = services.sessionMaxTurns ?? DEFAULT_SESSION_MAX_TURNS;
    if (session.turns >= maxTurns) {
      const refused = refusedTurnProblem(new TurnLimitError(session.id, maxTurns))!;
      sendProblem(response, refused.kind, refused.detail, refused.extra);
      return;
    }
    // Stop working when the client goes away or the overall deadline passes.
    const disconnected = new AbortController();
    response.on('close', () => {
      if (!response.writableFinished) disconnected.abort();
    });
    const signal = AbortSignal.any([disconnected.signal, AbortSignal.timeout(services.chatDeadlineMs)]);
    const logger = request.log.child({ session_id: session.id });
    // Past this point a streamed request gets its answer, or its error, as events.
    const events = wantsEventStream(body.stream, request.headers.accept) ? openEventStream(response) : undefined;
    try {
      const result = await services.sessions.runExclusive(session.id, async () => {
        // Earlier turns of this session ran first: it may have been deleted or filled up meanwhile.
        const current = services.sessions.get(session.id, owner);
        if (!current) throw new SessionGoneError(session.id);
        if (current.turns >= maxTurns) throw new TurnLimitError(session.id, maxTurns);
        // The last turns only (and how many older ones exist): the read does not grow with the conversation.
        const { messages: history, omittedTurns } = current.recentHistory();
        const startedAt = new Date();
        let run;
        try {
          run = await runAgent({
            model: services.model,
            registry: services.registry,
            systemPrompt: services.systemPrompt,
            history,
            omittedTurns,
            question: body.message,
            ...(body.locale ? { locale: body.locale } : {}),
            toolContext: { catalog: services.catalog, data: services.data, knowledge: services.knowledge, logger },
            signal,
            ...(events ? { onEvent: events.send } : {}),
          });
        } catch (error) {
          // A provider failure keeps the question and the tool results so far; a client that left does not.
          const progress = progressOf(error);
          if (progress && ModelProviderError.isInstance(error) && !disconnected.signal.aborted) {
            const note = `The model provider failed (${error.kind.replace('_', ' ')}): ${error.message} The question${progress.toolCalls.length ? ' and the tool results so far' : ''} are kept in this conversation; ask again to continue.`;
            services.sessions.appendTurn(
              session.id,
              { messages: [...progress.messages, new AIMessage(note)], answer: note, finished: false, stopReason: 'provider_error', iterations: progress.iterations, toolCalls: progress.toolCalls, usage: progress.usage, question: body.message, startedAt, finishedAt: new Date() },
            );
          }
          throw error;
        }
        // Deleted while the answer was being written: nothing was stored, so no 200.
        if (!services.sessions.appendTurn(session.id, { ...run, question: body.message, startedAt, finishedAt: new Date() })) throw new SessionGoneError(session.id);
        return run;
      });
      logger.info({ iterations: result.iterations, finished: result.finished, tool_calls: result.toolCalls.length, streamed: Boolean(events) }, 'chat answered');
      const answer = {
        session_id: session.id,
        answer: result.answer,
        finished: result.finished,
        stop_reason: result.stopReason,
        iterations: result.iterations,
        tool_calls: result.toolCalls,
        usage: result.usage,
      };
      if (events) events.final(answer);
      else response.json(answer);
    } catch (error) {
      if (disconnected.signal.aborted) {
        logger.info('chat cancelled: the client went away');
        return;
      }
      const refused = refusedTurnProblem(error);
      if (refused) {
        logger.warn({ reason: refused.kind }, 'chat refused: the turn cannot be added to this session');
        if (events) events.error(problemBody(response, refused.kind, refused.detail, refused.extra));
        else sendProblem(response, refused.kind, refused.detail, refused.extra);
        return;
      }
      if (StorageUnavailableError.isInstance(error)) {
        // APP_DB deleted, replaced or damaged: 503, never an answer whose turn would be lost.
        logger.error({ reason: error.message }, 'chat refused: the turn cannot be stored');
        if (events) events.error(problemBody(response, 'storageUnavailable', error.message, { session_id: session.id }));
        else sendProblem(response, 'storageUnavailable', error.message, { session_id: session.id });
        return;
      }
      if (!ModelProviderError.isInstance(error) && !signal.aborted) {
        if (!events) throw error; // a bug: the error handler logs it and answers 500
        logger.error({ err: error }, 'chat failed');
        events.error(problemBody(response, 'internal', 'Something went wrong on our side; the error was logged.', { session_id: session.id }));
        return;
      }
      const failure = ModelProviderError.isInstance(error) ? error : toModelProviderError(error, signal);
      logger.warn({ reason: failure.kind, err: failure.cause }, 'chat failed: model provider');
      if (events) events.error(problemBody(response, modelProblemKind(failure), failure.message, { reason: failure.kind, session_id: session.id }));
      else sendModelProblem(response, failure, { session_id: session.id });
    }
  });
  return router;
}
