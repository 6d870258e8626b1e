/**
 * Words the offline model's answers from the movement tools' results: totals per currency,
 * the largest movements (drivers and offsets) and a trend per period. Every figure comes from
 * a result; amounts of different currencies are never added.
 */
import type { TextFormat } from '../../src/skills/api.ts';
import type { ComparePeriodsResult, PeriodTrendResult } from './schemas.ts';

const LISTED_MOVEMENTS = 6;
const signed = (value: number, f: TextFormat, unit?: string | null) => `${value > 0 ? '+' : ''}${f.amount(value, unit)}`;
const unitOf = (result: { measure: { unit: string } }, currency: string | undefined) => currency ?? (result.measure.unit.startsWith('currency') ? null : result.measure.unit);

/**
 * "amount in fi_reporting for company 1000: November 2024 → December 2024" and the movements.
 * @example
 * movementAnswer(result, textFormat('en-US'), 'no period was named') // 'amount in fi_reporting …\n- EUR: 1,963,800.00 EUR → …'
 */
export function movementAnswer(result: ComparePeriodsResult, f: TextFormat, assumed?: string): string {
  const scope = f.filters(result.filters);
  const lines = [`${result.measure.name} in ${result.source}${scope ? ` for ${scope}` : ''}: ${f.span(result.period_a)} → ${f.span(result.period_b)}${assumed ? ` (${assumed})` : ''}.`];
  if (result.totals.length === 0) return `${lines[0]} There are no rows in either period.`;
  if (result.totals.length > 1) lines.push('Per currency (amounts in different currencies are not added):');
  for (const total of result.totals) {
    const unit = unitOf(result, total.currency);
    const percent = total.change_percent === null ? '' : ` (${f.percent(total.change_percent)})`;
    lines.push(`- ${total.currency ? `${total.currency}: ` : ''}${f.amount(total.total_a, unit)} → ${f.amount(total.total_b, unit)}, change ${signed(total.change, f, unit)}${percent}`);
  }
  if (result.group_by.length && result.rows.length) {
    lines.push(`Largest movements by ${result.group_by.join(', ').replace(/_/g, ' ')}:`);
    for (const row of result.rows.slice(0, LISTED_MOVEMENTS)) {
      const key = result.group_by.map((d) => `${d.replace(/_/g, ' ')} ${f.value(d, row[d])}`).join(', ');
      const unit = unitOf(result, typeof row.currency === 'string' ? row.currency : undefined);
      const share = row.share_percent === null ? '' : `, ${f.percent(row.share_percent).replace(/^\+/, '')} of the change`;
      const status = row.status === 'new' ? `, only in ${result.label_b}` : row.status === 'gone' ? `, only in ${result.label_a}` : '';
      lines.push(`- ${key}: ${f.amount(row.a, unit)} → ${f.amount(row.b, unit)}, ${signed(row.change, f, unit)} (${row.role}${share}${status})`);
    }
    const more = result.total_rows - Math.min(result.row_count, LISTED_MOVEMENTS);
    if (more > 0) lines.push(`(${more} more group${more === 1 ? '' : 's'} not listed: smaller or unchanged.)`);
  }
  lines.push(`Drivers move with the net change, offsets against it.`);
  return lines.join('\n');
}

/**
 * The largest change of each series, then the periods with their change against the one before.
 * @example
 * trendAnswer(result, textFormat('en-US')) // 'amount in fi_reporting for company 3000, month over month:\n- GBP: largest change …'
 */
export function trendAnswer(result: PeriodTrendResult, f: TextFormat): string {
  const scope = f.filters(result.filters);
  const lines = [`${result.measure.name} in ${result.source}${scope ? ` for ${scope}` : ''}, month over month:`];
  if (result.rows.length === 0) return `No data in ${result.source}${scope ? ` for ${scope}` : ''}.`;
  for (const largest of result.largest_changes) {
    const unit = unitOf(result, largest.currency);
    lines.push(`Largest change${largest.currency ? ` (${largest.currency})` : ''}: ${signed(largest.change, f, unit)} from ${f.month(largest.from)} to ${f.month(largest.to)}${largest.change_percent === null ? '' : ` (${f.percent(largest.change_percent)})`}.`);
  }
  for (const row of result.rows) {
    const unit = unitOf(result, row.currency);
    const change = row.change === null ? '' : `, ${signed(row.change, f, unit)}${row.change_percent === null ? '' : ` (${f.percent(row.change_percent)})`}`;
    lines.push(`- ${f.month(row.period)}: ${f.amount(row.value, unit)}${change}`);
  }
  return lines.join('\n');
}
