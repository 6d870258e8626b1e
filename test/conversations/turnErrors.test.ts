/**
 * A turn refused because its session went away or is full is one of the service's own errors
 * (an AnalystError with its own guard), answered by /chat as its problem, never as a bug.
 */
import { describe, expect, it } from 'vitest';
import { SessionGoneError, TurnLimitError } from '../../src/conversations/turnErrors.ts';
import { AnalystError } from '../../src/errors/index.ts';
import { problemFor } from '../../src/http/problem.ts';

describe('errors refusing a turn', () => {
  it('are AnalystErrors told apart by their guards, and map to their problems', () => {
    const gone = new SessionGoneError('s1');
    const full = new TurnLimitError('s2', 200);
    expect([AnalystError.isInstance(gone), AnalystError.isInstance(full)]).toEqual([true, true]);
    expect([SessionGoneError.isInstance(gone), SessionGoneError.isInstance(full), TurnLimitError.isInstance(full), TurnLimitError.isInstance(gone)]).toEqual([true, false, true, false]);
    expect([gone.name, full.name]).toEqual(['SessionGoneError', 'TurnLimitError']);
    expect(problemFor(gone)).toMatchObject({ kind: 'sessionNotFound', extra: { session_id: 's1' } });
    expect(problemFor(full)).toMatchObject({ kind: 'sessionTurnLimit', extra: { session_id: 's2', max_turns: 200 } });
    expect(problemFor(new Error('a bug'))).toBeUndefined();
  });
});
