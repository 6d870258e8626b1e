/**
 * The one-line reading of a comparison, for people: how well the sides align and where the
 * largest gap is, with amounts and currencies.
 */
import type { ComparisonOutcome } from '../../src/data/reconciliation.ts';
import { formatAmount, formatPercent } from '../../src/shared/format.ts';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** E.g. "Major differences: 1 of 1 aligned rows differ beyond the minor thresholds. Largest: company 1000, period 2024012: fi_reporting is higher by 110,000.00 EUR (9.1%)." */
export function interpretComparison(outcome: ComparisonOutcome, names: { a: string; b: string }): string {
  const { counts, alignedRows } = outcome;
  if (alignedRows === 0) return 'Nothing to compare: neither side has rows for these filters.';
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
    const where = Object.entries(largest.key)
      .filter(([name]) => name !== 'currency')
      .map(([name, value]) => `${name} ${value ?? '(blank)'}`)
      .join(', ');
    const currency = largest.key.currency ?? null;
    const higher = largest.difference > 0 ? names.a : names.b;
    const percent = largest.percent === null ? '' : ` (${formatPercent(largest.percent)})`;
    const status = largest.status === 'only_in_a' ? ` (only in ${names.a})` : largest.status === 'only_in_b' ? ` (only in ${names.b})` : '';
    parts.push(`Largest gap${where ? ` at ${where}` : ''}: ${higher} is higher by ${formatAmount(Math.abs(largest.difference), currency)}${percent}${status}.`);
  }
  return parts.join(' ');
}
