/**
 * A skill's record changed since the skill read it: a write or delete that named the version it
 * read (SkillRecords.put/delete with `version`) found another, so nothing was written. Two
 * instances saving the same record at once cannot both win; the loser reads again and decides.
 */
import { AnalystError } from './analystError.ts';

const marker = Symbol.for('analyst.error.record-conflict');

/** The record `collection`/`id` is at version `found` (undefined: absent), not `expected`. */
export class RecordConflictError extends AnalystError {
  readonly [marker] = true;

  constructor(
    readonly collection: string,
    readonly id: string,
    readonly expected: number,
    readonly found: number | undefined,
  ) {
    super(`The record ${collection}/${id} is at ${found === undefined ? 'no version (it does not exist)' : `version ${found}`}, not ${expected === 0 ? 'absent' : `version ${expected}`}: it changed since it was read; nothing was written.`);
  }

  static override isInstance(error: unknown): error is RecordConflictError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
