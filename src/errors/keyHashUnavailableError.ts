/**
 * An engine cannot compute the key hash of checksum bisection (a server that speaks PostgreSQL's
 * protocol without its `hashtextextended`). Raised only by bisection's first pass, before any key reached
 * the reducer, so the data layer merges the sides row by row instead (execute.ts).
 */
import { AnalystError } from './analystError.ts';

const marker = Symbol.for('analyst.error.key-hash-unavailable');

/** The first pass of a bisection failed for want of the key hash; `cause` is the engine's error. */
export class KeyHashUnavailableError extends AnalystError {
  readonly [marker] = true;

  static override isInstance(error: unknown): error is KeyHashUnavailableError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
