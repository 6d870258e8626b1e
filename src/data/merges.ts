/**
 * The ways a merge runs when the engine has none of its own, each measured as the fastest for
 * its case (see docs/operations.md's benchmark): few keys merged in the worker; a key per row as two
 * sessions side by side (PostgreSQL) or one materialised statement (DuckDB); sides on two
 * engines as two sorted streams merged in one pass (mergeSorted, also the last step of checksum
 * bisection, bisection.ts).
 */
import { BoundParameters, compileMerge, compileSideTotals, mergeKeyOrder } from './compile.ts';
import { fullKey, text, type Engine, type MergeTotals } from './engines/engine.ts';
import type { MergeQuery } from './query.ts';
import type { Folding } from './reducer.ts';

/** Keys a few-keys merge reads whole; more are streamed (company × period × currency is hundreds). */
const FEW_KEYS = 100_000;
const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/**
 * A merge of two sides on one engine without a merge of its own.
 * @example
 * const totals = await mergeOnEngine(duckdb, query, folding);
 */
export async function mergeOnEngine(engine: Engine, query: MergeQuery, folding: Folding): Promise<MergeTotals> {
  // Few keys (pre-aggregated sides): the engine computes them once and they all come here.
  if (query.preAggregate) return mergeFewKeys(engine, query, folding);
  // About a key per row: two sessions side by side beat materialising a million keys.
  if (engine.sibling) return mergeSideBySide(engine, await engine.sibling(), query, folding);
  return mergeInOneStatement(engine, query, folding);
}

/**
 * The merge in one statement of portable SQL: the aligned per-key totals are computed once
 * (a materialised CTE); the statement returns the per-partition totals and, in key order, the
 * keys whose sides differ at `decimals`. Everything else stays in the engine.
 */
async function mergeInOneStatement(engine: Engine, query: MergeQuery, folding: Folding): Promise<MergeTotals> {
  const dialect = engine.dialect;
  const parameters = new BoundParameters(dialect);
  const merge = compileMerge(query, dialect, parameters);
  const a = dialect.round('raw_a', query.decimals);
  const b = dialect.round('raw_b', query.decimals);
  // Keys keep their own types (NULL takes the other branch's type), so they sort as in SQLite.
  const keyColumns = merge.groupedKeys;
  const nullKeys = merge.groupedKeys.map(() => 'NULL');
  const partition = merge.partitionKey ?? 'NULL';
  const sql = [
    `WITH aligned AS ${dialect.materialized}(${merge.aligned})`,
    `SELECT 0 AS part, ${partition} AS partition_value, ${[...nullKeys, 'COUNT(*)', 'SUM(raw_a)', 'SUM(raw_b)'].join(', ')} FROM aligned${merge.partitionKey ? ` GROUP BY ${merge.partitionKey}` : ''}`,
    // Exactly equal sums (most keys) skip the rounding, which is costly on numerics.
    `UNION ALL SELECT 1, NULL, ${[...keyColumns, 'NULL', a, b].join(', ')} FROM aligned WHERE ${dialect.distinct('raw_a', 'raw_b')} AND ${dialect.distinct(a, b)}`,
    // Differing keys in merge order (partition key first), as the SQLite engine feeds them.
    `ORDER BY 1${merge.orderedKeys.map((key) => `, ${dialect.ascending(String(3 + merge.groupedKeys.indexOf(key)))}`).join('')}`,
  ].join(' ');
  const partitions: MergeTotals['partitions'] = [];
  const count = merge.groupedKeys.length;
  for await (const chunk of engine.chunks(sql, parameters.values)) {
    for (const row of chunk) {
      if (Number(row[0]) === 0) {
        if (Number(row[2 + count]) === 0) continue;
        partitions.push({ partition: merge.constantPartition ?? text(row[1]), keys: Number(row[2 + count]), a: Number(row[3 + count] ?? 0), b: Number(row[4 + count] ?? 0) });
      } else {
        folding.step({ a: numberOrNull(row[3 + count]), b: numberOrNull(row[4 + count]), key: fullKey(row.slice(2, 2 + count), merge.constants, query.keyNames.length) });
      }
    }
  }
  return { sql, partitions };
}

/**
 * The merge when keys are few (company × period): one statement computes every key's sides and
 * they are all read here, where the per-partition totals are summed and the differing keys fed
 * to the reducer. No second pass in the engine.
 */
async function mergeFewKeys(engine: Engine, query: MergeQuery, folding: Folding): Promise<MergeTotals> {
  const dialect = engine.dialect;
  const parameters = new BoundParameters(dialect);
  const merge = compileMerge(query, dialect, parameters);
  const sql = `SELECT ${[...merge.groupedKeys, 'raw_a', 'raw_b'].join(', ')} FROM (${merge.aligned}) AS aligned${merge.orderedKeys.length ? ` ORDER BY ${merge.orderedKeys.map((key) => dialect.ascending(key)).join(', ')}` : ''}`;
  const count = merge.groupedKeys.length;
  const partitionAt = merge.partitionKey ? merge.groupedKeys.indexOf(merge.partitionKey) : -1;
  const keys = new MergedKeys(folding, query.decimals, (row) => fullKey(row.slice(0, count), merge.constants, query.keyNames.length));
  const add = (row: unknown[]) => {
    const partition = merge.constantPartition ?? (partitionAt === -1 ? null : text(row[partitionAt]));
    keys.add(partition, numberOrNull(row[count]), numberOrNull(row[count + 1]), row);
  };
  // Read whole, not through a cursor: PostgreSQL plans a statement read through a cursor without
  // parallel workers (measured 1.6-1.75x slower from 1 M rows). Whole only up to a bound: keys
  // the catalog calls few (its default cardinality) may be one per row, then they are streamed.
  const whole = await engine.all(`${sql} LIMIT ${FEW_KEYS + 1}`, parameters.values);
  if (whole.length <= FEW_KEYS) whole.forEach(add);
  else for await (const chunk of engine.chunks(sql, parameters.values)) chunk.forEach(add);
  return { sql, partitions: keys.partitions() };
}

/**
 * Per-key rows of a merge finished in the worker: per-partition totals of every key, and the keys
 * whose sides differ once rounded fed to the reducer (their key built only then).
 */
export class MergedKeys {
  private readonly totals = new Map<string | null, MergeTotals['partitions'][number]>();
  private readonly round: (value: number) => number;
  private readonly snap: (value: number) => number;

  constructor(
    private readonly folding: Folding,
    decimals: number,
    /** The key of a row in keyNames order, built only for the keys that differ. */
    private readonly keyOf: (row: readonly unknown[]) => (string | null)[],
  ) {
    this.round = rounding(decimals);
    const scale = 10 ** (decimals + 6);
    // Beyond 2^53 a double holds no fraction to snap.
    this.snap = (value) => (Math.abs(value * scale) < 2 ** 53 ? Math.round(value * scale) / scale : value);
  }

  /** A merged key; `counted`: its values are in the partition totals already (with its segment's, bisection.ts). */
  add(partition: string | null, rawA: number | null, rawB: number | null, row: readonly unknown[], counted = false): void {
    const totals = this.totalsOf(partition);
    totals.keys += 1;
    if (!counted) {
      totals.a += rawA ?? 0;
      totals.b += rawB ?? 0;
    }
    const a = rawA === null ? null : this.round(rawA);
    const b = rawB === null ? null : this.round(rawB);
    if (a !== b) this.folding.step({ a, b, key: this.keyOf(row) });
  }

  /** Keys known to agree on both sides without reading them (a segment whose checksums match). */
  agree(partition: string | null, keys: number, rawA: number, rawB: number): void {
    const totals = this.totalsOf(partition);
    totals.keys += keys;
    totals.a += rawA;
    totals.b += rawB;
  }

  private totalsOf(partition: string | null): MergeTotals['partitions'][number] {
    let totals = this.totals.get(partition);
    if (!totals) this.totals.set(partition, (totals = { partition, keys: 0, a: 0, b: 0 }));
    return totals;
  }

  /**
   * The totals, each snapped to 10^-(decimals + 6): sums of doubles come out a few ulps apart when
   * added in another order (a segment's total summed by its engine, bisection.ts, or key by key
   * here), and a total on half a cent would round to either cent; snapped, orders whose rounding
   * errors stay below half a step (cents: up to about 2,000 amounts of thousands) give one double.
   */
  partitions(): MergeTotals['partitions'] {
    return [...this.totals.values()].map((totals) => ({ ...totals, a: this.snap(totals.a), b: this.snap(totals.b) }));
  }
}

/** Rounding to `decimals` places as the engines round (half away from zero). */
function rounding(decimals: number): (value: number) => number {
  const scale = 10 ** decimals;
  return (value) => Math.round((value + Math.sign(value) * Number.EPSILON) * scale) / scale;
}

/**
 * The merge as two statements run at once on two sessions of a server (PostgreSQL): one
 * computes the per-partition totals, the other streams the differing keys in key order. Each
 * aggregates the sides per key; on two cores they take about the time of one.
 */
async function mergeSideBySide(engine: Engine, sibling: Engine, query: MergeQuery, folding: Folding): Promise<MergeTotals> {
  const dialect = engine.dialect;
  // Both statements read the same aligned per-key totals, with the same parameters.
  const parameters = new BoundParameters(dialect);
  const merge = compileMerge(query, dialect, parameters);
  const a = dialect.round('raw_a', query.decimals);
  const b = dialect.round('raw_b', query.decimals);
  const totalsSql = `SELECT ${merge.partitionKey ?? 'NULL'}, COUNT(*), SUM(raw_a), SUM(raw_b) FROM (${merge.aligned}) AS aligned${merge.partitionKey ? ` GROUP BY ${merge.partitionKey}` : ''}`;
  const differingSql = `SELECT ${[...merge.groupedKeys, a, b].join(', ')} FROM (${merge.aligned}) AS aligned WHERE ${dialect.distinct('raw_a', 'raw_b')} AND ${dialect.distinct(a, b)}${merge.orderedKeys.length ? ` ORDER BY ${merge.orderedKeys.map((key) => dialect.ascending(key)).join(', ')}` : ''}`;
  const count = merge.groupedKeys.length;
  const streamed = (async () => {
    for await (const chunk of engine.chunks(differingSql, parameters.values)) {
      for (const row of chunk) folding.step({ a: numberOrNull(row[count]), b: numberOrNull(row[count + 1]), key: fullKey(row.slice(0, count), merge.constants, query.keyNames.length) });
    }
  })();
  const totalled = sibling.all(totalsSql, parameters.values);
  // Answer only once both statements ended: when one fails (or is cancelled), stop the other first.
  const outcomes = await Promise.allSettled([totalled, streamed.catch((error: unknown) => (sibling.interrupt(), Promise.reject(error)))]);
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) {
    engine.interrupt();
    await Promise.allSettled([totalled, streamed]);
    throw failed.reason;
  }
  const groups = (outcomes[0] as PromiseFulfilledResult<unknown[][]>).value;
  const partitions = groups
    .filter((row) => Number(row[1]) > 0)
    .map((row) => ({ partition: merge.constantPartition ?? text(row[0]), keys: Number(row[1]), a: Number(row[2] ?? 0), b: Number(row[3] ?? 0) }));
  return { sql: `${totalsSql}\n${differingSql}`, partitions };
}

/**
 * Sides on different engines: each engine streams its per-key totals in byte order of the text
 * keys; the two streams are merged here like sorted files, holding one chunk of each at a time.
 */
export async function mergeAcrossEngines(engineA: Engine, engineB: Engine, query: MergeQuery, folding: Folding): Promise<MergeTotals> {
  const side = (engine: Engine, which: 'a' | 'b') => {
    const parameters = new BoundParameters(engine.dialect);
    const sql = compileSideTotals(query, which, engine.dialect, parameters);
    return { sql, rows: new ChunkCursor(engine.chunks(sql, parameters.values)) };
  };
  const a = side(engineA, 'a');
  const b = side(engineB, 'b');
  const keys = mergedKeysOf(query, folding);
  const rows = await mergeSorted(a.rows, b.rows, query, keys, () => (engineA.interrupt(), engineB.interrupt()));
  return { sql: `${a.sql}\n${b.sql}`, partitions: keys.partitions(), method: { name: 'row_merge', passes: 1, segments: 0, rows } };
}

/**
 * The per-key rows of a merge across engines, keys in merge order, fed to the reducer in keyNames order.
 * @example
 * const keys = mergedKeysOf(query, folding); keys.add('EUR', 10, 12, ['EUR', 'D1']); keys.partitions();
 */
export function mergedKeysOf(query: MergeQuery, folding: Folding): MergedKeys {
  const { ordered, constants } = mergeKeyOrder(query);
  // Keys come in `ordered` order; the reducer gets them in keyNames order, constants put back.
  const positions = query.keyNames.map((_, index) => ordered.indexOf(index));
  const keyNamesOrder = (values: readonly unknown[]) => positions.map((position, index) => (constants.has(index) ? constants.get(index)! : text(values[position])));
  return new MergedKeys(folding, query.decimals, keyNamesOrder);
}

/**
 * Merges two streams of per-key rows (text keys in merge order, then the value), each sorted in
 * byte order of its keys, into `keys`; returns the rows read. When either stream fails, `stop`
 * interrupts the engines and both streams are closed before the error is raised (an abandoned
 * cursor would keep its connection busy).
 * @example
 * const read = await mergeSorted(new ChunkCursor(a.chunks(sqlA, [])), new ChunkCursor(b.chunks(sqlB, [])), query, mergedKeysOf(query, folding), () => { a.interrupt(); b.interrupt(); });
 */
export async function mergeSorted(a: ChunkCursor, b: ChunkCursor, query: MergeQuery, keys: MergedKeys, stop: () => void, counted?: (row: readonly unknown[]) => boolean): Promise<number> {
  const { ordered, constants, constantPartition } = mergeKeyOrder(query);
  const partitionAt = query.partitionKey === undefined || constants.has(query.partitionKey) ? undefined : 0;
  const count = ordered.length;
  let read = 0;
  try {
    // Both statements start at once: each engine works while the other does.
    await Promise.all([a.fill(), b.fill()]);
    for (;;) {
      const rowA = a.row;
      const rowB = b.row;
      if (!rowA && !rowB) break;
      const order = !rowA ? 1 : !rowB ? -1 : compareKeys(rowA, rowB, count);
      const inA = order <= 0 ? rowA : undefined;
      const inB = order >= 0 ? rowB : undefined;
      const keyRow = (inA ?? inB)!;
      const partition = constantPartition ?? (partitionAt === undefined ? null : text(keyRow[partitionAt]));
      keys.add(partition, inA ? Number(inA[count] ?? 0) : null, inB ? Number(inB[count] ?? 0) : null, keyRow, counted?.(keyRow));
      // Awaits only when a chunk is used up: the merge itself runs without a promise per row.
      if (inA) {
        read += 1;
        if (!a.next()) await a.fill();
      }
      if (inB) {
        read += 1;
        if (!b.next()) await b.fill();
      }
    }
    return read;
  } catch (error) {
    stop();
    await Promise.allSettled([a.close(), b.close()]);
    throw error;
  }
}

/** The current row of a stream of chunks; moving within a chunk needs no promise. */
export class ChunkCursor {
  private readonly chunks: AsyncIterator<unknown[][]>;
  private chunk: unknown[][] = [];
  private index = 0;
  private done = false;

  constructor(chunks: AsyncIterable<unknown[][]>) {
    this.chunks = chunks[Symbol.asyncIterator]();
  }

  get row(): unknown[] | undefined {
    return this.index < this.chunk.length ? this.chunk[this.index] : undefined;
  }

  /** Moves to the next row of the chunk; false when the chunk is used up (then call fill). */
  next(): boolean {
    this.index += 1;
    return this.index < this.chunk.length;
  }

  /** Ends the stream early (its statement's cursor is closed). */
  async close(): Promise<void> {
    this.done = true;
    await this.chunks.return?.();
  }

  /** Reads chunks until there is a row or the stream ended. */
  async fill(): Promise<void> {
    while (!this.done && this.index >= this.chunk.length) {
      const next = await this.chunks.next();
      if (next.done) this.done = true;
      else {
        this.chunk = next.value;
        this.index = 0;
      }
    }
  }
}

/**
 * Orders two text keys as the engines sorted them: NULL first, then by code point (byte order
 * of UTF-8; JavaScript's comparison agrees except between astral characters and U+E000–U+FFFF).
 */
function compareKeys(x: readonly unknown[], y: readonly unknown[], count: number): number {
  for (let index = 0; index < count; index += 1) {
    const left = x[index] ?? null;
    const right = y[index] ?? null;
    if (left === right) continue;
    if (left === null) return -1;
    if (right === null) return 1;
    const l = typeof left === 'string' ? left : String(left);
    const r = typeof right === 'string' ? right : String(right);
    if (l === r) continue;
    return l < r ? -1 : 1;
  }
  return 0;
}

