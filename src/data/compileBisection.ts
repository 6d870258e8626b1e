/**
 * The statements of checksum bisection (bisection.ts), compiled for one side of a merge on its
 * engine. Every key gets one text form on every engine: its key values as text (NULL as U+001E),
 * in merge order, joined by U+001F; its amount a whole number of 10^-decimals units. A key's hash
 * is PostgreSQL's `hashtextextended` of that text (keyHash.ts), whose halves are two hashes
 * (the low one `hashtext`'s); a segment is the keys whose low hash has the same low bits.
 * A side may checksum its rows one by one instead of its keys (`ungrouped`): see compileSegments.
 */
import { keyColumns, keyTexts, mergeKeyOrder, rowValue, sideValue, whereClause, type BoundParameters } from './compile.ts';
import { quoteIdentifier, textArrayLiteral, type Dialect } from './dialect.ts';
import type { RowNotes } from './engines/engine.ts';
import type { MergeQuery, MergeSide } from './query.ts';

/**
 * Primes below 2^31: products of two residues fit a signed 64-bit integer on every engine. Sides
 * compare their amount sums modulo them (bisection.ts).
 */
export const PRIME = 2_147_483_647;
export const OTHER_PRIME = 2_147_483_629;
/** 32 bits of a 64-bit hash as a non-negative number (on every engine, whatever its shift does with the sign). */
const UINT32_MASK = 4_294_967_295;
/** U+001E stands for NULL in a key's text (U+001F, dialect.keyHash's separator, joins the parts). */
const NULL_MARK = 30;

/** Segments by the low `bits` of the key hash, narrowed to those of `within` (the low `within.bits`). */
export interface SegmentLevel {
  bits: number;
  /** Only keys in these segments of a coarser level (undefined: every key). */
  within?: SegmentList | undefined;
  /** The sides whose rows are checksummed ungrouped, each as a key of its own (their measures must be sums or counts). */
  ungrouped?: readonly ('a' | 'b')[] | undefined;
  /** Sides (ungrouped) whose rows' hash bits are noted by row number as they are hashed (RowNotes). */
  notes?: Partial<Record<'a' | 'b', RowNotes>> | undefined;
}

/**
 * Segments at `bits` (the low bits of the key hash) of given partitions, listed by one number
 * each: segment × partitions.length + the partition's index in `partitions`.
 */
export interface SegmentList {
  bits: number;
  partitions: readonly (string | null)[];
  ids: readonly number[];
}

/** `(h & mask)` as an expression: the segment of a hash at `bits`. */
const segmentOf = (hash: string, bits: number) => `(${hash} & ${2 ** bits - 1})`;

/** The hash of a key from its parts' texts (NULL written as U+001E). */
function keyHash(parts: readonly string[], dialect: Dialect): string {
  return dialect.keyHash(parts.map((part) => `COALESCE(${part}, ${dialect.character(NULL_MARK)})`));
}

/** Which of a side's keys hashedKeys reads, and how. */
interface KeyRowsOf {
  /** Only keys in these segments (by their hash; unless `numbered.chosen` takes rows instead). */
  within?: SegmentList | undefined;
  /** Rows one by one, ungrouped (compileSegments). */
  perRow?: boolean | undefined;
  /** Only the keys listed by their texts, in merge order (compileKeyRows). */
  listed?: readonly (readonly string[])[] | undefined;
  /** A side whose rows are numbered: read from `notes.source`; rows one by one noted as hashed, or only the rows `chosen`. */
  numbered?: NumberedRows | undefined;
}

/** A side's row notes (RowNotes), and the condition taking the rows to read (none: every row, each noted as it is hashed). */
export interface NumberedRows {
  notes: RowNotes;
  chosen?: string | undefined;
}

/**
 * The per-key rows of one side, keys as text in merge order (aliases k0…), `v` the side's value,
 * `c` its whole units, `h` and `h2` the low and high halves of the key's 64-bit hash (computed
 * once, as `x`, beside `d`, the value as a double); narrowed before grouping to the keys of
 * `of.within` (by their hash), to the rows `of.numbered.chosen` (a superset of those segments'
 * rows: the caller's pick drops the others), or to the keys `of.listed`; with `of.numbered` and no
 * choice, each row's hash bits noted by its number as it is hashed.
 */
function hashedKeys(query: MergeQuery, which: 'a' | 'b', dialect: Dialect, parameters: BoundParameters, of: KeyRowsOf = {}): { sql: string; keys: string[] } {
  const { within, listed, numbered } = of;
  const perRow = of.perRow ?? false;
  const noting = numbered && !numbered.chosen && perRow;
  const side = query[which];
  const { ordered } = mergeKeyOrder(query);
  // Each use of a constant key binds its own marker: '?' markers are filled in text order.
  const texts = () => keyTexts(side, ordered, dialect, parameters);
  const aliases = ordered.map((_, index) => `k${index}`);
  const select = texts().map((text, index) => `${text} AS ${aliases[index]}`);
  const where = whereClause(side.where, dialect, parameters);
  // Rows taken by their numbers are those of the segments asked for (and some more, dropped
  // later): no hash is computed to narrow them.
  const narrowed = numbered?.chosen || (within ? narrowing(within, partitioned(query) ? side.keys[query.partitionKey!] : undefined, texts, dialect, parameters) : '');
  const conditions = [where.replace(/^WHERE /, ''), narrowed, listed ? listedKeys(texts(), listed, parameters) : ''].filter(Boolean);
  // Grouped by the columns themselves, so an index in key order serves the grouping; their text
  // is the same per group (a column holding both 1 and '1' is SQLite's only exception).
  const columns = keyColumns(side, ordered);
  // A side whose keys are all constants is one key, if it has rows at all.
  // Rows one by one: each row's own value, no grouping.
  const grouping = perRow ? '' : columns.length ? ` GROUP BY ${columns.join(', ')}` : ' HAVING COUNT(*) > 0';
  const value = perRow ? rowValue(side.measure) : sideValue(side.measure);
  const source = numbered ? numbered.notes.source : dialect.table(side.table);
  const perKey = `SELECT ${[...select, `${value} AS v`, ...(noting ? [`${numbered.notes.row} AS r`] : [])].join(', ')} FROM ${source}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}${grouping}`;
  // One 64-bit hash and one conversion of the amount per key (the fence): the hash's halves are
  // two independent 32-bit hashes, so two key sets that differ look alike only if both collide,
  // odds of 1 in 2^64 per pair of keys.
  const hash = noting ? numbered.notes.noted('r', keyHash(aliases, dialect)) : keyHash(aliases, dialect);
  const hashed = `SELECT ${[...aliases, 'v', `${dialect.double('v')} AS d`, `${hash} AS x`].join(', ')} FROM (${perKey}) AS per_key${dialect.fence}`;
  const derived = [`${dialect.wholeUnits('d', query.decimals)} AS c`, `x & ${UINT32_MASK} AS h`, `(x >> 32) & ${UINT32_MASK} AS h2`];
  return { sql: `SELECT ${[...aliases, 'v', ...derived].join(', ')} FROM (${hashed}) AS hashed_keys`, keys: aliases };
}

/**
 * The rows of the keys listed by their texts (each a text per key in merge order), as PostgreSQL
 * finds them: one text array a key part, unnested. A key part that is a text or varchar column is
 * compared as itself, so an index leading with such columns finds the rows (a unique index over
 * the keys: a lookup per key); other types are compared by their text, after the index's lookup
 * or, when its leading column is one of them, over every row (still no hash computed).
 */
function listedKeys(texts: string[], keys: readonly (readonly string[])[], parameters: BoundParameters): string {
  const arrays = texts.map((_, part) => `CAST(${parameters.bind(textArrayLiteral(keys.map((key) => key[part]!)))} AS TEXT[])`);
  return `(${texts.join(', ')}) IN (SELECT * FROM unnest(${arrays.join(', ')}))`;
}

/**
 * The rows of the listed segments: the row's segment and partition as one number, in one list.
 * The hash is written once (DuckDB evaluates every branch of an OR, so a branch per partition
 * would hash each row once per partition).
 */
function narrowing(within: SegmentList, partitionKey: MergeSide['keys'][number] | undefined, texts: () => string[], dialect: Dialect, parameters: BoundParameters): string {
  const ids = within.ids.join(', ');
  const scaledSegment = () => `CAST(${segmentOf(keyHash(texts(), dialect), within.bits)} AS BIGINT) * ${within.partitions.length}`;
  if (!partitionKey) return `${scaledSegment()} IN (${ids})`;
  // A constant partition on this side: its index is known here (no marker to repeat per branch).
  if ('literal' in partitionKey) {
    const at = within.partitions.indexOf(partitionKey.literal);
    return at === -1 ? '1 = 0' : `${scaledSegment()} + ${at} IN (${ids})`;
  }
  // The partition's index costs a comparison per partition on every row. When few segments are
  // listed, rows are first narrowed by their segment alone (a hash computed again only for the
  // rows that pass): half the time of a pass that reads 10 segments of 10 M keys on PostgreSQL.
  // DuckDB would hash every row twice instead (its CASE is cheap anyway).
  const listed = [...new Set(within.ids.map((id) => Math.floor(id / within.partitions.length)))];
  const first = dialect.conditionsInOrder && listed.length * 4 <= 2 ** within.bits ? `${segmentOf(keyHash(texts(), dialect), within.bits)} IN (${listed.join(', ')}) AND ` : '';
  // Built in text order: the hash's markers (constant keys) come before the partitions'.
  const segment = scaledSegment();
  return `${first}${segment} + ${partitionIndex(dialect.keyText(quoteIdentifier(partitionKey.column)), within.partitions, dialect, parameters)} IN (${ids})`;
}

/** A partition's index in `partitions` (-1 for another), from its text; each value bound as it is written. */
function partitionIndex(partition: string, partitions: readonly (string | null)[], dialect: Dialect, parameters: BoundParameters): string {
  const index = partitions.map((value, at) => (value === null ? `WHEN ${partition} IS NULL THEN ${at}` : `WHEN ${partition} = ${dialect.textParameter(parameters.bind(value))} THEN ${at}`));
  return `CASE ${index.join(' ')} ELSE -1 END`;
}

const partitioned = (query: MergeQuery) => partitionAlias(query, ['k0']) !== 'NULL';

/**
 * One side's segments at a level (see the example): partition, segment, keys, the sums of the two key hashes, two
 * sums of amount fingerprints, and the unrounded sum of values (the partition totals of agreeing
 * segments). Two sides' segments agree when all but the last are equal (the fingerprints modulo
 * their primes): another key set shows in the count or the hash sums, an amount changed on one key
 * in both fingerprints (the plain one catches a change by a multiple of the first prime), changes
 * that cancel out with odds of 1 in 2^31.
 *
 * A side in `level.ungrouped` sums its rows ungrouped, as if each were a key: a pass with no
 * grouping by key, 40 % less time on PostgreSQL and a third of DuckDB's memory (no hash table
 * of millions of keys). Its sums then weigh each key's hashes by its number of rows, so they
 * equal those of a side with one row per key (grouped, or ungrouped with a unique index over
 * its keys, uniqueKeys.ts) only if every key of the segment has exactly one row there too and
 * the keys are the same: segments that agree are counted as before, with the same odds; a key
 * with several rows makes its segment differ, and differing segments are read per key, as
 * always. Two sides that may both repeat keys must not both be ungrouped: repeating the same
 * keys alike, they would agree with wrong key counts.
 * @example
 * compileSegments(query, 'a', postgresDialect, parameters, { bits: 12 });
 */
export function compileSegments(query: MergeQuery, which: 'a' | 'b', dialect: Dialect, parameters: BoundParameters, level: SegmentLevel): string {
  const { sql, keys } = hashedKeys(query, which, dialect, parameters, { within: level.within, perRow: level.ungrouped?.includes(which), numbered: level.notes?.[which] && { notes: level.notes[which] } });
  const partition = partitionAlias(query, keys);
  // Amount fingerprints, all below 2^31 in magnitude, so a segment's sums stay exact in a double:
  // the amount weighted by the key's hash, and the amount itself, each modulo a prime.
  const weighted = `((c % ${PRIME}) * (h % ${PRIME})) % ${PRIME}`;
  const plain = `c % ${OTHER_PRIME}`;
  const sums = [`${dialect.wholeSum('h')} AS key_sum`, `${dialect.wholeSum('h2')} AS other_key_sum`, `${dialect.wholeSum(weighted)} AS weighted_sum`, `${dialect.wholeSum(plain)} AS amount_sum`];
  return `SELECT ${partition} AS p, ${segmentOf('h', level.bits)} AS s, COUNT(*) AS n, ${sums.join(', ')}, SUM(v) AS total FROM (${sql}) AS hashed GROUP BY 1, 2`;
}

/**
 * One side's per-key rows in the segments `within` lists, keys as text in byte order, then the
 * value: the rows the service merges itself, as the row merge reads them (compileSideTotals);
 * with `pick`, only some of them, each followed by its whole units and hash halves (c, h, h2).
 * @example
 * compileSegmentRows(query, 'b', duckdbDialect, parameters, { bits: 13, partitions: ['EUR', 'USD'], ids: [8_194, 40_961] });
 */
export function compileSegmentRows(query: MergeQuery, which: 'a' | 'b', dialect: Dialect, parameters: BoundParameters, within: SegmentList, pick?: RowPick, numbered?: NumberedRows): string {
  const { sql, keys } = hashedKeys(query, which, dialect, parameters, { within, numbered });
  const order = keys.map((key) => dialect.binaryAscending(key)).join(', ');
  if (!pick) return `SELECT ${[...keys, 'v'].join(', ')} FROM (${sql}) AS hashed${order ? ` ORDER BY ${order}` : ''}`;
  // Picked keys bring their whole units and hash halves, to be checked against their segment's sums.
  const columns = [...keys, 'v', 'c', 'h', 'h2'];
  const segment = segmentOf('h', within.bits);
  const partition = partitionAlias(query, keys);
  // Whether a segment holds a guessed hash: one window over the rows read, no second scan.
  const found = pick.unlessFound.length ? `, MAX(CASE WHEN h IN (${pick.hashes.join(', ')}) THEN 1 ELSE 0 END) OVER (PARTITION BY ${partition === 'NULL' ? '' : `${partition}, `}${segment}) AS found` : '';
  // A segment's id as `within` numbers it: its number scaled, plus its partition's index (bound
  // afresh for each use, markers being filled in text order).
  const idOf = () => `${segment} * ${within.partitions.length}${partition === 'NULL' ? '' : ` + ${partitionIndex(partition, within.partitions, dialect, parameters)}`}`;
  const candidates = `SELECT ${columns.join(', ')}${found} FROM (${sql}) AS hashed`;
  const picked = [
    pick.hashes.length ? `h IN (${pick.hashes.join(', ')})` : '',
    pick.segments.length ? `${idOf()} IN (${pick.segments.join(', ')})` : '',
    pick.unlessFound.length ? `(found = 0 AND ${idOf()} IN (${pick.unlessFound.join(', ')}))` : '',
  ].filter(Boolean);
  return `SELECT ${columns.join(', ')} FROM (${candidates}) AS candidates WHERE ${picked.join(' OR ') || '1 = 0'}${order ? ` ORDER BY ${order}` : ''}`;
}

/**
 * One side's per-key rows of the keys listed by their texts (in merge order), each followed by its
 * whole units and hash halves (c, h, h2), in key order: what compileSegmentRows' picked rows give,
 * found through the side's indexes instead of by hashing every row. PostgreSQL only (text arrays).
 * @example
 * compileKeyRows(query, 'a', postgresDialect, parameters, [['EUR', '0400015593', '2']]);
 */
export function compileKeyRows(query: MergeQuery, which: 'a' | 'b', dialect: Dialect, parameters: BoundParameters, keys: readonly (readonly string[])[]): string {
  if (dialect.name !== 'postgres') throw new Error(`keys are looked up by their texts on PostgreSQL only, not ${dialect.name}`);
  const { sql, keys: aliases } = hashedKeys(query, which, dialect, parameters, { listed: keys });
  const order = aliases.map((key) => dialect.binaryAscending(key)).join(', ');
  return `SELECT ${[...aliases, 'v', 'c', 'h', 'h2'].join(', ')} FROM (${sql}) AS hashed${order ? ` ORDER BY ${order}` : ''}`;
}

/**
 * Of the keys of the listed segments, those to read: keys whose low hash is listed (in whichever
 * segment: the service keeps those it asked for), every key of the `segments` listed, and every
 * key of the `unlessFound` ones that hold none of the hashes; segments numbered as in SegmentList.
 */
export interface RowPick {
  hashes: readonly number[];
  segments: readonly number[];
  unlessFound: readonly number[];
}

/** The alias of the partition key among the per-key columns (it comes first), or NULL. */
function partitionAlias(query: MergeQuery, keys: string[]): string {
  const { constants } = mergeKeyOrder(query);
  return query.partitionKey !== undefined && !constants.has(query.partitionKey) ? keys[0]! : 'NULL';
}
