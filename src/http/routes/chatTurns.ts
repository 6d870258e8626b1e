/**
 * How /chat answers a refused turn: a session deleted (or expired) while the turn waited or ran
 * is a 404 (never a 200 for a turn that is not kept); a conversation that already holds
 * SESSION_MAX_TURNS turns is a 409 (start a new one). The errors themselves are the
 * conversation service's (src/conversations/turnErrors.ts).
 */
import { SessionGoneError, TurnLimitError } from '../../conversations/turnErrors.ts';
import type { ProblemKind } from '../problem.ts';

export { DEFAULT_SESSION_MAX_TURNS, SessionGoneError, TurnLimitError } from '../../conversations/turnErrors.ts';

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
