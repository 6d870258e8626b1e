/**
 * How the movement tools' results read: one line each (`summarize`) and their tables and bar
 * charts in the web chat (`present`). Column labels name the periods ("November 2024").
 */
import { humanize, plural, type ColumnSpec, type PresentationSpec, type ViewSpec } from '../../src/skills/api.ts';
import type { ComparePeriodsResult, PeriodTrendResult } from './schemas.ts';

/**
 * @example
 * summarizeComparison(result) // 'compare_periods fi_reporting amount November 2024 → December 2024: EUR: +83,300.00 …'
 */
export function summarizeComparison(result: ComparePeriodsResult): string {
  return `compare_periods ${result.source} ${result.measure.name} ${result.label_a} → ${result.label_b}${result.group_by.length ? ` by ${result.group_by.join(', ')}` : ''}: ${result.interpretation}`;
}

/**
 * A table of the ranked movements with a bar chart of the change, and the totals per currency.
 * @example
 * presentComparison(result, input).views[0]!.chart?.kind // 'bar'
 */
export function presentComparison(result: ComparePeriodsResult, input: { source: string; group_by?: string[] }): PresentationSpec {
  const currency = result.totals.some((t) => t.currency !== undefined);
  const money = (key: string, label: string, role: ColumnSpec['role']): ColumnSpec => ({ key, label, role, ...(currency ? { currencyField: 'currency' } : { unit: result.measure.unit }) });
  const keys = result.group_by;
  const views: ViewSpec[] = [];
  if (keys.length && result.rows.length) {
    views.push({
      title: `Movements by ${keys.map(humanize).join(', ').toLowerCase()}`,
      subtitle: `${plural(result.row_count, 'row')}${result.total_rows > result.row_count ? ` of {number:${result.total_rows}}` : ''}, largest first`,
      rowsAt: ['rows'],
      columns: [
        ...keys.map((key): ColumnSpec => ({ key, role: 'dimension' })),
        ...(currency ? [{ key: 'currency', role: 'dimension' } as ColumnSpec] : []),
        money('a', result.label_a, 'measure'),
        money('b', result.label_b, 'measure'),
        money('change', 'Change', 'difference'),
        { key: 'change_percent', label: 'Change %', role: 'percent', signedBy: 'change' },
        { key: 'share_percent', label: 'Share of change %', role: 'percent' },
        { key: 'role', label: 'Role', role: 'status' },
      ],
      chart: {
        kind: 'bar',
        horizontal: true,
        label: `Change by ${keys.join(', ')}`,
        categories: keys,
        series: [{ key: 'change', label: 'Change', ...(currency ? { splitBy: 'currency', splitBlank: 'no currency' } : {}) }],
        // A chart per currency: EUR and USD changes never share an axis.
        ...(currency ? { unitField: 'currency' } : {}),
      },
      notes: result.notes ?? [],
      csvName: ['movements', result.source, ...keys],
    });
  }
  views.push({
    title: `Totals: ${result.label_a} vs ${result.label_b}`,
    rowsAt: ['totals'],
    columns: [
      ...(currency ? [{ key: 'currency', role: 'dimension' } as ColumnSpec] : []),
      { key: 'total_a', label: result.label_a, role: 'measure', ...(currency ? {} : { unit: result.measure.unit }) },
      { key: 'total_b', label: result.label_b, role: 'measure', ...(currency ? {} : { unit: result.measure.unit }) },
      { key: 'change', label: 'Change', role: 'difference' },
      { key: 'change_percent', label: 'Change %', role: 'percent', signedBy: 'change' },
    ],
    notes: keys.length ? [] : (result.notes ?? []),
    csvName: ['movement_totals', result.source],
  });
  return { caption: `Compared ${result.measure.name} in ${input.source}, ${result.label_a} → ${result.label_b}${keys.length ? `, by ${keys.join(', ')}` : ''}`, views };
}

/**
 * @example
 * summarizeTrend(result) // 'period_trend fi_reporting amount: 12 periods. GBP: largest change …'
 */
export function summarizeTrend(result: PeriodTrendResult): string {
  return `period_trend ${result.source} ${result.measure.name}: ${plural(result.rows.length, 'period')}. ${result.interpretation}`;
}

/**
 * A table of the periods with their change, and a bar chart of the value per period.
 * @example
 * presentTrend(result, input).views[0]!.chart?.categories // ['period']
 */
export function presentTrend(result: PeriodTrendResult, input: { source: string }): PresentationSpec {
  const currency = result.rows.some((row) => row.currency !== undefined);
  const money = (key: string, label: string, role: ColumnSpec['role']): ColumnSpec => ({ key, label, role, ...(currency ? { currencyField: 'currency' } : { unit: result.measure.unit }) });
  const view: ViewSpec = {
    title: `${humanize(result.measure.name)} per period`,
    subtitle: plural(result.rows.length, 'period'),
    rowsAt: ['rows'],
    columns: [
      { key: 'period', role: 'dimension', dimension: 'period' },
      ...(currency ? [{ key: 'currency', role: 'dimension' } as ColumnSpec] : []),
      money('value', humanize(result.measure.name), 'measure'),
      money('change', 'Change vs previous', 'difference'),
      { key: 'change_percent', label: 'Change %', role: 'percent', signedBy: 'change' },
    ],
    notes: result.notes ?? [],
    csvName: ['trend', result.source, result.measure.name],
  };
  if (result.rows.length >= 2) {
    view.chart = { kind: 'bar', label: `${humanize(result.measure.name)} per period`, categories: ['period'], series: [{ key: 'value', label: humanize(result.measure.name), ...(currency ? { splitBy: 'currency', splitBlank: 'no currency' } : {}) }], ...(currency ? { unitField: 'currency' } : {}) };
  }
  return { caption: `Read ${result.measure.name} per period in ${input.source}`, views: [view] };
}
