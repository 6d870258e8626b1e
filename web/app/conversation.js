/**
 * Asking questions, one at a time: POST /chat for each, its streamed events (tokens, tool calls
 * starting and finishing) drawn into a new turn as they arrive, then the final body. Owns the
 * running answer, so Stop and Escape can abort it; a conversation that expired on the server is
 * said so and the question asked again in a new one.
 */
import { ApiError } from './api.js';
import { describeError, notice } from './errors.js';

/**
 * The asking part of a chat.
 * @param {{client: object, session: {id: string | null, remember: (id: string) => void, forget: () => void},
 *   requestLocale?: string, apiUrl: string, log: HTMLElement,
 *   follower: {follow: (element: HTMLElement) => void, track: () => void, keepPinned: (change: () => void) => void},
 *   newTurn: (question: string) => object, hideEmpty: () => void, setRunning: (on: boolean) => void,
 *   announce: (text: string) => void}} chat
 *   client: from api.js; session: from history.js; follower: from follow.js; newTurn: createTurn of
 *   turn.js with the chat's context; setRunning: show that an answer runs (or no longer does)
 * @returns {{ask: (message: string) => Promise<void>, cancel: () => void, readonly running: boolean}}
 * @example
 * const conversation = createConversation({ client, session, apiUrl, log, follower, newTurn, hideEmpty, setRunning, announce });
 * await conversation.ask('Which sources are available?');
 */
export function createConversation({ client, session, requestLocale, apiUrl, log, follower, newTurn, hideEmpty, setRunning, announce }) {
  /** The running question: its AbortController and turn. */
  let running = null;

  /** Asks one question: streams the answer into a new turn. */
  async function ask(message, { retried = false } = {}) {
    hideEmpty();
    const turn = newTurn(message);
    log.append(turn.element);
    follower.follow(turn.element);
    const controller = new AbortController();
    running = { controller, turn };
    setRunning(true);
    const started = performance.now();
    let retry = false;
    try {
      const body = await client.chat({
        message,
        sessionId: session.id,
        locale: requestLocale,
        signal: controller.signal,
        on: {
          token: (data) => follower.keepPinned(() => turn.appendToken(data?.text ?? '')),
          tool_start: (data) => follower.keepPinned(() => turn.toolStart(data)),
          tool_result: (data) => follower.keepPinned(() => turn.toolResult(data)),
          answer_replaced: (data) => {
            follower.keepPinned(() => turn.answerReplaced(data));
            announce('The answer stated figures no tool result backs; a corrected answer follows.');
          },
        },
      });
      session.remember(body.session_id);
      follower.keepPinned(() => turn.finish(body, performance.now() - started));
      announce(body.finished === false ? 'The answer stopped early; see the note below it.' : 'Answer complete.');
    } catch (error) {
      if (controller.signal.aborted) {
        turn.stopped();
        announce('Stopped.');
      } else if (error instanceof ApiError && error.type === '/problems/session-not-found' && !retried) {
        // The stored conversation expired on the server: say so and ask again in a new one.
        session.forget();
        turn.element.remove();
        log.append(notice('The earlier conversation is no longer available on the server; this question starts a new one.'));
        retry = true;
      } else {
        if (error instanceof ApiError && typeof error.problem.session_id === 'string') session.remember(error.problem.session_id);
        const described = describeError(error, apiUrl);
        turn.fail(described);
        announce(`Error: ${described.title}`);
      }
    } finally {
      if (running?.controller === controller) {
        running = null;
        setRunning(false);
      }
    }
    if (retry) await ask(message, { retried: true });
  }

  return {
    ask: (message) => ask(message),
    cancel() {
      running?.controller.abort();
    },
    get running() {
      return running !== null;
    },
  };
}
