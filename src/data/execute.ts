/**
 * Runs query descriptions on the connections they name: compiles them for the engine's
 * dialect, reads rows back into plain values, and runs the skills' reducers next to the data.
 * Merges go to the engine (SQLite's own), to the formulations of merges.ts, or, across engines
 * with many keys, to checksum bisection (bisection.ts).
 */
import { compileSelect, mergeKeyOrder } from './compile.ts';
import { DEFAULT_CONNECTION, type Connections } from './connections.ts';
import { text, type EngineKind, type MergeTotals } from './engines/engine.ts';
import { KeyHashUnavailableError } from '../errors/index.ts';
import { bisect } from './bisection.ts';
import { mergeAcrossEngines, mergeOnEngine } from './merges.ts';
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
  const engineA = await connections.engine(connectionA);
  const engineB = connectionA === connectionB ? engineA : await connections.engine(connectionB);
  const rowMerge = () => (connectionA !== connectionB ? mergeAcrossEngines(engineA, engineB, query, folding) : engineA.merge ? engineA.merge(query, folding) : mergeOnEngine(engineA, query, folding));
  // A server that speaks PostgreSQL's protocol without its hashtextextended fails the first pass (before
  // any key reached the reducer): it is merged row by row instead.
  if (bisects(query, connectionA !== connectionB, [engineA.kind, engineB.kind])) totals = await bisect(engineA, engineB, query, folding).catch((error: unknown) => (KeyHashUnavailableError.isInstance(error) ? rowMerge() : Promise.reject(error)));
  else totals = await rowMerge();
  const partitions = [...totals.partitions].sort((x, y) => String(x.partition).localeCompare(String(y.partition)));
  return { sql: totals.sql, partitions, folded: folding.finish(), ...(totals.method ? { method: totals.method } : {}) };
}

/**
 * The planner: checksum bisection when asked, or for sides on two engines with many keys (the
 * catalog does not call them few) when both engines hash natively or in bulk (PostgreSQL,
 * DuckDB): then moving only the differences pays (docs/operations.md's benchmark: 4.0–5.9× faster
 * than the row merge at 10 M keys with up to 1,000 differing, 2.1–3.7× without a unique index). A SQLite side hashes each key through a JavaScript call,
 * and every further pass reads its table again: the row merge was faster there as soon as a key
 * differed. It needs a key to segment on and amounts whose whole units fit a 64-bit integer.
 */
function bisects(query: MergeQuery, acrossEngines: boolean, kinds: EngineKind[]): boolean {
  const strategy = query.strategy ?? 'auto';
  if (strategy === 'merge' || mergeKeyOrder(query).ordered.length === 0 || query.decimals > 6) return false;
  return strategy === 'bisect' || (acrossEngines && !query.preAggregate && !kinds.includes('sqlite'));
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


/** Sorted distinct values of a JSON array (text, or already parsed by the driver), as text, NULL last. */
function textList(json: unknown): (string | null)[] {
  const parsed = typeof json === 'string' ? (JSON.parse(json) as unknown[]) : Array.isArray(json) ? json : [];
  const values = parsed.map(text);
  return [...new Set(values)].sort((x, y) => (x === null ? 1 : y === null ? -1 : x < y ? -1 : x > y ? 1 : 0));
}
