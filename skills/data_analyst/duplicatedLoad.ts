/**
 * Duplicated loads for explain_difference. When both sides carry load requests (e.g. two
 * layers of the same FI data), a gap that comes from records loaded twice on one side, under
 * two load requests, and once on the other is not a business difference at all. It is found
 * per side with the data layer's duplicate search, using only what the catalog declares: the
 * load dimension and the dimensions that identify a record. No source name is assumed.
 */
import { resolveFilters, roundAmount, scanDuplicates, toWhere, type Dimension, type DuplicatePattern, type Filter, type Source, type ToolContext } from '../../src/skills/api.ts';
// The duplicate scan is data_quality's algorithm; a duplicated load is one reading of its patterns.
import type { CompareArguments } from './compareSources.ts';

/** Keys checked on the other side, examples listed, and the least share of the gap worth reporting. */
const KEYS_CHECKED = 20;
const EXAMPLES = 5;
const MIN_EXPLAINS_PERCENT = 5;
const MAX_LOAD_VALUES = 500;

/** Words by which a catalog marks the technical dimension that says which load brought a row in. */
const LOAD_WORDS = /\b(?:load|upload)[ _-]?(?:requests?|ids?)\b|\brequest[ _-]?ids?\b|\bdata[ _-]?packages?\b/i;

export interface DuplicatedLoad {
  /** The source holding the extra copies, its side, and the other source. */
  source: string;
  side: 'a' | 'b';
  other_source: string;
  /** The load dimension, the loads that brought the copies in, and the loads of the originals. */
  dimension: string;
  load_requests: (string | null)[];
  original_load_requests: (string | null)[];
  /** Records loaded more than once (e.g. document lines), and how often each occurs. */
  lines: number;
  copies: number;
  /** Distinct values of the first key dimension among them, e.g. 3 documents. */
  document_dimension?: string;
  documents?: number;
  /** What the extra copies add to `source`'s measure (its sign). */
  amount: number;
  /** Their contribution to the gap (a − b), in percent of the gap. */
  explains_percent: number;
  /** Whether the other source holds each of the (first KEYS_CHECKED) duplicated records exactly once. */
  once_in_other_source?: boolean;
  /** The largest duplicated records: their key, the amount of one copy and the copies. */
  examples: Record<string, string | number | null>[];
}

/**
 * The catalog's load dimension of a source: its name, description or synonyms say load request
 * (request id, data package).
 *
 * @example
 * loadDimension(fiReporting)?.name // 'load_request'
 */
export function loadDimension(source: Source): Dimension | undefined {
  return [...source.dimensions.values()].find((d) => [d.name, d.description, ...d.synonyms].some((text) => LOAD_WORDS.test(text)));
}

/**
 * What identifies one record on both sides: the near-unique dimensions (cardinality high, e.g.
 * document) and their sub-keys named after them (document_line); without any, every shared
 * dimension but the excluded ones.
 *
 * @example
 * recordKey(fiAcquisition, fiReporting, new Set(['load_request', 'currency'])) // ['document', 'document_line']
 */
export function recordKey(a: Source, b: Source, exclude: ReadonlySet<string>): string[] {
  const shared = [...a.dimensions.values()].filter((d) => b.dimensions.has(d.name) && !exclude.has(d.name));
  const unique = shared.filter((d) => d.cardinality === 'high' && b.dimensions.get(d.name)!.cardinality === 'high');
  if (unique.length === 0) return shared.map((d) => d.name);
  const subKeys = shared.filter((d) => !unique.includes(d) && unique.some((u) => d.name.startsWith(`${u.name}_`)));
  return [...unique, ...subKeys].map((d) => d.name);
}

interface Side {
  which: 'a' | 'b';
  source: Source;
  load: Dimension;
  where: Filter[];
  /** Clean duplicate patterns (copies identical in every compared dimension and the amount). */
  patterns: DuplicatePattern[];
  /** What the extra copies add, in the gap's currency. */
  duplicated: number;
  top: { key: Record<string, string | null>; amount: number | null; copies: number }[];
}

/**
 * The duplicated load behind a gap, when both sides carry load requests and the extra copies
 * account for at least MIN_EXPLAINS_PERCENT of it (in the gap's direction).
 *
 * @example
 * await findDuplicatedLoad(scoped, { difference: -110000, currency: 'EUR' }, fiAcquisition, fiReporting, undefined, context)
 * // { source: 'fi_reporting', load_requests: ['REQ_2024012_1000_02'], lines: 4, documents: 3, amount: 110000, explains_percent: 100, … }
 */
export async function findDuplicatedLoad(scoped: CompareArguments, gap: { difference: number; currency: string | null }, a: Source, b: Source, only: readonly string[] | undefined, context: ToolContext): Promise<DuplicatedLoad | undefined> {
  const loadA = loadDimension(a);
  const loadB = loadDimension(b);
  // With loads on one side only, the one-sided search finds the load that carries the gap.
  if (!loadA || !loadB || (only && !only.includes(loadA.name) && !only.includes(loadB.name))) return undefined;
  const measures = { a: a.measures.get(typeof scoped.measure === 'string' ? scoped.measure : scoped.measure.a)!, b: b.measures.get(typeof scoped.measure === 'string' ? scoped.measure : scoped.measure.b)! };
  if (![measures.a, measures.b].every((m) => m.aggregation === 'sum' || m.aggregation === 'count')) return undefined;
  const currencies = [measures.a.currencyDimension, measures.b.currencyDimension].filter((name): name is string => name !== undefined);
  const key = recordKey(a, b, new Set([loadA.name, loadB.name, ...currencies]));
  if (key.length === 0) return undefined;

  const read = async (which: 'a' | 'b'): Promise<Side> => {
    const [source, load, measure] = which === 'a' ? [a, loadA, measures.a] : [b, loadB, measures.b];
    const currency = measure.currencyDimension ? source.dimensions.get(measure.currencyDimension) : undefined;
    const where = toWhere(resolveFilters(source, { ...scoped.filters, ...(which === 'a' ? scoped.filters_a : scoped.filters_b) }).conditions);
    if (currency && gap.currency !== null) where.push({ column: currency.column, kind: 'in', values: [gap.currency] });
    const named = (name: string) => ({ name, column: source.dimensions.get(name)!.column });
    const amountColumn = measure.aggregation === 'sum' ? measure.column : undefined;
    const compared = [...source.dimensions.values()].filter((d) => !key.includes(d.name) && d !== load && d !== currency);
    const outcome = await scanDuplicates(
      context.data,
      { table: source.table, connection: source.connection, key: key.map(named), currency: undefined, amountColumn, describe: [named(load.name)], compare: compared.map((d) => named(d.name)), where, top: EXAMPLES, keysPerPattern: KEYS_CHECKED },
      context.signal,
    );
    // Copies that differ in anything but the load are corrections or distinct records, not a repeated load.
    const patterns = outcome.patterns.filter((p) => p.differsIn.length === 0);
    const duplicated = patterns.reduce((sum, p) => sum + (amountColumn ? p.duplicatedAmount : p.records - p.groups), 0);
    const top = outcome.top.filter((g) => g.identicalAmounts && g.differsIn.length === 0).map((g) => ({ key: g.key, amount: g.amount === null ? null : roundAmount(g.amount / g.copies), copies: g.copies }));
    return { which, source, load, where, patterns, duplicated: roundAmount(duplicated), top };
  };
  const sideA = await read('a');
  const sideB = await read('b');
  const contribution = sideA.duplicated - sideB.duplicated;
  const explains = Math.round((contribution / gap.difference) * 1000) / 10;
  if (!(explains >= MIN_EXPLAINS_PERCENT)) return undefined;
  const direction = Math.sign(gap.difference);
  const [holder, other] = direction * sideA.duplicated >= -direction * sideB.duplicated ? [sideA, sideB] : [sideB, sideA];
  if (holder.patterns.length === 0) return undefined;

  const requests = [...new Set(holder.patterns.flatMap((p) => p.values[holder.load.name] ?? []))].sort(byValue);
  const { extra, original } = await splitLoads(requests, other, context);
  const keys = holder.patterns.flatMap((p) => p.keys).slice(0, KEYS_CHECKED);
  const once = await heldOnce(keys, key, other, context);
  const lines = holder.patterns.reduce((sum, p) => sum + p.groups, 0);
  const first = holder.source.dimensions.get(key[0]!)!;
  const allKeysListed = holder.patterns.every((p) => p.keys.length === p.groups);
  const documents = allKeysListed ? new Set(holder.patterns.flatMap((p) => p.keys.map((k) => k[first.name] ?? null))).size : holder.patterns.reduce((sum, p) => sum + p.firstKeyValues, 0);
  return {
    source: holder.source.name,
    side: holder.which,
    other_source: other.source.name,
    dimension: holder.load.name,
    load_requests: extra,
    original_load_requests: original,
    lines,
    copies: Math.max(...holder.patterns.map((p) => p.copies)),
    ...(first.cardinality === 'high' && key.length > 1 ? { document_dimension: first.name, documents } : {}),
    amount: holder.duplicated,
    explains_percent: explains,
    ...(once === undefined ? {} : { once_in_other_source: once }),
    examples: holder.top.map((g) => ({ ...g.key, ...(g.amount === null ? {} : { amount: g.amount }), copies: g.copies })),
  };
}

const byValue = (x: string | null, y: string | null) => (x === null ? 1 : y === null ? -1 : x.localeCompare(y));

/**
 * The loads holding the copies: those the other side does not have. When that does not tell them
 * apart (both or neither have every load), the first load in sort order holds the originals.
 */
async function splitLoads(requests: (string | null)[], other: Side, context: ToolContext): Promise<{ extra: (string | null)[]; original: (string | null)[] }> {
  const result = await context.data.run(
    { kind: 'select', table: other.source.table, connection: other.source.connection, columns: [{ name: 'load', column: other.load.column }], aggregates: [{ name: 'rows', function: 'count' }], where: other.where, limit: MAX_LOAD_VALUES },
    context.signal,
  );
  const present = new Set(result.rows.map((row) => (row.load === null ? null : String(row.load))));
  const extra = requests.filter((r) => !present.has(r));
  const original = requests.filter((r) => present.has(r));
  if (extra.length > 0 && original.length > 0) return { extra, original };
  return { extra: requests.slice(1), original: requests.slice(0, 1) };
}

/** Whether the other side holds each record exactly once (undefined when there is nothing to check). */
async function heldOnce(keys: Record<string, string | null>[], key: string[], other: Side, context: ToolContext): Promise<boolean | undefined> {
  if (keys.length === 0) return undefined;
  const dimensions = key.map((name) => other.source.dimensions.get(name)!);
  const firstValues = [...new Set(keys.map((k) => k[key[0]!] ?? null))];
  const result = await context.data.run(
    {
      kind: 'select',
      table: other.source.table,
      connection: other.source.connection,
      columns: dimensions.map((d) => ({ name: d.name, column: d.column })),
      aggregates: [{ name: 'copies', function: 'count' }],
      where: [...other.where, { column: dimensions[0]!.column, kind: 'in', values: firstValues }],
      limit: MAX_LOAD_VALUES,
    },
    context.signal,
  );
  const text = (record: Record<string, unknown>) => JSON.stringify(key.map((name) => (record[name] === null || record[name] === undefined ? null : String(record[name]))));
  const copies = new Map(result.rows.map((row) => [text(row), Number(row.copies)]));
  return keys.every((k) => copies.get(text(k)) === 1);
}
