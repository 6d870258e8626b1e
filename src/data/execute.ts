/**
 * Runs query descriptions on the connections they name: compiles them for the engine's
 * dialect, reads rows back into plain values, and runs the skills' reducers next to the data.
 * A merge whose sides share a connection runs in that engine's SQL; sides on different engines
 * are each reduced to per-key totals by their own engine and merged here, streaming, in one pass.
 */
import { BoundParameters, compileMerge, compileSelect, compileSideTotals, mergeKeyOrder } from './compile.ts';
import { DEFAULT_CONNECTION, type Connections } from './connections.ts';
import type { Engine, MergeTotals } from './engines/engine.ts';
import { fullKey } from './engines/sqlite.ts';
import type { FoldQuery, FoldResult, MergeQuery, MergeResult, Query, ResultOf, Row, SelectQuery, SelectResult, Value } from './query.ts';
import { Folding, loadReducer } from './reducer.ts';

/**
 * Runs a query description.
 * @example
 * const { rows } = await runQuery(connections, { kind: 'select', table: 'fi_reporting', aggregates: [{ name: 'n', function: 'count' }] });
 */
export async function runQuery<Q extends Query>(connections: Connections, query: Q): Promise<ResultOf<Q>> {
  if (query.kind === 'merge') return (await runMerge(connections, query)) as ResultOf<Q>;
  if (query.kind === 'fold') return (await runFold(connections, query)) as ResultOf<Q>;
  return (await runSelect(connections, query)) as ResultOf<Q>;
}

async function runSelect(connections: Connections, query: SelectQuery): Promise<SelectResult> {
  const engine = await connections.engine(query.connection ?? DEFAULT_CONNECTION);
  const compiled = compileSelect(query, engine.dialect);
  const raw = await engine.all(compiled.sql, compiled.params);
  const result: SelectResult = { sql: compiled.sql, rows: raw.map((values) => rowOf(values, compiled.names, compiled.readers)) };
  if (compiled.counted) result.total = raw.length ? Number(raw[0]![compiled.names.length]) : 0;
  return result;
}

async function runFold(connections: Connections, query: FoldQuery): Promise<FoldResult> {
  const folding = new Folding(await loadReducer(query.fold), query.fold.options);
  const engine = await connections.engine(query.select.connection ?? DEFAULT_CONNECTION);
  const compiled = compileSelect(query.select, engine.dialect);
  let rows = 0;
  for await (const chunk of engine.chunks(compiled.sql, compiled.params)) {
    for (const values of chunk) folding.step(rowOf(values, compiled.names, compiled.readers));
    rows += chunk.length;
  }
  return { sql: compiled.sql, rows, folded: folding.finish() };
}

async function runMerge(connections: Connections, query: MergeQuery): Promise<MergeResult> {
  if (!Number.isInteger(query.decimals) || query.decimals < 0 || query.decimals > 10) throw new Error(`decimals must be an integer from 0 to 10 (got ${query.decimals})`);
  const folding = new Folding(await loadReducer(query.fold), query.fold.options);
  const connectionA = query.a.connection ?? DEFAULT_CONNECTION;
  const connectionB = query.b.connection ?? DEFAULT_CONNECTION;
  let totals: MergeTotals;
  if (connectionA === connectionB) {
    const engine = await connections.engine(connectionA);
    totals = engine.merge ? await engine.merge(query, folding) : await portableMerge(engine, query, folding);
  } else {
    totals = await mergeAcrossEngines(await connections.engine(connectionA), await connections.engine(connectionB), query, folding);
  }
  const partitions = [...totals.partitions].sort((x, y) => String(x.partition).localeCompare(String(y.partition)));
  return { sql: totals.sql, partitions, folded: folding.finish() };
}

/**
 * The merge in one statement of portable SQL: the aligned per-key totals are computed once
 * (a materialised CTE); the statement returns the per-partition totals and, in key order, the
 * keys whose sides differ at `decimals`. Everything else stays in the engine.
 */
async function portableMerge(engine: Engine, query: MergeQuery, folding: Folding): Promise<MergeTotals> {
  // Few keys (pre-aggregated sides): the engine computes them once and they all come here.
  if (query.preAggregate) return mergeFewKeys(engine, query, folding);
  // About a key per row: two sessions side by side beat materialising a million keys.
  if (engine.sibling) return mergeSideBySide(engine, await engine.sibling(), query, folding);
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
        const constant = query.partitionKey === undefined ? undefined : merge.constants.get(query.partitionKey);
        partitions.push({ partition: constant ?? text(row[1]), keys: Number(row[2 + count]), a: Number(row[3 + count] ?? 0), b: Number(row[4 + count] ?? 0) });
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
  const constant = query.partitionKey === undefined ? undefined : merge.constants.get(query.partitionKey);
  const partitions = new Map<string | null, MergeTotals['partitions'][number]>();
  const round = rounding(query.decimals);
  for await (const chunk of engine.chunks(sql, parameters.values)) {
    for (const row of chunk) {
      const rawA = numberOrNull(row[count]);
      const rawB = numberOrNull(row[count + 1]);
      const partition = constant ?? (partitionAt === -1 ? null : text(row[partitionAt]));
      let totals = partitions.get(partition);
      if (!totals) partitions.set(partition, (totals = { partition, keys: 0, a: 0, b: 0 }));
      totals.keys += 1;
      totals.a += rawA ?? 0;
      totals.b += rawB ?? 0;
      const a = rawA === null ? null : round(rawA);
      const b = rawB === null ? null : round(rawB);
      if (a !== b) folding.step({ a, b, key: fullKey(row.slice(0, count), merge.constants, query.keyNames.length) });
    }
  }
  return { sql, partitions: [...partitions.values()] };
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
  const compiled = () => {
    const parameters = new BoundParameters(dialect);
    return { merge: compileMerge(query, dialect, parameters), params: parameters.values };
  };
  const totals = compiled();
  const differing = compiled();
  const { merge } = differing;
  const a = dialect.round('raw_a', query.decimals);
  const b = dialect.round('raw_b', query.decimals);
  const totalsSql = `SELECT ${totals.merge.partitionKey ?? 'NULL'}, COUNT(*), SUM(raw_a), SUM(raw_b) FROM (${totals.merge.aligned}) AS aligned${totals.merge.partitionKey ? ` GROUP BY ${totals.merge.partitionKey}` : ''}`;
  const differingSql = `SELECT ${[...merge.groupedKeys, a, b].join(', ')} FROM (${merge.aligned}) AS aligned WHERE ${dialect.distinct('raw_a', 'raw_b')} AND ${dialect.distinct(a, b)}${merge.orderedKeys.length ? ` ORDER BY ${merge.orderedKeys.map((key) => dialect.ascending(key)).join(', ')}` : ''}`;
  const count = merge.groupedKeys.length;
  const streamed = (async () => {
    for await (const chunk of engine.chunks(differingSql, differing.params)) {
      for (const row of chunk) folding.step({ a: numberOrNull(row[count]), b: numberOrNull(row[count + 1]), key: fullKey(row.slice(0, count), merge.constants, query.keyNames.length) });
    }
  })();
  const totalled = sibling.all(totalsSql, totals.params);
  // Answer only once both statements ended: when one fails (or is cancelled), stop the other first.
  const outcomes = await Promise.allSettled([totalled, streamed.catch((error: unknown) => (sibling.interrupt(), Promise.reject(error)))]);
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) {
    engine.interrupt();
    await Promise.allSettled([totalled, streamed]);
    throw failed.reason;
  }
  const groups = (outcomes[0] as PromiseFulfilledResult<unknown[][]>).value;
  const constant = query.partitionKey === undefined ? undefined : merge.constants.get(query.partitionKey);
  const partitions = groups
    .filter((row) => Number(row[1]) > 0)
    .map((row) => ({ partition: constant ?? text(row[0]), keys: Number(row[1]), a: Number(row[2] ?? 0), b: Number(row[3] ?? 0) }));
  return { sql: `${totalsSql}\n${differingSql}`, partitions };
}

/**
 * Sides on different engines: each engine streams its per-key totals in byte order of the text
 * keys; the two streams are merged here like sorted files, holding one chunk of each at a time.
 */
async function mergeAcrossEngines(engineA: Engine, engineB: Engine, query: MergeQuery, folding: Folding): Promise<MergeTotals> {
  const side = (engine: Engine, which: 'a' | 'b') => {
    const parameters = new BoundParameters(engine.dialect);
    const sql = compileSideTotals(query, which, engine.dialect, parameters);
    return { sql, rows: new ChunkCursor(engine.chunks(sql, parameters.values)) };
  };
  const a = side(engineA, 'a');
  const b = side(engineB, 'b');
  const { ordered, constants } = mergeKeyOrder(query);
  const partitionAt = query.partitionKey === undefined || constants.has(query.partitionKey) ? undefined : 0;
  const constantPartition = query.partitionKey === undefined ? undefined : constants.get(query.partitionKey);
  const partitions = new Map<string | null, { partition: string | null; keys: number; a: number; b: number }>();
  const round = rounding(query.decimals);
  // Keys come in `ordered` order; the reducer gets them in keyNames order, constants put back.
  const keyNamesOrder = (values: readonly unknown[]) => {
    const key: (string | null)[] = [];
    for (let index = 0; index < query.keyNames.length; index += 1) key.push(constants.has(index) ? constants.get(index)! : text(values[ordered.indexOf(index)]));
    return key;
  };
  const count = ordered.length;
  await Promise.all([a.rows.fill(), b.rows.fill()]);
  for (;;) {
    const rowA = a.rows.row;
    const rowB = b.rows.row;
    if (!rowA && !rowB) break;
    const order = !rowA ? 1 : !rowB ? -1 : compareKeys(rowA, rowB, count);
    const inA = order <= 0 ? rowA : undefined;
    const inB = order >= 0 ? rowB : undefined;
    const keyRow = (inA ?? inB)!;
    const valueA = inA ? Number(inA[count] ?? 0) : null;
    const valueB = inB ? Number(inB[count] ?? 0) : null;
    const partitionValue = constantPartition ?? (partitionAt === undefined ? null : text(keyRow[partitionAt]));
    let totals = partitions.get(partitionValue);
    if (!totals) partitions.set(partitionValue, (totals = { partition: partitionValue, keys: 0, a: 0, b: 0 }));
    totals.keys += 1;
    totals.a += valueA ?? 0;
    totals.b += valueB ?? 0;
    const roundedA = valueA === null ? null : round(valueA);
    const roundedB = valueB === null ? null : round(valueB);
    if (roundedA !== roundedB) folding.step({ a: roundedA, b: roundedB, key: keyNamesOrder(keyRow.slice(0, count)) });
    // Awaits only when a chunk is used up: the merge itself runs without a promise per row.
    if (inA && !a.rows.next()) await a.rows.fill();
    if (inB && !b.rows.next()) await b.rows.fill();
  }
  return { sql: `${a.sql}\n${b.sql}`, partitions: [...partitions.values()] };
}

/** The current row of a stream of chunks; moving within a chunk needs no promise. */
class ChunkCursor {
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

function rowOf(values: unknown[], names: string[], readers: Map<string, 'values' | 'boolean'>): Row {
  const row: Row = {};
  names.forEach((name, index) => {
    const value = values[index];
    const reader = readers.get(name);
    if (reader === 'values') row[name] = textList(value);
    else if (reader === 'boolean') row[name] = Number(value) === 1;
    else row[name] = value === undefined ? null : (value as Value);
  });
  return row;
}

const text = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));
const numberOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** Sorted distinct values of a JSON array (text, or already parsed by the driver), as text, NULL last. */
function textList(json: unknown): (string | null)[] {
  const parsed = typeof json === 'string' ? (JSON.parse(json) as unknown[]) : Array.isArray(json) ? json : [];
  const values = parsed.map(text);
  return [...new Set(values)].sort((x, y) => (x === null ? 1 : y === null ? -1 : x < y ? -1 : x > y ? 1 : 0));
}
