/**
 * How checksum bisection (bisection.ts) splits and reads: the tuning, its defaults for millions of
 * keys (tests use small ones to go deep), and the first level's size by the tables' rows.
 */

/** How bisection splits; the defaults suit millions of keys (tests use small ones to go deep). */
export interface BisectionTuning {
  /** Hash bits of the first level's segments; `auto`: by the tables' size (firstBitsFor). */
  firstBits: number | 'auto';
  /** Keys per segment a split aims at; segments this small are read row by row. */
  leafKeys: number;
  /**
   * Rows worth reading directly rather than splitting again: at least this, or 1 % of the keys
   * (another level reads both tables again, seconds at 10 M keys; 100,000 rows take a fraction).
   */
  directRows: number;
  /** Whether a first pass that finds more than half of the keys in differing segments hands over to the row merge. */
  handOver: boolean;
  /**
   * Rows of differing segments (both sides, counted by their checksums) read whole rather than
   * through a cursor, which PostgreSQL plans without parallel workers: the rows of 10 segments of
   * 10 M keys came in 2.6–3.2 s instead of 4.7–5.9 s. More are streamed, in bounded memory.
   */
  wholeRows: number;
  /**
   * The sides whose rows are checksummed ungrouped (compileSegments): `auto` ungroups both when
   * one has a unique index over its keys (uniqueKeys.ts), else a PostgreSQL side whose keys
   * compare as text (its grouping by millions of keys is 40 % of its pass); `none` groups both;
   * `a` or `b` that side.
   */
  ungrouped: 'auto' | 'a' | 'b' | 'none';
  /**
   * Whether a differing segment that one key would explain has only that key read (segmentRecovery.ts):
   * 1,000 differing keys among 10 M are then read in the pass after the first, not two passes later.
   */
  guessKeys: boolean;
  /**
   * Whether a side on PostgreSQL with a unique index over its keys has the rows of the keys read
   * after the first pass looked up by the other side's keys (segmentReads.ts), instead of both
   * sides reading their tables again at once: one index lookup a key, not every row hashed. The
   * index is looked for with `ungrouped: 'auto'` only.
   */
  lookUpKeys: boolean;
  /**
   * Whether a side read from one Parquet file (DuckDB) and summed row by row notes each row's hash
   * bits by row number in its first pass, so the read after it takes rows by number instead of
   * hashing every row again (with guessed keys: the reads of guessed keys use the notes); `auto`:
   * when a PostgreSQL side holds 4 M rows or more by its statistics (notesPay; other engines'
   * sizes are unknown here). Noting costs DuckDB's pass
   * 60–90 ms at 1 M rows, where reading by hashing costs little more; at 10 M it saves 0.7–0.9 s
   * a read and the pass is PostgreSQL's anyway.
   */
  noteRows: boolean | 'auto';
}

export const DEFAULT_TUNING: BisectionTuning = { firstBits: 'auto', leafKeys: 16, directRows: 10_000, handOver: true, wholeRows: 100_000, ungrouped: 'auto', guessKeys: true, lookUpKeys: true, noteRows: 'auto' };
/** Rows from which the first level has 2,048 segments a partition (firstBitsFor). */
const MANY_ROWS = 4_000_000;

/**
 * The first level's hash bits for tables of `rows` rows (the larger side's, by its statistics):
 * 10, 1,024 segments a partition, or from 4 M rows 11. With 2,048, segments holding two differing
 * keys (read whole: no key guessed, or a wrong one) are half as many and half the size: 1,000 of
 * 10 M keys differing brought 40,000 rows instead of 164,000, in one read instead of a level and a
 * read; 16 partitions make 32,768 groups, which PostgreSQL still aggregates in memory. Below,
 * twice the segments cost more than they save (1 M keys: 0.8 s instead of 0.6 s with none differing).
 * @example
 * firstBitsFor(10_000_000); // 11
 */
export const firstBitsFor = (rows: number) => (rows >= MANY_ROWS ? 11 : 10);

/**
 * Whether noting rows pays (noteRows `auto`) for tables of `rows` rows (the larger side's, by its
 * statistics): from 4 M rows, as for the first level's 2,048 segments.
 * @example
 * notesPay(10_000_000); // true
 */
export const notesPay = (rows: number) => rows >= MANY_ROWS;
