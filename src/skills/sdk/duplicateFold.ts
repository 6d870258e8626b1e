/**
 * The duplicate search's algorithm, as a reducer that runs next to the data (in the query
 * worker): duplicated groups stream in, in key order, and are folded into per-currency totals,
 * patterns (groups sharing currency, copies and described values) and the largest groups, so
 * memory stays bounded even when a badly chosen key makes every group a duplicate. Kept apart
 * from duplicates.ts so the worker imports only this and what it needs.
 */
// Imported from the data layer directly, not through api.ts: the query worker imports this
// module and should load only what the fold needs.
import { defineReducer } from '../../data/reducer.ts';
import type { Row } from '../../data/query.ts';
import { roundAmount } from '../../shared/amounts.ts';
import type { DuplicateGroup, DuplicateOutcome, DuplicatePattern } from './duplicates.ts';

/** Output names of the grouped select, by position, so no dimension name can collide with another. */
export const duplicateOutputs = {
  key: (index: number) => `key_${index}`,
  currency: 'currency',
  copies: 'copies',
  amount: 'amount',
  amountVaries: 'amount_varies',
  describe: (index: number) => `describe_${index}`,
  compare: (index: number) => `compare_${index}`,
} as const;

/** Patterns tracked while streaming; beyond this, further groups only count in the totals. */
export const MAX_TRACKED_PATTERNS = 500;
export const MAX_PATTERNS = 20;

export interface DuplicateFoldOptions {
  /** Names of the key dimensions, in key order. */
  keyNames: string[];
  hasCurrency: boolean;
  hasAmount: boolean;
  describeNames: string[];
  compareNames: string[];
  /** Groups kept, largest duplicated amount first. */
  top: number;
  keysPerPattern: number;
}

type Value = string | null;
type Total = DuplicateOutcome['totals'][number];
type TrackedPattern = DuplicatePattern & { order: number; lastFirstKey: Value | undefined };

interface DuplicateFoldState {
  options: DuplicateFoldOptions;
  totals: Map<string, Total>;
  patterns: Map<string, TrackedPattern>;
  untracked: number;
  groups: number;
  records: number;
  top: DuplicateGroup[];
}

/** What the fold returns: the outcome without the SQL, which the caller adds. */
export type DuplicateFolded = Omit<DuplicateOutcome, 'sql'>;

const text = (value: unknown): Value => (value === null || value === undefined ? null : String(value));
const list = (value: unknown): Value[] => (Array.isArray(value) ? (value as Value[]) : []);

/**
 * Folds duplicated groups (one row per key and currency with at least two copies, in key order)
 * into totals, patterns and the `top` largest groups.
 * @example
 * const result = await data.run({ kind: 'fold', select, fold: foldDuplicates.with(options) });
 * result.folded.groups; // keys that occur more than once
 */
export const foldDuplicates = defineReducer(import.meta.url, 'foldDuplicates', {
  start: (options: DuplicateFoldOptions): DuplicateFoldState => ({ options, totals: new Map(), patterns: new Map(), untracked: 0, groups: 0, records: 0, top: [] }),
  step: (state, row: Row) => {
    const { options } = state;
    const group = groupOf(row, options);
    // A sum over only NULL amounts counts as 0, as IFNULL(amount, 0) did.
    const rawAmount = options.hasAmount ? Number(row[duplicateOutputs.amount] ?? 0) : 0;
    const extra = (rawAmount * (group.copies - 1)) / group.copies;
    state.groups += 1;
    state.records += group.copies;

    const totalKey = String(group.currency);
    const total = state.totals.get(totalKey) ?? { currency: group.currency, groups: 0, records: 0, amount: 0, duplicatedAmount: 0 };
    state.totals.set(totalKey, total);
    total.groups += 1;
    total.records += group.copies;
    total.amount += rawAmount;
    total.duplicatedAmount += extra;

    const patternKey = JSON.stringify([group.currency, group.copies, group.values]);
    let pattern = state.patterns.get(patternKey);
    if (!pattern && state.patterns.size < MAX_TRACKED_PATTERNS) {
      pattern = { currency: group.currency, copies: group.copies, values: group.values, groups: 0, records: 0, amount: 0, duplicatedAmount: 0, keys: [], firstKeyValues: 0, differsIn: [], order: state.patterns.size, lastFirstKey: undefined };
      state.patterns.set(patternKey, pattern);
    }
    if (pattern) {
      pattern.groups += 1;
      pattern.records += group.copies;
      pattern.amount += rawAmount;
      pattern.duplicatedAmount += extra;
      if (pattern.keys.length < options.keysPerPattern) pattern.keys.push(group.key);
      // Rows arrive in key order, so the groups of one first-key value (a document) are adjacent.
      const firstKey = text(row[duplicateOutputs.key(0)]);
      if (pattern.groups === 1 || firstKey !== pattern.lastFirstKey) pattern.firstKeyValues += 1;
      pattern.lastFirstKey = firstKey;
      for (const name of group.differsIn) if (!pattern.differsIn.includes(name)) pattern.differsIn.push(name);
    } else {
      state.untracked += 1;
    }
    keepLargest(state.top, group, options.top);
  },
  finish: (state): DuplicateFolded => {
    const ranked = [...state.patterns.values()].sort((x, y) => Math.abs(y.duplicatedAmount) - Math.abs(x.duplicatedAmount) || y.groups - x.groups || x.order - y.order);
    return {
      groups: state.groups,
      records: state.records,
      extraCopies: state.records - state.groups,
      totals: [...state.totals.values()]
        .map((t) => ({ ...t, amount: roundAmount(t.amount), duplicatedAmount: roundAmount(t.duplicatedAmount) }))
        .sort((x, y) => String(x.currency).localeCompare(String(y.currency))),
      patterns: ranked.slice(0, MAX_PATTERNS).map(({ order: _order, lastFirstKey: _last, ...p }) => ({ ...p, amount: roundAmount(p.amount), duplicatedAmount: roundAmount(p.duplicatedAmount) })),
      patternCount: ranked.length + (state.untracked > 0 ? 1 : 0),
      patternsComplete: state.untracked === 0,
      top: state.top,
    };
  },
});

/** One grouped row as a duplicate group. */
function groupOf(row: Row, options: DuplicateFoldOptions): DuplicateGroup {
  const key = Object.fromEntries(options.keyNames.map((name, index) => [name, text(row[duplicateOutputs.key(index)])]));
  const currency = options.hasCurrency ? text(row[duplicateOutputs.currency]) : null;
  const copies = Number(row[duplicateOutputs.copies]);
  const rawAmount = options.hasAmount ? Number(row[duplicateOutputs.amount] ?? 0) : null;
  const amount = rawAmount === null ? null : roundAmount(rawAmount);
  const duplicatedAmount = rawAmount === null ? null : roundAmount((rawAmount * (copies - 1)) / copies);
  const identicalAmounts = !options.hasAmount || row[duplicateOutputs.amountVaries] !== true;
  const values = Object.fromEntries(options.describeNames.map((name, index) => [name, list(row[duplicateOutputs.describe(index)])]));
  const differsIn = options.compareNames.filter((_, index) => row[duplicateOutputs.compare(index)] === true);
  if (amount !== null && !identicalAmounts) differsIn.push('(amount)');
  return { key, currency, copies, amount, duplicatedAmount, identicalAmounts, values, differsIn };
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
