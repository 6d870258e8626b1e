/**
 * Finds each figure's receipt in the tool results: the leaf it was copied from (within the
 * precision it is written with), or the derivation that produces it from leaves (a difference,
 * a sum or average of rows, a percentage change, a share; see derivations.ts), or the text of
 * a result that states it (a knowledge passage, a tool's own explanation), or nothing:
 * unverified. Codes, years, periods and counts are not amounts and are not checked (a count
 * found among integer leaves still gets its receipt).
 */
import { DerivationSearch } from './derivations.ts';
import { figuresIn, type Figure } from './figures.ts';
import { leavesOf, textsOf, type Leaf, type Text, type ToolResult } from './leaves.ts';

export type { ToolResult } from './leaves.ts';

/** A place in a tool result. */
export interface Place {
  /** The tool call id. */
  call: string;
  /** The JSON path in its result: 'rows[3].amount'. */
  path: string;
}

export type DerivedOp = 'difference' | 'sum' | 'average' | 'percent_change' | 'share';

export type Receipt =
  /** Copied from one leaf; `sign_differs` when the figure's sign is not the leaf's ('higher by 28,200.00' for -28200). */
  | { kind: 'value'; call: string; path: string; sign_differs?: true }
  /**
   * Computed from leaves: difference of[0] − of[1]; sum or average of all; percent_change
   * (of[1] − of[0]) / |of[0]| × 100; share of[0] / of[1] × 100.
   */
  | { kind: 'derived'; op: DerivedOp; of: Place[]; sign_differs?: true }
  /** Written in a text of a result (a knowledge passage, a tool's explanation) at `path`. */
  | { kind: 'quote'; call: string; path: string }
  | { kind: 'unverified' }
  /** A code, year, period or count: not an amount, not checked. */
  | { kind: 'not_a_figure' };

/** A figure with its receipt. */
export type CheckedFigure = Figure & { receipt: Receipt };

/**
 * Each figure with its receipt, in the order given.
 *
 * @example
 * const results = [{ id: 'call_1', name: 'query_source', result: { rows: [{ amount: 100 }, { amount: 10.5 }] } }];
 * receiptsFor(figuresIn('110.50 EUR in total, 89.50 apart, 0.1k'), results).map((f) => f.receipt)
 * // [{ kind: 'derived', op: 'sum', of: [{ call: 'call_1', path: 'rows[0].amount' }, { call: 'call_1', path: 'rows[1].amount' }] },
 * //  { kind: 'derived', op: 'difference', of: [… 'rows[0].amount', … 'rows[1].amount'] },
 * //  { kind: 'value', call: 'call_1', path: 'rows[0].amount' }]
 */
export function receiptsFor(figures: Figure[], toolResults: ToolResult[]): CheckedFigure[] {
  const leaves = leavesOf(toolResults);
  // Built on the first figure no leaf holds: most answers only copy.
  let search: DerivationSearch | undefined;
  let quotes: Quote[] | undefined;
  const later = { derivations: () => (search ??= new DerivationSearch(leaves)), quotes: () => (quotes ??= quotesOf(textsOf(toolResults))) };
  return figures.map((figure) => ({ ...figure, receipt: receiptOf(figure, leaves, later) }));
}

interface Quote extends Text {
  value: number;
}

/** The amounts and percentages written in the texts of the results (tools write en-US). */
function quotesOf(texts: Text[]): Quote[] {
  return texts.flatMap((text) => figuresIn(text.text).filter((figure) => figure.kind === 'amount' || figure.kind === 'percent').map((figure) => ({ ...text, value: figure.value })));
}

function receiptOf(figure: Figure, leaves: Leaf[], later: { derivations: () => DerivationSearch; quotes: () => Quote[] }): Receipt {
  const tolerance = figure.tolerance + 1e-9 * Math.max(1, Math.abs(figure.value));
  if (figure.kind === 'count') {
    const leaf = leaves.find((candidate) => candidate.value === figure.value);
    return leaf ? { kind: 'value', call: leaf.call, path: leaf.path } : { kind: 'not_a_figure' };
  }
  if (figure.kind !== 'amount' && figure.kind !== 'percent') return { kind: 'not_a_figure' };
  // Percentages are also stored as ratios (0.248 for 24.8%).
  const scales = figure.kind === 'percent' ? [1, 100] : [1];
  for (const sign of [1, -1]) {
    for (const scale of scales) {
      const leaf = leaves.find((candidate) => Math.abs(sign * candidate.value * scale - figure.value) <= tolerance);
      if (leaf) return { kind: 'value', call: leaf.call, path: leaf.path, ...(sign < 0 && figure.value !== 0 ? { sign_differs: true as const } : {}) };
    }
  }
  const derived = later.derivations().find(figure, tolerance);
  if (derived) return derived;
  const quote = later.quotes().find((candidate) => Math.abs(candidate.value - figure.value) <= tolerance);
  return quote ? { kind: 'quote', call: quote.call, path: quote.path } : { kind: 'unverified' };
}

