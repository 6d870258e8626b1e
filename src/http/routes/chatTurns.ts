/**
 * Why /chat may refuse a turn on an existing session: the session was deleted (or expired)
 * while the turn waited or ran, so nothing could be stored (404: never a 200 for a turn that
 * is not kept), or the conversation already holds SESSION_MAX_TURNS turns (409: start a new one).
 */
import type { ProblemKind } from '../problem.ts';

/** SESSION_MAX_TURNS when the service is built without it. */
export const DEFAULT_SESSION_MAX_TURNS = 200;

/** The session disappeared before its turn could be stored. */
export class SessionGoneError extends Error {
  constructor(readonly sessionId: string) {
    super(`Session '${sessionId}' was deleted or expired while the question was answered; the answer was not stored.`);
    this.name = 'SessionGoneError';
  }
}

/** The session holds the most turns a conversation may have. */
export class TurnLimitError extends Error {
  constructor(
    readonly sessionId: string,
    readonly maxTurns: number,
  ) {
    super(
      `This conversation has reached its limit of ${maxTurns} turns (SESSION_MAX_TURNS). Start a new conversation: send the question without session_id.`,
    );
    this.name = 'TurnLimitError';
  }
}

/**
 * The problem to answer for a refused turn, or undefined when `error` is something else.
 * @example
 * const refused = refusedTurnProblem(new TurnLimitError(id, 200));
 * // { kind: 'sessionTurnLimit', detail: 'This conversation has reached …', extra: { session_id: id, max_turns: 200 } }
 */
export function refusedTurnProblem(error: unknown): { kind: ProblemKind; detail: string; extra: Record<string, unknown> } | undefined {
  if (error instanceof TurnLimitError) return { kind: 'sessionTurnLimit', detail: error.message, extra: { session_id: error.sessionId, max_turns: error.maxTurns } };
  if (error instanceof SessionGoneError) return { kind: 'sessionNotFound', detail: error.message, extra: { session_id: error.sessionId } };
  return undefined;
}
