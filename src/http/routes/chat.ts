/**
 * POST /chat: one question in, an explained answer out, with the tool calls that produced it,
 * as one JSON body or as a live event stream. A session_id continues a conversation; an
 * unknown one is a 404, never a silent new session; so is another API key's session. The
 * conversation itself (sessions, turns, failed turns) is the ConversationService's; this route
 * translates HTTP to it and its results and errors back.
 */
import { Router } from 'express';
import type { ConversationService } from '../../conversations/conversationService.ts';
import { ModelProviderError } from '../../errors/index.ts';
import type { Logger } from '../../logging/logger.ts';
import { toModelProviderError } from '../../model/providerErrors.ts';
import { requestObservation } from '../../observability/observe.ts';
import { questionHooks } from '../../observability/questionTrace.ts';
import type { AppServices } from '../app.ts';
import { openEventStream, wantsEventStream } from '../eventStream.ts';
import { abortOnDisconnect } from '../abortOnDisconnect.ts';
import { problemBody, problemFor, sendProblem, type Problem, type ProblemKind } from '../problem.ts';
import { callerOf } from '../security/access.ts';
import { jsonBody } from '../validation.ts';

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
    const caller = callerOf(response);
    // A full session (TurnLimitError) or unavailable storage is answered by errorHandler (problemFor).
    const session = await conversations.open(body.session_id, caller?.identity);
    if (!session) {
      sendProblem(response, 'sessionNotFound', `No session '${body.session_id}': it never existed or has expired. Omit session_id to start a new conversation.`);
      return;
    }
    // Stop working when the client goes away or the overall deadline passes.
    const disconnected = abortOnDisconnect(response);
    const signal = AbortSignal.any([disconnected, AbortSignal.timeout(services.chatDeadlineMs)]);
    const logger = request.log.child({ session_id: session.id });
    // Past this point a streamed request gets its answer, or its error, as events.
    const events = wantsEventStream(body.stream, request.headers.accept) ? openEventStream(response) : undefined;
    const replyProblem = (kind: ProblemKind, detail: string, extra: Record<string, unknown>) => {
      if (events) events.error(problemBody(response, kind, detail, extra));
      else sendProblem(response, kind, detail, extra);
    };
    const observation = requestObservation(response);
    try {
      const result = await conversations.ask({
        session,
        caller,
        question: body.message,
        locale: body.locale,
        logger,
        signal,
        clientGone: () => disconnected.aborted,
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
      if (disconnected.aborted) {
        logger.info('chat cancelled: the client went away');
        return;
      }
      // A known failure is answered as such; anything else the deadline cut short is the model's timeout.
      const failure = problemFor(error) || !signal.aborted ? error : toModelProviderError(error, signal);
      const problem = problemFor(failure);
      if (!problem) {
        if (!events) throw error; // a bug: the error handler logs it and answers 500
        logger.error({ err: error }, 'chat failed');
        replyProblem('internal', 'Something went wrong on our side; the error was logged.', { session_id: session.id });
        return;
      }
      logFailure(logger, failure, problem);
      replyProblem(problem.kind, problem.detail, { ...problem.extra, session_id: session.id });
    }
  });
  return router;
}

/** One log line per expected failure: the model provider's, storage's, or a refused turn. */
function logFailure(logger: Logger, failure: unknown, problem: Problem): void {
  if (ModelProviderError.isInstance(failure)) logger.warn({ reason: failure.kind, err: failure.cause }, 'chat failed: model provider');
  // APP_DB deleted, replaced or damaged: 503, never an answer whose turn would be lost.
  else if (problem.kind === 'storageUnavailable') logger.error({ reason: problem.detail }, 'chat refused: the turn cannot be stored');
  else logger.warn({ reason: problem.kind }, 'chat refused: the turn cannot be added to this session');
}
