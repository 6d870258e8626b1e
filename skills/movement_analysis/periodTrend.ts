/**
 * period_trend: one measure of one source per period (one series per currency), with each
 * period's change against the one before and the largest changes. One grouped select.
 */
import { checkFilterValuesExist, defineTool, describePeriod, formatAmount, formatPercent } from '../../src/skills/api.ts';
import { presentTrend, summarizeTrend } from './presentations.ts';
import { periodTrendInput, periodTrendOutput } from './schemas.ts';
import { aggregateValue, resolveScope, round, sideCondition } from './scope.ts';

export const periodTrend = defineTool({
  name: 'period_trend',
  examples: [{ source: 'fi_reporting', filters: { company: '3000' } }, { source: 'consolidation_mart', measure: 'amount_gc', periods: 'Q4 2024' }],
  description: 'A measure of one source per period with each change against the period before. Use it for "month-over-month trend", "which month moved most".',
  input: periodTrendInput,
  output: periodTrendOutput,
  handler: async (args, context) => {
    const scope = resolveScope(context.catalog, args.source, args.measure, args.filters);
    const periods = args.periods ? [sideCondition(scope, args.periods)] : [];
    const conditions = [...scope.conditions, ...periods];
    const groupBy = [scope.period, ...(scope.currency ? [scope.currency] : [])];
    const result = await aggregateValue(scope, groupBy, periods, context);
    const notes: string[] = [];
    if (result.rows.length === 0) {
      await checkFilterValuesExist(scope.source, conditions, context);
      notes.push('No rows match this combination of filters (each filter value exists on its own).');
    }
    const currencyOf = (row: Record<string, unknown>) => (scope.currency ? String(row[scope.currency.name] ?? '') : undefined);
    const previous = new Map<string | undefined, number>();
    const rows = [...result.rows]
      .sort((x, y) => String(currencyOf(x) ?? '').localeCompare(String(currencyOf(y) ?? '')) || String(x[scope.period.name]).localeCompare(String(y[scope.period.name])))
      .map((row) => {
        const currency = currencyOf(row);
        const value = round(Number(row.value ?? 0));
        const before = previous.get(currency);
        previous.set(currency, value);
        const change = before === undefined ? null : round(value - before);
        const percent = change === null || !before ? null : round((change / Math.abs(before)) * 100);
        return { period: String(row[scope.period.name]), ...(currency !== undefined ? { currency } : {}), value, change, change_percent: percent };
      });
    // The largest move of each series, biggest first.
    const largest = [...new Set(rows.map((row) => row.currency))].flatMap((currency) => {
      const series = rows.filter((row) => row.currency === currency && row.change !== null);
      const top = series.sort((x, y) => Math.abs(y.change!) - Math.abs(x.change!))[0];
      if (!top) return [];
      const index = rows.indexOf(top);
      return [{ ...(currency !== undefined ? { currency } : {}), from: rows[index - 1]!.period, to: top.period, change: top.change!, change_percent: top.change_percent }];
    });
    const interpretation = largest.length
      ? largest.map((l) => `${l.currency ?? scope.unit}: largest change ${l.change > 0 ? '+' : ''}${formatAmount(l.change)} from ${describePeriod(l.from, scope.period.calendar?.fiscalYearStart)} to ${describePeriod(l.to, scope.period.calendar?.fiscalYearStart)}${l.change_percent === null ? '' : ` (${formatPercent(l.change_percent, { signed: true })})`}`).join(' | ')
      : rows.length ? 'Only one period: no change to show.' : 'No rows.';
    return {
      source: scope.source.name,
      measure: { name: scope.measure.name, unit: scope.unit },
      filters: scope.applied,
      rows,
      largest_changes: largest,
      interpretation,
      ...(notes.length ? { notes } : {}),
    };
  },
  summarize: summarizeTrend,
  present: presentTrend,
});
