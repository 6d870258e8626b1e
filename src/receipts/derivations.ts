/**
 * The derivation search behind the receipts: which combination of leaves of the tool results
 * gives a figure — a difference of two leaves, a sum or an average of rows, a percentage
 * change, a share. Bounded so a huge result never costs a quadratic search: it reads the first
 * leaves of each call only, pairs leaves only of the same field or the same row (sorted, so
 * n log n per figure), and combines rows of one column only: every subset of a short column
 * (the rows an answer lists), runs of consecutive rows of a longer one.
 */
import type { Figure } from './figures.ts';
import type { Leaf } from './leaves.ts';
import type { DerivedOp, Receipt } from './receipts.ts';

/** Leaves per call the derivation search reads, and in all. */
const DERIVED_PER_CALL = 2_000;
const DERIVED_TOTAL = 10_000;
/** Leaves of any field and call paired for a figure written to the unit or finer (a net of two calls' figures). */
const CROSS_LEAVES = 1_000;
/** A column this short has every subset of its rows summed (2^12 = 4,096 sums); a longer one, runs of consecutive rows. */
const SUBSET_ROWS = 12;
/** Rows of one column whose consecutive runs are summed. */
const RUN_ROWS = 240;
/** Combinations kept in all (a result with many long columns stops adding runs here). */
const COMBINATIONS_TOTAL = 100_000;

/** A sum or average of rows from..to of `leaves` (a range, so a run costs no copy of its rows). */
interface Combination {
  op: 'sum' | 'average';
  value: number;
  leaves: Leaf[];
  from: number;
  to: number;
}

/**
 * The leaves a derivation may combine, grouped the ways the search pairs them; built once per
 * answer, then asked for each figure no leaf holds.
 *
 * @example
 * const search = new DerivationSearch(leavesOf(results));
 * search.find(figure, figure.tolerance) // { kind: 'derived', op: 'difference', of: [...] } or undefined
 */
export class DerivationSearch {
  /** Leaves of one field name across rows and calls, and of one row, each sorted by value. */
  private readonly groups: Leaf[][];
  /** The first leaves of all calls, whatever their field, sorted by value: one more group, for exact figures only. */
  private readonly everything: Leaf[][];
  /** Sums and averages of rows of each column, sorted by value. */
  private readonly combinations: Combination[] = [];

  /** `allLeaves` in call order, as leavesOf reads them; the first of each call are combined. */
  constructor(allLeaves: Leaf[]) {
    const perCall = new Map<string, number>();
    const leaves = allLeaves.filter((leaf) => {
      const count = (perCall.get(leaf.call) ?? 0) + 1;
      perCall.set(leaf.call, count);
      return count <= DERIVED_PER_CALL;
    }).slice(0, DERIVED_TOTAL);
    const byField = new Map<string, Leaf[]>();
    const byRow = new Map<string, Leaf[]>();
    const columns = new Map<string, Leaf[]>();
    for (const leaf of leaves) {
      push(byField, leaf.field || `${leaf.call} ${leaf.row}`, leaf);
      push(byRow, `${leaf.call} ${leaf.row}`, leaf);
      if (leaf.array !== undefined) push(columns, `${leaf.call} ${leaf.array} ${leaf.field}`, leaf);
      else if (leaf.field === '') push(columns, `${leaf.call} ${leaf.row}`, leaf);
    }
    this.groups = [...byField.values(), ...byRow.values()].filter((group) => group.length > 1).map((group) => group.sort((a, b) => a.value - b.value));
    this.everything = [leaves.slice(0, CROSS_LEAVES).sort((a, b) => a.value - b.value)];
    for (const column of columns.values()) {
      if (column.length < 2) continue;
      if (column.length <= SUBSET_ROWS) this.addSubsets(column);
      else this.addRuns(column.slice(0, RUN_ROWS));
    }
    this.combinations.sort((a, b) => a.value - b.value);
  }

  /** Every subset of two rows or more: the rows an answer picks from a short list. */
  private addSubsets(rows: Leaf[]): void {
    for (let mask = 3; mask < 1 << rows.length && this.combinations.length < COMBINATIONS_TOTAL; mask += 1) {
      if ((mask & (mask - 1)) === 0) continue; // a single row is a value, not a sum
      const picked = rows.filter((_, index) => mask & (1 << index));
      this.add(picked, 0, picked.length - 1, picked.reduce((total, leaf) => total + leaf.value, 0));
    }
  }

  /** Runs of consecutive rows: months of a quarter, the whole column. */
  private addRuns(rows: Leaf[]): void {
    for (let from = 0; from < rows.length - 1 && this.combinations.length < COMBINATIONS_TOTAL; from += 1) {
      let total = rows[from]!.value;
      for (let to = from + 1; to < rows.length; to += 1) {
        total += rows[to]!.value;
        this.add(rows, from, to, total);
      }
    }
  }

  private add(leaves: Leaf[], from: number, to: number, total: number): void {
    this.combinations.push({ op: 'sum', value: total, leaves, from, to }, { op: 'average', value: total / (to - from + 1), leaves, from, to });
  }

  /** The first derivation that gives the figure within `tolerance`, or undefined. */
  find(figure: Figure, tolerance: number): Receipt | undefined {
    if (figure.kind === 'amount') {
      const found = this.difference(this.groups, figure.value, tolerance) ?? this.combination(figure.value, tolerance) ?? this.pairSum(this.groups, figure.value, tolerance);
      // Pairs across fields and calls are many: only a figure written to the unit or finer is matched among them (a rounded one would match by chance).
      const exact = figure.tolerance <= 0.5 ? (this.difference(this.everything, figure.value, tolerance) ?? this.pairSum(this.everything, figure.value, tolerance)) : undefined;
      return found ?? exact ?? this.combination(-figure.value, tolerance, true);
    }
    for (const [sign, differs] of [[1, false], [-1, true]] as const) {
      const receipt = this.percentChange(sign * figure.value, tolerance, differs) ?? this.share(sign * figure.value, tolerance, differs);
      if (receipt) return receipt;
    }
    return undefined;
  }

  /** b − a = target for two leaves of one group (both orders are tried, as a runs over the whole group). */
  private difference(groups: Leaf[][], target: number, tolerance: number): Receipt | undefined {
    for (const group of groups) {
      for (const a of group) {
        const b = nearest(group, a.value + target, tolerance, a);
        if (b) return derived('difference', [b, a]);
      }
    }
    return undefined;
  }

  /** A sum or average of rows of one column. */
  private combination(target: number, tolerance: number, signDiffers = false): Receipt | undefined {
    const at = lowerBound(this.combinations, target - tolerance, (combination) => combination.value);
    const found = this.combinations[at];
    if (!found || found.value > target + tolerance) return undefined;
    return derived(found.op, found.leaves.slice(found.from, found.to + 1), signDiffers);
  }

  /** a + b = target for two leaves of one group: two fields of a row netted, two rows added. */
  private pairSum(groups: Leaf[][], target: number, tolerance: number): Receipt | undefined {
    for (const group of groups) {
      for (const a of group) {
        const b = nearest(group, target - a.value, tolerance, a);
        if (b) return derived('sum', [a, b]);
      }
    }
    return undefined;
  }

  /** (b − a) / |a| × 100 = target. */
  private percentChange(target: number, tolerance: number, signDiffers: boolean): Receipt | undefined {
    for (const group of this.groups) {
      for (const a of group) {
        if (a.value === 0) continue;
        const b = nearest(group, a.value + (target * Math.abs(a.value)) / 100, (tolerance * Math.abs(a.value)) / 100, a);
        if (b) return derived('percent_change', [a, b], signDiffers);
      }
    }
    return undefined;
  }

  /** a / b × 100 = target. */
  private share(target: number, tolerance: number, signDiffers: boolean): Receipt | undefined {
    for (const group of this.groups) {
      for (const b of group) {
        if (b.value === 0) continue;
        const a = nearest(group, (target * b.value) / 100, (tolerance * Math.abs(b.value)) / 100, b);
        if (a) return derived('share', [a, b], signDiffers);
      }
    }
    return undefined;
  }
}

function derived(op: DerivedOp, leaves: Leaf[], signDiffers = false): Receipt {
  return { kind: 'derived', op, of: leaves.map(({ call, path }) => ({ call, path })), ...(signDiffers ? { sign_differs: true as const } : {}) };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A leaf of the sorted group within `tolerance` of `target`, other than `not`. */
function nearest(group: Leaf[], target: number, tolerance: number, not: Leaf): Leaf | undefined {
  for (let at = lowerBound(group, target - tolerance, (leaf) => leaf.value); at < group.length; at += 1) {
    const leaf = group[at]!;
    if (leaf.value > target + tolerance) return undefined;
    if (leaf !== not) return leaf;
  }
  return undefined;
}

/** The first index whose key is ≥ `value` in a list sorted by key. */
function lowerBound<T>(list: T[], value: number, key: (item: T) => number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (key(list[middle]!) < value) low = middle + 1;
    else high = middle;
  }
  return low;
}
