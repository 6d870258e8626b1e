/**
 * The one-line reading of a comparison, for people: how well the sides align and where the
 * largest gap is, with amounts and currencies.
 */
import type { ComparedRow, ComparisonOutcome } from './classification.ts';
import { formatAmount, formatPercent } from '../../src/skills/api.ts';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** E.g. "Major differences: 1 of 1 aligned rows differ beyond the minor thresholds. Largest: company 1000, period 2024012: fi_reporting is higher by 110,000.00 EUR (9.1%)." */
export function interpretComparison(outcome: ComparisonOutcome, names: { a: string; b: string }, withoutRows: readonly ('a' | 'b')[] = []): string {
  const { counts, alignedRows } = outcome;
  if (alignedRows === 0) return 'Nothing to compare: neither side has rows for these filters.';
  const empty = withoutRows.length === 1 ? withoutRows[0]! : undefined;
  // A side with no rows is no side of 0.00: there is nothing to reconcile, only the other side's figures.
  if (empty) {
    const other = empty === 'a' ? 'b' : 'a';
    const held = outcome.totals.map((t) => formatAmount(t[other], t.currency)).join(' and ');
    return `Nothing to reconcile: ${names[empty]} has no rows for these filters; ${names[other]} has ${held} in ${plural(alignedRows, 'aligned row')}.`;
  }
  const matchShare = (counts.match / alignedRows) * 100;
  const parts: string[] = [];
  const problems = [
    counts.major_diff ? plural(counts.major_diff, 'major difference') : '',
    counts.minor_diff ? plural(counts.minor_diff, 'minor difference') : '',
    counts.only_in_a ? `${plural(counts.only_in_a, 'row')} only in ${names.a}` : '',
    counts.only_in_b ? `${plural(counts.only_in_b, 'row')} only in ${names.b}` : '',
  ].filter(Boolean);
  if (problems.length === 0) {
    parts.push(`Full alignment: all ${plural(alignedRows, 'aligned row')} match.`);
  } else if (alignedRows === 1) {
    const only = counts.only_in_a ? names.a : counts.only_in_b ? names.b : undefined;
    parts.push(only ? `The one aligned row exists only in ${only}.` : `The one aligned row is a ${counts.major_diff ? 'major' : 'minor'} difference.`);
  } else {
    const quality = matchShare >= 95 ? 'Good alignment' : matchShare >= 80 ? 'Partial alignment' : 'Poor alignment';
    parts.push(`${quality} (${formatPercent(matchShare)} of ${plural(alignedRows, 'aligned row')} match): ${problems.join(', ')}.`);
  }
  const largest = outcome.top[0];
  if (largest) {
    const where = whereOf(largest);
    const currency = largest.key.currency ?? null;
    const higher = largest.difference > 0 ? names.a : names.b;
    const percent = largest.percent === null ? '' : ` (${formatPercent(largest.percent)})`;
    const status = largest.status === 'only_in_a' ? ` (only in ${names.a})` : largest.status === 'only_in_b' ? ` (only in ${names.b})` : '';
    parts.push(`Largest gap${where ? ` at ${where}` : ''}: ${higher} is higher by ${formatAmount(Math.abs(largest.difference), currency)}${percent}${status}.`);
    parts.push(...[netAgainstLargest(outcome, names), doubledRows(outcome, names)].filter(Boolean));
  }
  return parts.join(' ');
}

const whereOf = (row: ComparedRow) =>
  Object.entries(row.key)
    .filter(([name]) => name !== 'currency')
    .map(([name, value]) => `${name} ${value ?? '(blank)'}`)
    .join(', ');

/**
 * When the largest row goes against the net of its currency, the largest row misleads: the net
 * is what the totals show. Names the net and the largest row that goes its way.
 */
function netAgainstLargest(outcome: ComparisonOutcome, names: { a: string; b: string }): string {
  const largest = outcome.top[0]!;
  const currency = largest.key.currency ?? null;
  const total = outcome.totals.find((t) => t.currency === currency) ?? (outcome.totals.length === 1 ? outcome.totals[0] : undefined);
  if (outcome.alignedRows < 2 || !total || Math.abs(total.difference) < 0.005 || Math.sign(total.difference) === Math.sign(largest.difference)) return '';
  const sameWay = outcome.top.find((row) => (row.key.currency ?? null) === currency && Math.sign(row.difference) === Math.sign(total.difference));
  const higher = total.difference > 0 ? names.a : names.b;
  const driver = sameWay ? `; the largest gap that way is at ${whereOf(sameWay) || 'the total'} (${formatAmount(Math.abs(sameWay.difference), currency)})` : '';
  return `Net, ${higher} is higher by ${formatAmount(Math.abs(total.difference), currency)}: the largest gap goes the other way${driver}.`;
}

/** Every differing row exactly doubled on one side: the same records counted twice, as a repeated load does. */
function doubledRows(outcome: ComparisonOutcome, names: { a: string; b: string }): string {
  const { counts } = outcome;
  const differing = counts.minor_diff + counts.major_diff + counts.only_in_a + counts.only_in_b;
  if (differing === 0 || differing > outcome.top.length || counts.only_in_a + counts.only_in_b > 0) return '';
  const doubled = (x: number | null, y: number | null) => x !== null && y !== null && y !== 0 && Math.abs(x - 2 * y) < 0.005;
  const side = outcome.top.every((row) => doubled(row.b, row.a)) ? 'b' : outcome.top.every((row) => doubled(row.a, row.b)) ? 'a' : undefined;
  if (!side) return '';
  const extra = new Map<string | null, number>();
  for (const row of outcome.top) extra.set(row.key.currency ?? null, (extra.get(row.key.currency ?? null) ?? 0) + Math.abs(row.difference));
  const amounts = [...extra].map(([currency, amount]) => formatAmount(amount, currency)).join(' and ');
  return `${differing === 1 ? 'The differing row is' : `All ${differing} differing rows are`} exactly doubled in ${names[side]} (${amounts} counted twice), as when records are loaded twice.`;
}
