/**
 * POST /chat: one question in, an explained answer out, with the tool calls that produced it,
 * as one JSON body or as a live event stream. A session_id continues a conversation; an
 * unknown one is a 404, never a silent new session; so is another API key's session. The
 * conversation itself (sessions, turns, failed turns) is the ConversationService's; this route
 * translates HTTP to it and its results and errors back.
 */
import { Router } from 'express';
import type { ConversationService } from '../../conversations/conversationService.ts';
import { ModelProviderError, StorageUnavailableError } from '../../errors/index.ts';
import { toModelProviderError } from '../../model/providerErrors.ts';
import { requestObservation } from '../../observability/observe.ts';
import { questionHooks } from '../../observability/questionTrace.ts';
import type { AppServices } from '../app.ts';
import { openEventStream, wantsEventStream } from '../eventStream.ts';
import { modelProblemKind, problemBody, sendModelProblem, sendProblem } from '../problem.ts';
import { callerOf } from '../security/access.ts';
import { jsonBody } from '../validation.ts';
import { refusedTurnProblem } from './chatTurns.ts';

/**
 * The body of POST /chat as openapi.yaml's ChatRequest declares it; the contract middleware has
 * validated it (message length, session_id format, stream, locale) before this route runs.
 */
interface ChatRequest {
  message: string;
  session_id?: string;
  stream?: boolean;
  /** BCP 47 locale the answer's numbers are written in, e.g. de-DE (the web chat sends its own). */
  locale?: string;
}

export function chatRoutes(services: AppServices, conversations: ConversationService): Router {
  const router = Router();
  router.post('/chat', async (request, response) => {
    const body = jsonBody<ChatRequest>(request, response);
    if (!body) return;
    const owner = callerOf(response);
    let session;
    try {
      session = await conversations.open(body.session_id, owner);
    } catch (error) {
      const refused = refusedTurnProblem(error);
      if (!refused) throw error;
      sendProblem(response, refused.kind, refused.detail, refused.extra);
      return;
    }
    if (!session) {
      sendProblem(response, 'sessionNotFound', `No session '${body.session_id}': it never existed or has expired. Omit session_id to start a new conversation.`);
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
    const observation = requestObservation(response);
    try {
      const result = await conversations.ask({
        session,
        owner,
        question: body.message,
        locale: body.locale,
        logger,
        signal,
        clientGone: () => disconnected.signal.aborted,
        onEvent: events?.send,
        hooks: questionHooks({ logger, metrics: observation?.metrics, requestId: observation?.requestId }),
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
