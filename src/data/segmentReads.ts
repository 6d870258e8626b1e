/**
 * Reading the rows of the segments checksum bisection found differing (bisection.ts): each side's
 * per-key rows of whole segments, or of the keys guessed from their segments' checksums
 * (segmentRecovery.ts), by hashing or from the row sources that spare it (segmentRowSources.ts),
 * merged as the row merge merges them.
 */
import { BoundParameters, mergeKeyOrder } from './compile.ts';
import { compileSegmentRows, type NumberedRows, type RowPick, type SegmentList } from './compileBisection.ts';
import { canLookUp, lookUpRows, markSegment } from './segmentRowSources.ts';
import { text, type Engine, type RowNotes } from './engines/engine.ts';
import { ChunkCursor, mergeSorted, type MergedKeys } from './merges.ts';
import type { MergeQuery } from './query.ts';
import { explains, guessKey, type CheckedRow, type KeyGuess } from './segmentRecovery.ts';
import { idOf, MOST_EXACT_KEYS, type Differing } from './segmentIds.ts';

/**
 * The key guessed for each differing segment one key would explain (segmentRecovery.ts), by segment id.
 * @example
 * guessesOf(differing, 11); // Map { '904:+EUR' => { hashes: [3_418_034_056], holder: 'both' }, … }
 */
export function guessesOf(differing: Differing[], bits: number): Map<string, KeyGuess> {
  const guesses = new Map<string, KeyGuess>();
  for (const segment of differing) {
    // A segment too large for exact sums is read whole (never taken as agreeing either).
    if (Math.max(segment.a?.keys ?? 0, segment.b?.keys ?? 0) > MOST_EXACT_KEYS) continue;
    const guess = guessKey(segment.a, segment.b, bits, segment.segment);
    if (guess) guesses.set(idOf(segment), guess);
  }
  return guesses;
}

/** What mergeGuessedRows reads: the differing segments, the keys guessed for them, their list; and maybe the side to look up. */
export interface GuessedRead {
  differing: Differing[];
  guesses: Map<string, KeyGuess>;
  listed: SegmentList;
  /**
   * A side on PostgreSQL with a unique index over its keys: its rows are looked up by the keys the
   * other side's read brings (compileKeyRows), one index lookup a key, instead of hashing every row.
   */
  lookUp?: 'a' | 'b' | undefined;
  /** Sides whose rows' hash bits were noted in the first pass: their rows are taken by number. */
  notes?: Partial<Record<'a' | 'b', RowNotes>> | undefined;
}

/**
 * Nothing merged: the guesses that failed and the rows that came; `lookUp: false` when a side's
 * looked-up rows did not make up its whole segments (it holds keys the other lacks) or a key's
 * text was refused, `notes: false` when rows taken by number did not make up theirs: those
 * sides are read by hashing from then on.
 */
export interface ReadAgain {
  unfounded: string[];
  travelled: number;
  lookUp?: false;
  /** The rows taken by number did not make up their segments (repeated keys, or a file changed): read by hashing. */
  notes?: false;
}

/**
 * Reads both sides' rows of the guessed keys (or, where a key guessed on both sides is on neither,
 * its segment's every row) and of the other differing segments: at once, or with `lookUp` one side
 * after the other, the looked-up side's by the keys the other's brought; a side with `notes` by
 * row number. Merges them when each guessed key found accounts for its segment's difference (the
 * rest of the segment agrees, and is counted like an agreeing segment) and each segment read whole
 * is whole on a looked-up or numbered side too (its checksums are its rows'); returns the rows
 * that came; else, with nothing merged, ReadAgain.
 * @example
 * const read = await mergeGuessedRows(postgres, duckdb, query, keys, { differing, guesses, listed }, statements, undefined);
 * if (typeof read !== 'number') for (const id of read.unfounded) guesses.delete(id); // and read again
 */
export async function mergeGuessedRows(engineA: Engine, engineB: Engine, query: MergeQuery, keys: MergedKeys, read: GuessedRead, statements: string[], constantPartition: string | undefined): Promise<number | ReadAgain> {
  const { differing, guesses, listed } = read;
  const unguessed = new Set(differing.map(idOf).filter((id) => !guesses.has(id)));
  const candidates = new Set([...guesses.values()].flatMap((guess) => guess.hashes));
  // Segments numbered as `listed` numbers them (its ids follow `differing`).
  const numbers = (chosen: (id: string) => boolean) => differing.flatMap((segment, at) => (chosen(idOf(segment)) ? [listed.ids[at]!] : []));
  const pick: RowPick = { hashes: [...candidates], segments: numbers((id) => unguessed.has(id)), unlessFound: numbers((id) => guesses.get(id)?.holder === 'both') };
  const { ordered, constants } = mergeKeyOrder(query);
  const partitionOf = query.partitionKey === undefined || constants.has(query.partitionKey) ? () => null : (row: unknown[]) => text(row[0]);
  const [at, mask] = [ordered.length, 2 ** listed.bits];
  // A read brings the keys with a guessed hash in any listed segment, every key of an unguessed
  // segment, and of a segment guessed to hold a key on both sides and found to hold none, every key
  // (by the statement's window, or a second read by number; a lookup brings the keys asked for).
  // `found`: the guessed segments where a guessed hash came. Of these rows, only the keys asked for stay.
  const picked = (rows: unknown[][]) => {
    const checkedRows = rows.map((row) => {
      const checked: CheckedRow = { hash: Number(row[at + 2]), otherHash: Number(row[at + 3]), units: wholeUnits(row[at + 1]) };
      return { row, checked, id: idOf({ partition: partitionOf(row), segment: checked.hash % mask }) };
    });
    const found = new Set(checkedRows.filter((row) => guesses.has(row.id) && candidates.has(row.checked.hash)).map((row) => row.id));
    const kept = checkedRows.filter(({ id, checked }) => {
      const guess = guesses.get(id);
      if (!guess) return unguessed.has(id);
      if (!found.has(id)) return guess.holder === 'both';
      return guess.hashes.includes(checked.hash) && (guess.otherHash === undefined || guess.otherHash === checked.otherHash);
    });
    return { kept, found, travelled: rows.length };
  };
  const readRows = async (engine: Engine, which: 'a' | 'b', rowPick: RowPick, numbered?: NumberedRows) => {
    const parameters = new BoundParameters(engine.dialect);
    const sql = compileSegmentRows(query, which, engine.dialect, parameters, listed, rowPick, numbered);
    statements.push(shown(sql));
    return engine.all(sql, parameters.values);
  };
  const readPicked = async (engine: Engine, which: 'a' | 'b') => {
    const book = read.notes?.[which];
    if (!book) return picked(await readRows(engine, which, pick));
    // By number: the rows noted with a guessed hash's low bits or an unguessed segment's, then,
    // for guesses on both sides none of whose hashes came, their segments' rows too (no window).
    const wanted = new Uint8Array(2 ** 16);
    for (const hash of candidates) wanted[hash % 2 ** 16] = 1;
    const mark = (ids: Set<string>) => differing.filter((segment) => ids.has(idOf(segment))).forEach((segment) => markSegment(wanted, segment.segment, listed.bits));
    mark(unguessed);
    const first = await readRows(engine, which, { ...pick, unlessFound: [] }, { notes: book, chosen: book.choose(wanted) });
    const { found } = picked(first);
    const missing = new Set([...guesses].filter(([id, guess]) => guess.holder === 'both' && !found.has(id)).map(([id]) => id));
    if (missing.size === 0) return picked(first);
    mark(missing);
    const again = picked(await readRows(engine, which, { hashes: pick.hashes, segments: numbers((id) => unguessed.has(id) || missing.has(id)), unlessFound: [] }, { notes: book, chosen: book.choose(wanted) }));
    return { ...again, travelled: again.travelled + first.length };
  };
  const lookUp = read.lookUp && canLookUp(read.lookUp, differing, guesses) ? read.lookUp : undefined;
  // Looking a side up: the other side read first, then its keys asked for.
  const readThenLookUp = async (side: 'a' | 'b'): Promise<[Picked, Picked] | { travelled: number }> => {
    const other = side === 'a' ? 'b' : 'a';
    const engines = { a: engineA, b: engineB };
    const read = await readPicked(engines[other], other);
    const keyRows = await lookUpRows(engines[side], side, query, read.kept.map(({ row }) => row.slice(0, at)), statements);
    if (!keyRows) return { travelled: read.travelled };
    const looked = picked(keyRows);
    return side === 'a' ? [looked, read] : [read, looked];
  };
  type Picked = ReturnType<typeof picked>;
  const sides = lookUp ? await readThenLookUp(lookUp) : await onBoth(engineA, engineB, readPicked);
  // Keys the looked-up side refused as text: nothing merged, both sides read by hashing.
  if (!Array.isArray(sides)) return { unfounded: [], travelled: sides.travelled, lookUp: false };
  const [rowsA, rowsB] = sides;
  const travelled = rowsA.travelled + rowsB.travelled;
  // A guessed segment's rows kept where a guessed hash was found: those with its own guess's hashes.
  const guessedIn = (side: Picked) => groupById(side.kept.filter((row) => guesses.has(row.id) && side.found.has(row.id)));
  const [guessedA, guessedB] = [guessedIn(rowsA), guessedIn(rowsB)];
  const segments = new Map(differing.map((segment) => [idOf(segment), segment]));
  const keyed: string[] = [];
  const unfounded: string[] = [];
  /** Segments read whole (no guess, or a key guessed on both sides found on neither). */
  const whole = new Set(unguessed);
  for (const [id, guess] of guesses) {
    // A key guessed on both sides, no guessed hash in its segment on either: it came whole on
    // both, as unguessed ones do. Found on one side only, it came whole on the other: read again.
    if (guess.holder === 'both' && !rowsA.found.has(id) && !rowsB.found.has(id)) {
      whole.add(id);
      continue;
    }
    const [inA, inB] = [guessedA.get(id), guessedB.get(id)];
    const holds = guess.holder === 'both' ? inA && inB : guess.holder === 'a' ? inA && !inB : inB && !inA;
    if (holds && explains(segments.get(id)!.a, segments.get(id)!.b, inA?.map((row) => row.checked) ?? [], inB?.map((row) => row.checked) ?? [])) keyed.push(id);
    else unfounded.push(id);
  }
  // A segment read whole on a looked-up side is the other side's keys it holds, on a side taken by
  // number the rows noted in its segment: all of it only if they make up its checksums (else
  // that side is read again, by scanning).
  const wholeOn = (which: 'a' | 'b') => {
    const rowsOf = groupById((which === 'a' ? rowsA : rowsB).kept.filter((row) => whole.has(row.id)));
    return [...whole].every((id) => explains(segments.get(id)![which], undefined, rowsOf.get(id)?.map((row) => row.checked) ?? [], []));
  };
  const numbered = (['a', 'b'] as const).every((which) => !read.notes?.[which] || which === lookUp || wholeOn(which));
  // Rows taken by number that miss some of a segment's keys leave those keys unasked on a looked-up side: the notes are to blame.
  const looked = !lookUp || !numbered || wholeOn(lookUp);
  if (unfounded.length || !looked || !numbered) return { unfounded, travelled, ...(looked ? {} : { lookUp: false as const }), ...(numbered ? {} : { notes: false as const }) };
  // A guessed segment's totals are its checksums' (no difference of doubles to round); its other
  // keys are counted here, the guessed one as it is merged.
  for (const id of keyed) {
    const { a, b, partition } = segments.get(id)!;
    keys.agree(constantPartition ?? partition, (a?.keys ?? 0) - (guessedA.get(id)?.length ?? 0), a?.total ?? 0, b?.total ?? 0);
  }
  const keyedIds = new Set(keyed);
  const counted = new Set<readonly unknown[]>([...rowsA.kept, ...rowsB.kept].filter((row) => keyedIds.has(row.id)).map((row) => row.row));
  const cursor = (rows: Picked) => new ChunkCursor((async function* () { yield rows.kept.map((row) => row.row); })());
  await mergeSorted(cursor(rowsA), cursor(rowsB), query, keys, () => (engineA.interrupt(), engineB.interrupt()), (row) => counted.has(row));
  return travelled;
}

/** Rows grouped by their segment's id. */
function groupById<T extends { id: string }>(rows: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(row.id);
    if (group) group.push(row);
    else groups.set(row.id, [row]);
  }
  return groups;
}

/** Whole units as an engine returns them (a number, a bigint or a numeral). */
const wholeUnits = (value: unknown) => BigInt(typeof value === 'number' ? Math.trunc(value) : String(value ?? 0));

/**
 * Reads both sides' per-key rows of the differing segments, in key order, and merges them; `whole`
 * reads each side in one result rather than through a cursor.
 * @example
 * method.rows += await mergeSegmentRows(postgres, duckdb, query, keys, listed, statements, true);
 */
export async function mergeSegmentRows(engineA: Engine, engineB: Engine, query: MergeQuery, keys: MergedKeys, within: SegmentList, statements: string[], whole: boolean): Promise<number> {
  const side = (engine: Engine, which: 'a' | 'b') => {
    const parameters = new BoundParameters(engine.dialect);
    const sql = compileSegmentRows(query, which, engine.dialect, parameters, within);
    statements.push(shown(sql));
    // Whole: few rows, or both sides on one connection, which runs one statement at a time (two
    // cursors of a stream merge would wait on each other there).
    if (whole) return new ChunkCursor((async function* () { yield await engine.all(sql, parameters.values); })());
    return new ChunkCursor(engine.chunks(sql, parameters.values));
  };
  return mergeSorted(side(engineA, 'a'), side(engineB, 'b'), query, keys, () => (engineA.interrupt(), engineB.interrupt()));
}

/**
 * A statement as the result shows it: a list of thousands of segment numbers or hashes said in a few words.
 * @example
 * shown('… IN (1, 2, 3, …, 4000)'); // '… IN (1, 2, 3, 4, 5, … 4000 in all)'
 */
export const shown = (sql: string) => sql.replace(/IN \((\d+(?:, \d+){20,})\)/g, (_, list: string) => `IN (${list.split(', ').slice(0, 5).join(', ')}, … ${list.split(', ').length} in all)`);

/**
 * Runs a statement on both sides: at once on two engines, one after the other on one. When one
 * fails, the other is interrupted and the first failure is raised (the other's is the interruption).
 * @example
 * const [rowsA, rowsB] = await onBoth(postgres, duckdb, (engine, which) => engine.all(sqlOf(which), []));
 */
export async function onBoth<T>(engineA: Engine, engineB: Engine, run: (engine: Engine, which: 'a' | 'b') => Promise<T>): Promise<[T, T]> {
  if (engineA === engineB) return [await run(engineA, 'a'), await run(engineB, 'b')];
  let first: { error: unknown } | undefined;
  const stopping = (promise: Promise<T>, other: Engine) =>
    promise.catch((error: unknown) => {
      if (!first) {
        first = { error };
        other.interrupt();
      }
      return Promise.reject(error);
    });
  const outcomes = await Promise.allSettled([stopping(run(engineA, 'a'), engineB), stopping(run(engineB, 'b'), engineA)]);
  if (first) throw first.error;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<T>).value) as [T, T];
}
