/**
 * Where checksum bisection's read after the first pass finds a side's rows other than by hashing
 * every row again (segmentReads.ts): a side on PostgreSQL with a unique index looks them up by the
 * keys the other side brought; a side whose rows were noted (RowNotes) takes them by number.
 */
import { BoundParameters } from './compile.ts';
import { compileKeyRows } from './compileBisection.ts';
import type { Engine } from './engines/engine.ts';
import type { MergeQuery } from './query.ts';
import { idOf, type Differing } from './segmentIds.ts';
import type { KeyGuess } from './segmentRecovery.ts';

/**
 * Flags in `wanted` the 16-bit values whose low `bits` are `segment` (all of them at 16 bits or more).
 * @example
 * markSegment(wanted, 904, 11); // flags 904, 904 + 2,048, … (32 values)
 */
export function markSegment(wanted: Uint8Array, segment: number, bits: number): void {
  if (bits >= 16) wanted[segment % 2 ** 16] = 1;
  else for (let value = segment; value < wanted.length; value += 2 ** bits) wanted[value] = 1;
}

/**
 * Whether `side`'s rows can be looked up by the other side's keys: no key guessed to be on it
 * alone, and no segment read whole holding more keys there than on the other (those keys would
 * never be asked for).
 * @example
 * if (canLookUp('a', differing, guesses)) { … } // read b, then look a's rows up by b's keys
 */
export function canLookUp(side: 'a' | 'b', differing: Differing[], guesses: Map<string, KeyGuess>): boolean {
  const other = side === 'a' ? 'b' : 'a';
  return differing.every((segment) => {
    const guess = guesses.get(idOf(segment));
    return guess ? guess.holder !== side : (segment[side]?.keys ?? 0) <= (segment[other]?.keys ?? 0);
  });
}

/**
 * A side's per-key rows of the given keys (their texts in merge order), as compileKeyRows reads
 * them, or undefined when the server refuses a key's text (a character its encoding lacks).
 * Keys it could not hold are not asked for: a NULL part (looked up sides' unique index keys are
 * NOT NULL; a key column outside the index may not be, and its segment then falls short of the
 * checksums) or a NUL character in a text.
 * @example
 * await lookUpRows(postgres, 'a', query, [['EUR', '0400015593', '2']], statements); // [['EUR', '0400015593', '2', 12.5, 1250, …]]
 */
export async function lookUpRows(engine: Engine, which: 'a' | 'b', query: MergeQuery, keyRows: unknown[][], statements: string[]): Promise<unknown[][] | undefined> {
  const holds = (part: unknown) => part !== null && part !== undefined && (engine.dialect.nulInText || !String(part).includes('\u0000'));
  const texts = keyRows.filter((key) => key.every(holds)).map((key) => key.map(String));
  if (texts.length === 0) return [];
  const parameters = new BoundParameters(engine.dialect);
  const sql = compileKeyRows(query, which, engine.dialect, parameters, texts);
  statements.push(sql);
  return engine.all(sql, parameters.values).catch((error: unknown) => (refusedText(error) ? undefined : Promise.reject(error)));
}

/** PostgreSQL's refusal of a text it cannot take (SQLSTATE 22021: a byte sequence its encoding lacks; 22P05: no equivalent in it). */
const refusedText = (error: unknown) => ['22021', '22P05'].includes(String((error as { code?: unknown } | undefined)?.code));
