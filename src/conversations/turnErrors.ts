/**
 * Why a conversation may refuse a turn: the session was deleted (or expired) while the turn
 * waited or ran, so nothing could be stored, or the conversation already holds its most turns.
 * Application errors: the HTTP layer maps them to problems (problemFor in http/problem.ts).
 */

import { AnalystError } from '../errors/index.ts';

const goneMarker = Symbol.for('analyst.error.session-gone');
const limitMarker = Symbol.for('analyst.error.turn-limit');

/** SESSION_MAX_TURNS when the service is built without it. */
export const DEFAULT_SESSION_MAX_TURNS = 200;

/** The session disappeared before its turn could be stored. */
export class SessionGoneError extends AnalystError {
  readonly [goneMarker] = true;

  constructor(readonly sessionId: string) {
    super(`Session '${sessionId}' was deleted or expired while the question was answered; the answer was not stored.`);
  }

  static override isInstance(error: unknown): error is SessionGoneError {
    return typeof error === 'object' && error !== null && goneMarker in error;
  }
}

/** The session holds the most turns a conversation may have. */
export class TurnLimitError extends AnalystError {
  readonly [limitMarker] = true;

  constructor(
    readonly sessionId: string,
    readonly maxTurns: number,
  ) {
    super(`This conversation has reached its limit of ${maxTurns} turns (SESSION_MAX_TURNS). Start a new conversation: send the question without session_id.`);
  }

  static override isInstance(error: unknown): error is TurnLimitError {
    return typeof error === 'object' && error !== null && limitMarker in error;
  }
}
