/**
 * Checksum bisection: a merge across engines whose traffic grows with the differences, not the
 * keys. Both engines compute, per segment of keys (the keys of a partition whose hash has the
 * same low bits), a count, the sum of key hashes and two sums of amount fingerprints
 * (compileBisection.ts); segments whose checksums agree are only counted, the others are split
 * by more bits and compared again, and once small their per-key rows are read and merged here
 * exactly as the row merge does (merges.ts). Same totals, classification and top differences.
 */
import { BoundParameters, decomposable, mergeKeyOrder } from './compile.ts';
import { KeyHashUnavailableError } from '../errors/index.ts';
import { compileSegments, OTHER_PRIME, PRIME, type SegmentLevel, type SegmentList } from './compileBisection.ts';
import { text, type Engine, type MergeTotals, type RowNotes } from './engines/engine.ts';
import { guessesOf, mergeGuessedRows, mergeSegmentRows, onBoth, shown } from './segmentReads.ts';
import { idOf, MOST_EXACT_KEYS, type Differing, type Segment } from './segmentIds.ts';
import type { KeyGuess } from './segmentRecovery.ts';
import { estimatedRows, keysAreUnique, keysGroupAsText } from './uniqueKeys.ts';
import { mergeAcrossEngines, mergedKeysOf, type MergedKeys } from './merges.ts';
import type { MergeQuery } from './query.ts';
import type { Folding } from './reducer.ts';
import { DEFAULT_TUNING, firstBitsFor, notesPay, type BisectionTuning } from './bisectionTuning.ts';

/**
 * Segments a finer level asks of a side at most (each is a row here, and a group in the engine):
 * PostgreSQL's default hash memory (work_mem 4 MB × hash_mem_multiplier 2) holds about 40,000 of
 * them, and 64,000 spilled to disk in 5 batches, 7 % of a pass over 10 M keys.
 */
const MOST_SEGMENTS = 32_768;
/** Hash bits used at most (of 32): masks stay positive on every engine. */
const MOST_BITS = 30;

interface Parents {
  bits: number;
  ids: Set<string>;
}

/**
 * Merges two sides by checksum bisection.
 * @example
 * const totals = await bisect(postgres, duckdb, query, folding);
 * totals.method; // { name: 'checksum_bisection', passes: 3, segments: 41_210, rows: 18_432 }
 */
export async function bisect(engineA: Engine, engineB: Engine, query: MergeQuery, folding: Folding, tuning: BisectionTuning = DEFAULT_TUNING): Promise<MergeTotals> {
  const notes: Partial<Record<'a' | 'b', RowNotes>> = {};
  try {
    return await bisectNoting(engineA, engineB, query, folding, tuning, notes);
  } finally {
    for (const book of Object.values(notes)) book.close();
  }
}

/** bisect, with `notes` of the sides whose rows are noted (closed by bisect). */
async function bisectNoting(engineA: Engine, engineB: Engine, query: MergeQuery, folding: Folding, tuning: BisectionTuning, notes: Partial<Record<'a' | 'b', RowNotes>>): Promise<MergeTotals> {
  const { leafKeys, directRows } = tuning;
  const keys = mergedKeysOf(query, folding);
  // A partition key that is one constant on both sides comes back NULL from SQL: its totals are the constant's.
  const { constantPartition } = mergeKeyOrder(query);
  const statements: string[] = [];
  const method = { name: 'checksum_bisection' as const, passes: 0, segments: 0, rows: 0 };
  const both = <T>(run: (engine: Engine, which: 'a' | 'b') => Promise<T>) => onBoth(engineA, engineB, run);
  const { unique, sides } = await ungroupedSides(engineA, engineB, query, tuning);
  const larger = tuning.firstBits === 'auto' || tuning.noteRows === 'auto' ? await largerSide(engineA, engineB, query) : 0;
  const firstBits = tuning.firstBits === 'auto' ? firstBitsFor(larger) : tuning.firstBits;
  // The side whose rows are looked up, if any (its unique index vouches that a key is one row).
  let lookUp = tuning.lookUpKeys && engineA !== engineB ? (['a', 'b'] as const).find((which) => unique[which] && (which === 'a' ? engineA : engineB).kind === 'postgres') : undefined;
  let ungrouped = sides;
  // Rows are noted on a side summed row by row (one note a row) on an engine that numbers them.
  if ((tuning.noteRows === 'auto' ? notesPay(larger) : tuning.noteRows) && tuning.guessKeys && engineA !== engineB) {
    for (const which of ungrouped) {
      // Without notes (a catalog that cannot be asked), the side is read by hashing.
      const book = await (which === 'a' ? engineA : engineB).rowNotes?.(query[which].table).catch(() => undefined);
      if (book) notes[which] = book;
    }
  }
  let level: SegmentLevel = { bits: firstBits, ungrouped, notes };
  /** A side's first pass kept while the other's is taken again. */
  let kept: { which: 'a' | 'b'; segments: Segment[] } | undefined;
  /** The differing segments of the level before, which the current level splits. */
  let parents: Parents | undefined;
  let allKeys = 0;
  /** The partition values of the first level (every key is there), indexed in segment lists. */
  let partitions: (string | null)[] = [];
  let partitionIndex = new Map<string | null, number>();
  for (;;) {
    const [segmentsA, segmentsB] = await both(async (engine, which) => {
      if (kept?.which === which) return kept.segments;
      const parameters = new BoundParameters(engine.dialect);
      const sql = compileSegments(query, which, engine.dialect, parameters, level);
      statements.push(shown(sql));
      const segments = (await engine.all(sql, parameters.values)).map(segmentFrom);
      method.segments += segments.length;
      return segments;
    }).catch((error: unknown) => {
      // Only the first pass may hand over: nothing has reached the reducer yet.
      if (method.passes === 0 && lacksKeyHash(error)) throw new KeyHashUnavailableError('the engine has no key hash (hashtextextended)', { cause: error });
      throw error;
    });
    method.passes += 1;
    kept = undefined;
    // More rows on an ungrouped side that may repeat keys than keys on the other (beyond a few
    // missing keys): it does repeat them, and every segment holding one would differ. Its first
    // pass is taken again, grouped; the other side's stands.
    const repeating = parents ? undefined : ungrouped.find((which) => !unique[which] && repeatsKeys(which === 'a' ? segmentsA : segmentsB, which === 'a' ? segmentsB : segmentsA));
    if (repeating) {
      ungrouped = ungrouped.filter((which) => which !== repeating);
      // Grouped, its rows are not noted one by one.
      dropNotes(notes, repeating);
      level = { bits: firstBits, ungrouped, notes };
      kept = repeating === 'a' ? { which: 'b', segments: segmentsB } : { which: 'a', segments: segmentsA };
      continue;
    }
    const differing = compare(segmentsA, segmentsB, parents, keys, constantPartition);
    if (!parents) allKeys = [...segmentsA, ...segmentsB].reduce((sum, segment) => sum + segment.keys, 0) / 2;
    if (differing.length === 0) break;
    if (!parents) {
      partitions = [...new Set([...segmentsA, ...segmentsB].map((segment) => segment.partition))];
      partitionIndex = new Map(partitions.map((partition, index) => [partition, index]));
    }
    const listed: SegmentList = { bits: level.bits, partitions, ids: differing.map((segment) => segment.segment * partitions.length + partitionIndex.get(segment.partition)!) };
    let next: SegmentLevel | undefined;
    // Segments one key would explain have that key's rows read, when few enough rows are left to
    // read at once (rowsToRead). The rows read must bear every guess out before anything is
    // merged; segments of guesses they do not are read again whole (or split), the others as guessed.
    const guesses = tuning.guessKeys ? guessesOf(differing, level.bits) : new Map<string, KeyGuess>();
    const allRows = differing.reduce((sum, segment) => sum + segment.rows, 0);
    for (;;) {
      let rows = rowsToRead(differing, guesses);
      if (rows > tuning.wholeRows && guesses.size) {
        guesses.clear();
        rows = allRows;
      }
      const unguessed = differing.filter((segment) => !guesses.has(idOf(segment)));
      // Differences all over: splitting would read every key again, level after level, where one
      // row merge reads them once (it costs 3–5 passes; 7 levels took 2.2× as long at 10 M keys).
      if (!parents && rows > allKeys && tuning.handOver && engineA !== engineB) {
        const merged = await mergeAcrossEngines(engineA, engineB, query, folding);
        return { ...merged, sql: [...statements, merged.sql].join('\n'), method: { name: 'row_merge', passes: method.passes + 1, segments: method.segments, rows: method.rows + merged.method!.rows } };
      }
      const largest = unguessed.reduce((most, segment) => Math.max(most, segment.keys), 0);
      if (level.bits >= MOST_BITS || largest <= 2 * leafKeys || rows <= Math.max(directRows, allKeys / 100)) {
        const read = guesses.size
          ? await mergeGuessedRows(engineA, engineB, query, keys, { differing, guesses, listed, lookUp, notes }, statements, constantPartition)
          : await mergeSegmentRows(engineA, engineB, query, keys, listed, statements, rows <= tuning.wholeRows || engineA === engineB);
        if (typeof read !== 'number') {
          method.rows += read.travelled;
          if (read.lookUp === false) lookUp = undefined;
          if (read.notes === false) dropNotes(notes);
          for (const id of read.unfounded) guesses.delete(id);
          continue;
        }
        method.rows += read;
        break;
      }
      const average = allRows / 2 / differing.length;
      // When most segments differ, a list of them filters nothing: the next level reads every key.
      const within = differing.length * 2 > (segmentsA.length + segmentsB.length) / 2 ? undefined : listed;
      // Split to about leafKeys keys per segment, in at most MOST_SEGMENTS groups a side: the
      // differing segments' children, or (reading every key) every partition's segments. A level
      // splits by one bit at least, whatever that makes.
      const fits = within ? Math.floor(Math.log2(MOST_SEGMENTS / differing.length)) : Math.floor(Math.log2(MOST_SEGMENTS / partitions.length)) - level.bits;
      const split = Math.min(Math.ceil(Math.log2(average / leafKeys)), fits);
      next = { bits: Math.min(MOST_BITS, level.bits + Math.max(1, split)), within, ungrouped };
      break;
    }
    if (!next) break;
    parents = { bits: level.bits, ids: new Set(differing.map(idOf)) };
    level = next;
  }
  return { sql: statements.join('\n'), partitions: keys.partitions(), method };
}

/**
 * The sides that checksum their rows ungrouped (compileSegments), among those whose measures sum
 * per row, and which sides hold a key once at most: both when one does (it vouches for the
 * other; a PostgreSQL other side only if its keys compare as text, a DuckDB or Parquet side's
 * keys are taken as texts, docs/data.md's limits, a SQLite side's never: a column may hold both
 * 1 and 1.0), else one PostgreSQL side whose keys compare as text (rows summed by key text must
 * find the keys its grouping by column finds), or as tuned. Pre-aggregated sides have few keys:
 * grouping them costs nothing.
 */
async function ungroupedSides(engineA: Engine, engineB: Engine, query: MergeQuery, tuning: BisectionTuning): Promise<{ sides: ('a' | 'b')[]; unique: Record<'a' | 'b', boolean> }> {
  const unique = { a: false, b: false };
  if (tuning.ungrouped === 'none' || query.preAggregate) return { sides: [], unique };
  const sides = (['a', 'b'] as const).filter((which) => decomposable(query[which].measure));
  if (tuning.ungrouped !== 'auto') return { sides: sides.filter((which) => which === tuning.ungrouped), unique };
  const engines = { a: engineA, b: engineB };
  const textual = { a: false, b: false };
  // One question at a time: a connection runs one statement (and interrupts the one it knows of).
  // A server that speaks PostgreSQL's protocol without its catalog keeps the side grouped.
  for (const which of ['a', 'b'] as const) {
    try {
      unique[which] = await keysAreUnique(engines[which], query[which]);
      textual[which] = await keysGroupAsText(engines[which], query[which]);
    } catch {
      unique[which] = textual[which] = false;
    }
  }
  const byText = (which: 'a' | 'b') => unique[which] || textual[which] || engines[which].kind === 'duckdb';
  if (unique.a || unique.b) return { sides: sides.filter(byText), unique };
  return { sides: sides.filter((which) => textual[which]).slice(0, 1), unique };
}

/**
 * The rows a read of the differing segments brings: a guessed key's (one a side), every row of the
 * others, and with guesses as many again for the segments a wrong guess has read whole (about as
 * many as those no key is guessed for: both hold two differing keys or more).
 */
function rowsToRead(differing: Differing[], guesses: Map<string, KeyGuess>): number {
  const all = differing.reduce((sum, segment) => sum + segment.rows, 0);
  if (!guesses.size) return all;
  const rows = differing.reduce((sum, segment) => sum + (guesses.has(idOf(segment)) ? Math.min(2, segment.rows) : 2 * segment.rows), 0);
  return Math.min(all, rows);
}

/** Closes and forgets a side's row notes (both sides' by default). */
function dropNotes(notes: Partial<Record<'a' | 'b', RowNotes>>, ...sides: ('a' | 'b')[]): void {
  for (const which of sides.length ? sides : (['a', 'b'] as const)) {
    notes[which]?.close();
    delete notes[which];
  }
}

/** The larger side's rows by its statistics (estimatedRows), asked one side after the other; 0 where unknown. */
async function largerSide(engineA: Engine, engineB: Engine, query: MergeQuery): Promise<number> {
  let rows = 0;
  for (const [engine, side] of [[engineA, query.a], [engineB, query.b]] as const) rows = Math.max(rows, await estimatedRows(engine, side).catch(() => 0));
  return rows;
}

/**
 * Whether an ungrouped side (`rows`, a pass's segments) holds more rows than the other side has keys
 * by more than a few missing keys would explain (0.1 %, at least 100): then it repeats keys.
 */
function repeatsKeys(rows: Segment[], keys: Segment[]): boolean {
  const count = (segments: Segment[]) => segments.reduce((sum, segment) => sum + segment.keys, 0);
  const [rowCount, keyCount] = [count(rows), count(keys)];
  return rowCount - keyCount > Math.max(100, keyCount / 1000);
}

/** A segment as an engine returns it (compileSegments' columns). */
function segmentFrom(row: unknown[]): Segment {
  return { partition: text(row[0]), segment: Number(row[1]), keys: Number(row[2]), keySum: Number(row[3]), otherKeySum: Number(row[4]), weightedSum: Number(row[5]), amountSum: Number(row[6]), total: Number(row[7] ?? 0) };
}

/**
 * Compares two sides' segments: agreeing ones are counted into the partition totals, the others
 * returned. At a finer level only the children of differing parents count (a level that reads
 * every key, when most segments differed, also returns those of agreeing ones, counted already).
 */
function compare(segmentsA: Segment[], segmentsB: Segment[], parents: Parents | undefined, keys: MergedKeys, constantPartition: string | undefined) {
  const relevant = (segment: Segment) => !parents || parents.ids.has(idOf({ partition: segment.partition, segment: segment.segment & (2 ** parents.bits - 1) }));
  const fromB = new Map(segmentsB.filter(relevant).map((segment) => [idOf(segment), segment]));
  const differing: Differing[] = [];
  for (const a of segmentsA.filter(relevant)) {
    const b = fromB.get(idOf(a));
    fromB.delete(idOf(a));
    if (b && a.keys <= MOST_EXACT_KEYS && b.keys === a.keys && b.keySum === a.keySum && b.otherKeySum === a.otherKeySum && modulo(b.weightedSum - a.weightedSum, PRIME) === 0 && modulo(b.amountSum - a.amountSum, OTHER_PRIME) === 0) keys.agree(constantPartition ?? a.partition, a.keys, a.total, b.total);
    else differing.push({ partition: a.partition, segment: a.segment, keys: Math.max(a.keys, b?.keys ?? 0), rows: a.keys + (b?.keys ?? 0), a, b });
  }
  for (const b of fromB.values()) differing.push({ partition: b.partition, segment: b.segment, keys: b.keys, rows: b.keys, b });
  return differing;
}

/** `value` modulo `prime`, whatever the sign (sums are exact integers below 2^53). */
const modulo = (value: number, prime: number) => ((value % prime) + prime) % prime;

const lacksKeyHash = (error: unknown) => error instanceof Error && /function hashtextextended\(.*does not exist|no such function: key_hash/i.test(error.message);

