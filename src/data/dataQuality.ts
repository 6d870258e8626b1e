/**
 * Data-quality operations on one source table: duplicated records, blank (or placeholder)
 * dimension values, and per-period totals for outlier detection. Each runs as a few linear,
 * grouped statements whose results stay bounded whatever the table size; identifiers come
 * only from the catalog (quoted here) and every value is a bound parameter.
 */
import type { DataDatabase } from './database.ts';
import { roundAmount } from './reconciliation.ts';
import { aggregateExpression, quoteIdentifier, whereClause, type MeasureExpression, type SqlValue, type WhereCondition } from './sql.ts';

/** A catalog dimension as the SQL needs it: its logical name and its column. */
export interface NamedColumn {
  name: string;
  column: string;
}

type Value = string | null;

const text = (value: unknown): Value => (value === null || value === undefined ? null : String(value));

/** Sorted distinct values of a json_group_array(DISTINCT …) result, nulls last. */
function valueSet(json: unknown): Value[] {
  const values = (JSON.parse(String(json ?? '[]')) as unknown[]).map(text);
  return [...new Set(values)].sort((x, y) => (x === null ? 1 : y === null ? -1 : x < y ? -1 : x > y ? 1 : 0));
}

// ---------------------------------------------------------------------------------------------
// Duplicated records

export interface DuplicatePlan {
  table: string;
  /** Dimensions that identify one record: rows sharing all of them are copies. */
  key: NamedColumn[];
  /** The currency column of the amount, grouped on too, so amounts of different currencies never add up. */
  currency: NamedColumn | undefined;
  /** Column summed per group (the amount), if the source has one. */
  amountColumn: string | undefined;
  /** Dimensions whose distinct values are listed per group (the ignored ones and the context, e.g. company, period). */
  describe: NamedColumn[];
  /** Every other dimension: reported when copies of a record differ in it. */
  compare: NamedColumn[];
  where: WhereCondition[];
  /** Groups returned, largest duplicated amount first. */
  top: number;
  /** Record keys kept per pattern. */
  keysPerPattern: number;
}

export interface DuplicateGroup {
  key: Record<string, Value>;
  currency: Value;
  copies: number;
  /** Sum over all copies. */
  amount: number | null;
  /** What the extra copies add: amount × (copies − 1) / copies (exact for identical copies). */
  duplicatedAmount: number | null;
  identicalAmounts: boolean;
  /** Distinct values of each described dimension among the copies. */
  values: Record<string, Value[]>;
  /** Compared dimensions in which the copies differ. */
  differsIn: string[];
}

/** Duplicate groups that share currency, number of copies and the values of every described dimension. */
export interface DuplicatePattern {
  currency: Value;
  copies: number;
  values: Record<string, Value[]>;
  groups: number;
  records: number;
  amount: number;
  duplicatedAmount: number;
  /** Keys of the first groups of the pattern, in key order. */
  keys: Record<string, Value>[];
  /** Distinct values of the first key dimension (e.g. documents) among all groups of the pattern. */
  firstKeyValues: number;
  differsIn: string[];
}

export interface DuplicateOutcome {
  sql: string;
  /** Keys that occur more than once. */
  groups: number;
  /** Rows in those groups. */
  records: number;
  /** Rows beyond the first of each group. */
  extraCopies: number;
  totals: { currency: Value; groups: number; records: number; amount: number; duplicatedAmount: number }[];
  /** Largest duplicated amount first; at most MAX_PATTERNS. */
  patterns: DuplicatePattern[];
  /** Patterns found in all (at least this many when `patternsComplete` is false). */
  patternCount: number;
  /** False when so many patterns exist that some groups only count in the totals. */
  patternsComplete: boolean;
  top: DuplicateGroup[];
}

/** Patterns tracked while streaming; beyond this, further groups only count in the totals. */
const MAX_TRACKED_PATTERNS = 500;
const MAX_PATTERNS = 20;

/**
 * The grouping statement (exported for tests and for showing the SQL). Two steps: the keys
 * that occur more than once are found on the key columns alone (an index scan where the
 * key is indexed, as document + line is), then only their rows are read and described.
 * Keys compare with IS, so a NULL key value still matches its copies.
 */
export function buildDuplicateSql(plan: DuplicatePlan): { sql: string; params: SqlValue[] } {
  if (plan.key.length === 0) throw new Error('a duplicate search needs at least one key column');
  const table = quoteIdentifier(plan.table);
  const keys = plan.key.map((c) => quoteIdentifier(c.column));
  const grouped = [...keys, ...(plan.currency ? [quoteIdentifier(plan.currency.column)] : [])];
  const alias = (index: number) => `"__dup_k${index}"`;
  const amount = plan.amountColumn ? quoteIdentifier(plan.amountColumn) : undefined;
  const select = [
    ...grouped.map((column) => `${table}.${column}`),
    'COUNT(*)',
    amount ? `SUM(IFNULL(${amount}, 0))` : 'NULL',
    amount ? `MIN(IFNULL(${amount}, 0)) = MAX(IFNULL(${amount}, 0))` : '1',
    ...plan.describe.map((c) => `json_group_array(DISTINCT ${quoteIdentifier(c.column)})`),
    // Cheap "do the copies differ?": min and max differ, or some copies are NULL and others not.
    ...plan.compare.map((c) => {
      const column = quoteIdentifier(c.column);
      return `(MIN(${column}) IS NOT MAX(${column}) OR COUNT(${column}) NOT IN (0, COUNT(*)))`;
    }),
  ];
  const where = whereClause(plan.where);
  const candidates = `SELECT ${keys.map((column, index) => `${column} AS ${alias(index)}`).join(', ')} FROM ${table}${where.sql ? ` ${where.sql}` : ''} GROUP BY ${keys.join(', ')} HAVING COUNT(*) > 1`;
  const join = keys.map((column, index) => `${table}.${column} IS "__dup".${alias(index)}`).join(' AND ');
  const sql = [
    `WITH "__dup" AS MATERIALIZED (${candidates})`,
    `SELECT ${select.join(', ')}`,
    `FROM ${table} JOIN "__dup" ON ${join}`,
    where.sql,
    `GROUP BY ${grouped.map((column) => `${table}.${column}`).join(', ')}`,
    'HAVING COUNT(*) > 1',
    `ORDER BY ${grouped.map((column) => `${table}.${column}`).join(', ')}`,
  ]
    .filter(Boolean)
    .join(' ');
  return { sql, params: [...where.params, ...where.params] };
}

/**
 * Finds the keys that occur more than once: only duplicated groups leave SQLite,
 * and they are streamed into per-currency totals, patterns and the largest groups, so memory
 * stays bounded even when a badly chosen key makes every group a duplicate.
 */
export function runFindDuplicates(database: DataDatabase, plan: DuplicatePlan): DuplicateOutcome {
  const { sql, params } = buildDuplicateSql(plan);
  const keyCount = plan.key.length;
  const currencyOffset = keyCount;
  const base = keyCount + (plan.currency ? 1 : 0);
  const totals = new Map<string, DuplicateOutcome['totals'][number]>();
  const patterns = new Map<string, DuplicatePattern & { order: number; lastFirstKey: Value | undefined }>();
  let untracked = 0;
  let groups = 0;
  let records = 0;
  const top: DuplicateGroup[] = [];
  for (const row of database.prepare(sql).raw(true).iterate(...params) as Iterable<unknown[]>) {
    const key = Object.fromEntries(plan.key.map((c, index) => [c.name, text(row[index])]));
    const currency = plan.currency ? text(row[currencyOffset]) : null;
    const copies = Number(row[base]);
    const rawAmount = row[base + 1];
    const amount = rawAmount === null || rawAmount === undefined ? null : roundAmount(Number(rawAmount));
    const duplicatedAmount = amount === null ? null : roundAmount((Number(rawAmount) * (copies - 1)) / copies);
    const values = Object.fromEntries(plan.describe.map((c, index) => [c.name, valueSet(row[base + 3 + index])]));
    const differsIn = plan.compare.filter((_, index) => Number(row[base + 3 + plan.describe.length + index]) === 1).map((c) => c.name);
    if (amount !== null && Number(row[base + 2]) !== 1) differsIn.push('(amount)');
    const group: DuplicateGroup = { key, currency, copies, amount, duplicatedAmount, identicalAmounts: Number(row[base + 2]) === 1, values, differsIn };
    groups += 1;
    records += copies;

    const totalKey = String(currency);
    const total = totals.get(totalKey) ?? { currency, groups: 0, records: 0, amount: 0, duplicatedAmount: 0 };
    total.groups += 1;
    total.records += copies;
    total.amount += Number(rawAmount ?? 0);
    total.duplicatedAmount += (Number(rawAmount ?? 0) * (copies - 1)) / copies;
    totals.set(totalKey, total);

    const patternKey = JSON.stringify([currency, copies, values]);
    let pattern = patterns.get(patternKey);
    if (!pattern && patterns.size < MAX_TRACKED_PATTERNS) {
      pattern = { currency, copies, values, groups: 0, records: 0, amount: 0, duplicatedAmount: 0, keys: [], firstKeyValues: 0, differsIn: [], order: patterns.size, lastFirstKey: undefined };
      patterns.set(patternKey, pattern);
    }
    if (pattern) {
      pattern.groups += 1;
      pattern.records += copies;
      pattern.amount += Number(rawAmount ?? 0);
      pattern.duplicatedAmount += (Number(rawAmount ?? 0) * (copies - 1)) / copies;
      if (pattern.keys.length < plan.keysPerPattern) pattern.keys.push(key);
      // Rows arrive in key order, so the groups of one first-key value (a document) are adjacent.
      const firstKey = text(row[0]);
      if (pattern.groups === 1 || firstKey !== pattern.lastFirstKey) pattern.firstKeyValues += 1;
      pattern.lastFirstKey = firstKey;
      for (const name of differsIn) if (!pattern.differsIn.includes(name)) pattern.differsIn.push(name);
    } else {
      untracked += 1;
    }
    keepLargest(top, group, plan.top);
  }
  const ranked = [...patterns.values()].sort((x, y) => Math.abs(y.duplicatedAmount) - Math.abs(x.duplicatedAmount) || y.groups - x.groups || x.order - y.order);
  return {
    sql: sql.replace(/\s+/g, ' '),
    groups,
    records,
    extraCopies: records - groups,
    totals: [...totals.values()]
      .map((t) => ({ ...t, amount: roundAmount(t.amount), duplicatedAmount: roundAmount(t.duplicatedAmount) }))
      .sort((x, y) => String(x.currency).localeCompare(String(y.currency))),
    patterns: ranked.slice(0, MAX_PATTERNS).map(({ order: _order, lastFirstKey: _last, ...p }) => ({ ...p, amount: roundAmount(p.amount), duplicatedAmount: roundAmount(p.duplicatedAmount) })),
    patternCount: ranked.length + (untracked > 0 ? 1 : 0),
    patternsComplete: untracked === 0,
    top,
  };
}

/** Keeps the `limit` groups with the largest duplicated amount (ties: the earlier key first). */
function keepLargest(top: DuplicateGroup[], group: DuplicateGroup, limit: number): void {
  if (limit <= 0) return;
  const size = Math.abs(group.duplicatedAmount ?? group.copies);
  if (top.length >= limit && size <= Math.abs(top[top.length - 1]!.duplicatedAmount ?? top[top.length - 1]!.copies)) return;
  let index = top.findIndex((existing) => Math.abs(existing.duplicatedAmount ?? existing.copies) < size);
  if (index === -1) index = top.length;
  top.splice(index, 0, group);
  if (top.length > limit) top.pop();
}

// ---------------------------------------------------------------------------------------------
// Blank values

export interface BlankValuesPlan {
  table: string;
  /** Dimensions to check; `details: false` counts only (no examples), e.g. for dimensions allowed to be blank. */
  dimensions: (NamedColumn & { details: boolean })[];
  currency: NamedColumn | undefined;
  amountColumn: string | undefined;
  where: WhereCondition[];
  /** Values that mean "not assigned" (e.g. '#'), compared exactly and counted as placeholders. */
  placeholders: string[];
  /** Columns shown for each example record (e.g. document, document_line, company, period). */
  exampleColumns: NamedColumn[];
  examples: number;
  /** Dimensions to break the blank rows down by (e.g. company, period). */
  contextColumns: NamedColumn[];
  contexts: number;
}

export interface BlankDimension {
  dimension: string;
  nullRows: number;
  emptyRows: number;
  placeholderRows: number;
  /** Rows and amount of the blank rows, per currency. */
  amounts: { currency: Value; rows: number; amount: number | null }[];
  examples: Record<string, Value | number>[];
  /** Blank rows by context (largest first), and how many context groups exist in all. */
  where: Record<string, Value | number>[];
  whereGroups: number;
}

export interface BlankValuesOutcome {
  sql: string;
  /** Rows checked, per currency. */
  checked: { currency: Value; rows: number }[];
  dimensions: BlankDimension[];
}

/** SQL condition: the column is NULL, empty or only spaces, or a placeholder value. */
function blankCondition(column: string, placeholders: string[]): { sql: string; params: SqlValue[] } {
  const quoted = quoteIdentifier(column);
  return {
    sql: `(${quoted} IS NULL OR TRIM(${quoted}) = ''${placeholders.length ? ` OR ${quoted} IN (${placeholders.map(() => '?').join(', ')})` : ''})`,
    params: placeholders,
  };
}

/**
 * The counting statement: one pass, one row per currency, three cheap sums per dimension
 * (NULL, empty or spaces, placeholder). Amounts and examples are read afterwards, only for
 * the dimensions that have blanks, so a clean table costs one scan.
 */
export function buildBlankCountSql(plan: BlankValuesPlan): { sql: string; params: SqlValue[] } {
  const params: SqlValue[] = [];
  const counts = plan.dimensions.flatMap((dimension) => {
    const column = quoteIdentifier(dimension.column);
    params.push(...plan.placeholders);
    return [
      `SUM(${column} IS NULL)`,
      `SUM(TRIM(${column}) = '')`,
      plan.placeholders.length ? `SUM(${column} IN (${plan.placeholders.map(() => '?').join(', ')}))` : '0',
    ];
  });
  const where = whereClause(plan.where);
  params.push(...where.params);
  const currency = plan.currency ? quoteIdentifier(plan.currency.column) : 'NULL';
  const sql = `SELECT ${currency}, COUNT(*), ${counts.join(', ')} FROM ${quoteIdentifier(plan.table)}${where.sql ? ` ${where.sql}` : ''} GROUP BY 1 HAVING COUNT(*) > 0 ORDER BY 1`;
  return { sql, params };
}

/** Counts blank values of every dimension in one pass, then reads amounts and examples for the dimensions that have any. */
export function runFindBlankValues(database: DataDatabase, plan: BlankValuesPlan): BlankValuesOutcome {
  const { sql, params } = buildBlankCountSql(plan);
  const rows = database.prepare(sql).raw(true).all(...params) as unknown[][];
  const checked = rows.map((row) => ({ currency: text(row[0]), rows: Number(row[1]) }));
  const sum = (at: number) => rows.reduce((total, row) => total + Number(row[at] ?? 0), 0);
  const dimensions: BlankDimension[] = plan.dimensions.map((dimension, index) => ({
    dimension: dimension.name,
    nullRows: sum(2 + index * 3),
    emptyRows: sum(3 + index * 3),
    placeholderRows: sum(4 + index * 3),
    amounts: [],
    examples: [],
    where: [],
    whereGroups: 0,
  }));
  for (const [index, found] of dimensions.entries()) {
    if (found.nullRows + found.emptyRows + found.placeholderRows === 0) continue;
    const dimension = plan.dimensions[index]!;
    found.amounts = blankAmounts(database, plan, dimension);
    if (!dimension.details) continue;
    found.examples = blankExamples(database, plan, dimension);
    const context = blankContexts(database, plan, dimension);
    found.where = context.rows;
    found.whereGroups = context.groups;
  }
  return { sql, checked, dimensions };
}

function blankAmounts(database: DataDatabase, plan: BlankValuesPlan, dimension: NamedColumn): BlankDimension['amounts'] {
  const where = blankRowsWhere(plan, dimension);
  const currency = plan.currency ? quoteIdentifier(plan.currency.column) : 'NULL';
  const amount = plan.amountColumn ? `SUM(IFNULL(${quoteIdentifier(plan.amountColumn)}, 0))` : 'NULL';
  const sql = `SELECT ${currency}, COUNT(*), ${amount} FROM ${quoteIdentifier(plan.table)} ${where.sql} GROUP BY 1 HAVING COUNT(*) > 0 ORDER BY 1`;
  const rows = database.prepare(sql).raw(true).all(...where.params) as unknown[][];
  return rows.map((row) => ({ currency: text(row[0]), rows: Number(row[1]), amount: row[2] === null ? null : roundAmount(Number(row[2])) }));
}

function blankRowsWhere(plan: BlankValuesPlan, dimension: NamedColumn): { sql: string; params: SqlValue[] } {
  const where = whereClause(plan.where);
  const blank = blankCondition(dimension.column, plan.placeholders);
  return { sql: where.sql ? `${where.sql} AND ${blank.sql}` : `WHERE ${blank.sql}`, params: [...where.params, ...blank.params] };
}

function blankExamples(database: DataDatabase, plan: BlankValuesPlan, dimension: NamedColumn): Record<string, Value | number>[] {
  if (plan.examples <= 0) return [];
  const shown = plan.exampleColumns.filter((c) => c.column !== dimension.column);
  const where = blankRowsWhere(plan, dimension);
  const select = [
    ...shown.map((c) => quoteIdentifier(c.column)),
    quoteIdentifier(dimension.column),
    plan.amountColumn ? quoteIdentifier(plan.amountColumn) : 'NULL',
    plan.currency ? quoteIdentifier(plan.currency.column) : 'NULL',
  ];
  const order = shown.length ? `ORDER BY ${shown.map((c) => quoteIdentifier(c.column)).join(', ')}` : '';
  const sql = `SELECT ${select.join(', ')} FROM ${quoteIdentifier(plan.table)} ${where.sql} ${order} LIMIT ?`;
  const rows = database.prepare(sql).raw(true).all(...where.params, plan.examples) as unknown[][];
  return rows.map((row) => ({
    ...Object.fromEntries(shown.map((c, i) => [c.name, text(row[i])])),
    [dimension.name]: text(row[shown.length]),
    ...(plan.amountColumn ? { amount: row[shown.length + 1] === null ? null : roundAmount(Number(row[shown.length + 1])) } : {}),
    ...(plan.currency ? { [plan.currency.name]: text(row[shown.length + 2]) } : {}),
  }));
}

function blankContexts(database: DataDatabase, plan: BlankValuesPlan, dimension: NamedColumn): { rows: Record<string, Value | number>[]; groups: number } {
  const context = [...plan.contextColumns.filter((c) => c.column !== dimension.column), ...(plan.currency ? [plan.currency] : [])];
  if (context.length === 0 || plan.contexts <= 0) return { rows: [], groups: 0 };
  const where = blankRowsWhere(plan, dimension);
  const columns = context.map((c) => quoteIdentifier(c.column));
  const amount = plan.amountColumn ? `SUM(IFNULL(${quoteIdentifier(plan.amountColumn)}, 0))` : 'NULL';
  const sql = `SELECT ${columns.join(', ')}, COUNT(*), ${amount}, COUNT(*) OVER () FROM ${quoteIdentifier(plan.table)} ${where.sql} GROUP BY ${columns.join(', ')} ORDER BY COUNT(*) DESC, ${columns.join(', ')} LIMIT ?`;
  const rows = database.prepare(sql).raw(true).all(...where.params, plan.contexts) as unknown[][];
  return {
    rows: rows.map((row) => ({
      ...Object.fromEntries(context.map((c, i) => [c.name, text(row[i])])),
      rows: Number(row[context.length]),
      ...(plan.amountColumn ? { amount: roundAmount(Number(row[context.length + 1])) } : {}),
    })),
    groups: rows.length ? Number(rows[0]![context.length + 2]) : 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Period totals

export interface PeriodTotalsPlan {
  table: string;
  /** Dimensions that split the data into series (e.g. company, currency). */
  series: NamedColumn[];
  period: NamedColumn;
  measure: MeasureExpression;
  /** A technical load column (e.g. the load request) whose distinct values are counted per period. */
  loadColumn: string | undefined;
  where: WhereCondition[];
  /** Most rows (series × periods) returned. */
  limit: number;
}

export interface PeriodTotal {
  series: Record<string, Value>;
  period: string;
  value: number | null;
  records: number;
  loads: number | undefined;
}

export interface PeriodTotalsOutcome {
  sql: string;
  rows: PeriodTotal[];
  /** More series × period rows exist than `limit`. */
  truncated: boolean;
}

/** Totals per series and period, in series then period order. */
export function buildPeriodTotalsSql(plan: PeriodTotalsPlan): { sql: string; params: SqlValue[] } {
  const grouped = [...plan.series, plan.period].map((c) => quoteIdentifier(c.column));
  const select = [...grouped, aggregateExpression(plan.measure), 'COUNT(*)', plan.loadColumn ? `COUNT(DISTINCT ${quoteIdentifier(plan.loadColumn)})` : 'NULL'];
  const where = whereClause(plan.where);
  const sql = [`SELECT ${select.join(', ')}`, `FROM ${quoteIdentifier(plan.table)}`, where.sql, `GROUP BY ${grouped.join(', ')}`, `ORDER BY ${grouped.join(', ')}`, 'LIMIT ?']
    .filter(Boolean)
    .join(' ');
  return { sql, params: [...where.params, plan.limit + 1] };
}

export function runPeriodTotals(database: DataDatabase, plan: PeriodTotalsPlan): PeriodTotalsOutcome {
  const { sql, params } = buildPeriodTotalsSql(plan);
  const raw = database.prepare(sql).raw(true).all(...params) as unknown[][];
  const count = plan.series.length;
  const rows = raw.slice(0, plan.limit).map((row) => ({
    series: Object.fromEntries(plan.series.map((c, i) => [c.name, text(row[i])])),
    period: String(row[count]),
    value: row[count + 1] === null ? null : Number(row[count + 1]),
    records: Number(row[count + 2]),
    loads: plan.loadColumn ? Number(row[count + 3]) : undefined,
  }));
  return { sql: sql.replace(/\s+/g, ' '), rows, truncated: raw.length > plan.limit };
}
