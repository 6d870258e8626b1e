/**
 * An independent, deliberately naive model of compare_sources' documented rules, for
 * property tests. Plain TypeScript, no SQL, integer cents throughout:
 *
 * - rows of each side are summed per alignment key (the align_on dimensions, plus the
 *   currency when both measures carry one); NULL key values align with each other;
 * - a key on one side only is only_in_a / only_in_b, whatever its amount;
 * - difference = a − b (a missing side counts as 0); percent = |difference| / |a| × 100
 *   (a = 0: percent 0 when the difference is 0, otherwise undefined, which never matches);
 * - match when |difference| ≤ match.absolute AND percent ≤ match.percent, minor_diff within
 *   the minor thresholds, otherwise major_diff; bounds inclusive;
 * - totals per currency: the sum of each side over all aligned rows, difference = a − b.
 */

export type ReferenceStatus = 'match' | 'minor_diff' | 'major_diff' | 'only_in_a' | 'only_in_b';
export const referenceStatuses: readonly ReferenceStatus[] = ['match', 'minor_diff', 'major_diff', 'only_in_a', 'only_in_b'];

export type KeyValue = string | null;

/** One raw row of a side: its dimension values and its amount in integer cents. */
export interface ReferenceInputRow {
  dimensions: Record<string, KeyValue>;
  cents: number;
}

/** Thresholds as the tool takes them: absolute in currency units, percent in percent (each at most 2 decimals). */
export interface ReferenceThresholds {
  match: { absolute: number; percent: number };
  minor: { absolute: number; percent: number };
}

/**
 * How the currency enters the alignment key:
 * - `none`: at least one measure carries no currency, so the key is align_on alone and there is one total;
 * - `dimension`: both measures take each row's currency from this dimension;
 * - `fixed`: both measures are in this one currency.
 */
export type ReferenceCurrency = { kind: 'none' } | { kind: 'dimension'; dimension: string } | { kind: 'fixed'; currency: string };

export interface ReferenceOptions {
  alignOn: string[];
  currency: ReferenceCurrency;
  thresholds: ReferenceThresholds;
}

export interface ReferenceRow {
  /** Key name → value, named like the tool's top_differences fields. */
  key: Record<string, KeyValue>;
  currency: KeyValue;
  status: ReferenceStatus;
  /** Side totals in cents, null when the side has no rows for the key. */
  aCents: number | null;
  bCents: number | null;
  differenceCents: number;
}

export interface ReferenceTotal {
  currency: KeyValue;
  aCents: number;
  bCents: number;
  differenceCents: number;
}

export interface ReferenceResult {
  keyNames: string[];
  alignedRows: number;
  counts: Record<ReferenceStatus, number>;
  /** Sorted by currency (null first). */
  totals: ReferenceTotal[];
  /** Every aligned row, in no particular order. */
  rows: ReferenceRow[];
}

/** Converts a decimal with at most 2 decimals to an exact integer count of hundredths. */
export function toHundredths(value: number): number {
  const hundredths = Math.round(value * 100);
  if (!Number.isSafeInteger(hundredths) || Math.abs(value * 100 - hundredths) > 1e-6) {
    throw new Error(`reference: ${value} has more than 2 decimals`);
  }
  return hundredths;
}

/** |difference| ≤ absolute and |difference| / |a| × 100 ≤ percent, in exact integer arithmetic. */
function within(aCents: number, differenceCents: number, limit: { absolute: number; percent: number }): boolean {
  const difference = BigInt(Math.abs(differenceCents));
  if (difference > BigInt(toHundredths(limit.absolute))) return false;
  const base = BigInt(Math.abs(aCents));
  if (base === 0n) return difference === 0n; // percent 0 when both are 0, undefined (never within) otherwise
  // difference / base × 100 ≤ percentHundredths / 100  ⇔  difference × 10000 ≤ percentHundredths × base
  return difference * 10000n <= BigInt(toHundredths(limit.percent)) * base;
}

export function referenceStatus(aCents: number | null, bCents: number | null, thresholds: ReferenceThresholds): ReferenceStatus {
  if (bCents === null) return 'only_in_a';
  if (aCents === null) return 'only_in_b';
  const difference = aCents - bCents;
  if (within(aCents, difference, thresholds.match)) return 'match';
  if (within(aCents, difference, thresholds.minor)) return 'minor_diff';
  return 'major_diff';
}

/** The key names in the tool's order: align_on (duplicates dropped), then the currency if it is not aligned on already. */
export function referenceKeyNames(options: Pick<ReferenceOptions, 'alignOn' | 'currency'>): string[] {
  const names = [...new Set(options.alignOn)];
  const { currency } = options;
  if (currency.kind === 'fixed') names.push('currency');
  if (currency.kind === 'dimension' && !names.includes(currency.dimension)) names.push(currency.dimension);
  return names;
}

export function referenceReconciliation(sideA: ReferenceInputRow[], sideB: ReferenceInputRow[], options: ReferenceOptions): ReferenceResult {
  const keyNames = referenceKeyNames(options);
  const { currency } = options;

  const keyValuesOf = (row: ReferenceInputRow): KeyValue[] =>
    keyNames.map((name, index) => {
      // The fixed currency is always the last key.
      if (currency.kind === 'fixed' && index === keyNames.length - 1) return currency.currency;
      const value = row.dimensions[name];
      if (value === undefined) throw new Error(`reference: row has no dimension '${name}'`);
      return value;
    });
  const currencyOf = (values: KeyValue[]): KeyValue => {
    if (currency.kind === 'none') return null;
    if (currency.kind === 'fixed') return currency.currency;
    return values[keyNames.indexOf(currency.dimension)] ?? null;
  };

  // JSON keeps null and the string "null" apart, and makes NULL equal to NULL.
  const sums = (rows: ReferenceInputRow[]) => {
    const byKey = new Map<string, number>();
    for (const row of rows) {
      if (!Number.isSafeInteger(row.cents)) throw new Error(`reference: ${row.cents} is not a whole number of cents`);
      const id = JSON.stringify(keyValuesOf(row));
      byKey.set(id, (byKey.get(id) ?? 0) + row.cents);
    }
    return byKey;
  };
  const sumsA = sums(sideA);
  const sumsB = sums(sideB);

  const counts = Object.fromEntries(referenceStatuses.map((status) => [status, 0])) as Record<ReferenceStatus, number>;
  const totals = new Map<string, ReferenceTotal>();
  const rows: ReferenceRow[] = [];
  for (const id of new Set([...sumsA.keys(), ...sumsB.keys()])) {
    const values = JSON.parse(id) as KeyValue[];
    const aCents = sumsA.get(id) ?? null;
    const bCents = sumsB.get(id) ?? null;
    const status = referenceStatus(aCents, bCents, options.thresholds);
    const differenceCents = (aCents ?? 0) - (bCents ?? 0);
    const rowCurrency = currencyOf(values);
    const key: Record<string, KeyValue> = {};
    keyNames.forEach((name, index) => (key[name] = values[index] ?? null));
    rows.push({ key, currency: rowCurrency, status, aCents, bCents, differenceCents });
    counts[status] += 1;
    const totalId = JSON.stringify(rowCurrency);
    const total = totals.get(totalId) ?? { currency: rowCurrency, aCents: 0, bCents: 0, differenceCents: 0 };
    total.aCents += aCents ?? 0;
    total.bCents += bCents ?? 0;
    total.differenceCents = total.aCents - total.bCents;
    totals.set(totalId, total);
  }
  return {
    keyNames,
    alignedRows: rows.length,
    counts,
    totals: [...totals.values()].sort((x, y) => compareKeyValues(x.currency, y.currency)),
    rows,
  };
}

/** The `count` non-match rows with the largest |difference|, largest first (ties in no particular order). */
export function referenceTopDifferences(result: ReferenceResult, count: number): ReferenceRow[] {
  return result.rows
    .filter((row) => row.status !== 'match')
    .sort((x, y) => Math.abs(y.differenceCents) - Math.abs(x.differenceCents))
    .slice(0, count);
}

/** A stable identity for a key record, independent of property order. */
export function keyId(key: Record<string, KeyValue>, keyNames: string[]): string {
  return JSON.stringify(keyNames.map((name) => (name in key ? key[name] : '<missing>')));
}

function compareKeyValues(x: KeyValue, y: KeyValue): number {
  if (x === y) return 0;
  if (x === null) return -1;
  if (y === null) return 1;
  return x < y ? -1 : 1;
}
