/**
 * POST /chat: one question in, an explained answer out, with the tool calls that produced it,
 * as one JSON body or as a live event stream. A session_id continues a conversation; an
 * unknown one is a 404, never a silent new session; so is another API key's session. The
 * conversation itself (sessions, turns, failed turns) is the ConversationService's; this route
 * translates HTTP to it and its results and errors back. A key whose `max_model_tokens_per_day`
 * is spent is refused (429) before anything runs; the tokens of each model call are charged to it.
 */
import { Router } from 'express';
import type { ConversationService } from '../../conversations/conversationService.ts';
import { ModelProviderError } from '../../errors/index.ts';
import type { Logger } from '../../logging/logger.ts';
import { toModelProviderError } from '../../model/providerErrors.ts';
import { requestObservation } from '../../observability/observe.ts';
import { questionHooks } from '../../observability/questionTrace.ts';
import { openEventStream, wantsEventStream } from '../eventStream.ts';
import { abortOnDisconnect } from '../abortOnDisconnect.ts';
import { problemBody, problemFor, sendProblem, type Problem, type ProblemKind } from '../problem.ts';
import { callerOf } from '../../access/caller.ts';
import { ModelTokenBudgets } from '../security/tokenBudget.ts';
import type { DeclaredKey } from '../../config/keysFile.ts';
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

/** What POST /chat needs besides the conversation service. */
export interface ChatRouteServices {
  /** Named keys (API_KEYS_FILE): their daily model-token caps. */
  declaredKeys?: DeclaredKey[] | undefined;
  /** How long one question may run (CHAT_DEADLINE_MS). */
  chatDeadlineMs: number;
}

/**
 * @example
 * app.use(chatRoutes({ chatDeadlineMs: 120_000, declaredKeys: [] }, conversations));
 */
export function chatRoutes(services: ChatRouteServices, conversations: ConversationService): Router {
  const router = Router();
  // Each capped key's tokens today, on this instance (the keys file is read once, at startup).
  const budgets = ModelTokenBudgets.of(services.declaredKeys ?? []);
  router.post('/chat', async (request, response) => {
    const body = jsonBody<ChatRequest>(request, response);
    if (!body) return;
    const caller = callerOf(response);
    // A key whose daily tokens are spent asks nothing of the model until the next UTC midnight.
    const refusal = caller && budgets.refusal(caller.name);
    if (refusal) {
      const resetsAt = refusal.resetsAt.toISOString();
      request.log.warn({ key: caller.name, used_tokens: refusal.usedTokens, max_model_tokens_per_day: refusal.maxTokensPerDay }, 'chat refused: the key has spent its model tokens for today');
      response.setHeader('Retry-After', String(refusal.retryAfterSeconds));
      sendProblem(
        response,
        'tokenBudgetExhausted',
        `This key has used ${refusal.usedTokens} of its ${refusal.maxTokensPerDay} model tokens for today (UTC). The budget resets at ${resetsAt}, in ${refusal.retryAfterSeconds} seconds.`,
        { max_model_tokens_per_day: refusal.maxTokensPerDay, used_tokens: refusal.usedTokens, resets_at: resetsAt, retry_after: refusal.retryAfterSeconds },
      );
      return;
    }
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
        hooks: questionHooks({
          logger,
          metrics: observation?.metrics,
          requestId: observation?.requestId,
          key: caller?.name,
          onModelTokens: caller && ((tokens) => budgets.spend(caller.name, tokens)),
        }),
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
        // Each figure the answer states, with its receipt: where in which tool result it came from, or unverified.
        figures: result.figures,
        // The first answer, when it stated figures no tool result backed and the model rewrote it.
        ...(result.replaced ? { replaced: result.replaced } : {}),
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
