/**
 * find_outlier_periods: periods whose total deviates sharply from the other periods of the
 * same series (e.g. one company's monthly amounts), scored robustly against the median, ranked,
 * with the expected range and the rule that flagged each (outliers.ts). Also reports periods
 * loaded by more load requests than usual.
 */
import { z } from 'zod';
import { checkFilterValuesExist, defineTool, describePeriod, distinctValues, filtersArgument, findMeasure, formatAmount, measureUnit, nameArgument, periodDimension, roundAmount, ToolError, type Condition, type Dimension, type Measure, type Source, type ToolContext } from '../../src/skills/api.ts';
import { periodTotals, type PeriodTotal } from './periodTotals.ts';
import { findingSummary, presentOutliers } from './presentations.ts';
import { outliersOutput } from './schemas.ts';
import { DEFAULT_OUTLIER_THRESHOLD, DEFAULT_OUTLIERS, MAX_OUTLIERS, MAX_PERIOD_ROWS, HALF_MEDIAN_SCORE_MARGIN, MIN_DEVIATION_PERCENT, MIN_PERIODS } from './limits.ts';
import { HALF_MEDIAN_SHARE, median, ruleShort, ruleText, scoreSeries, type OutlierRules, type ScoredPoint } from './outliers.ts';
import { describeValues, listText, named, plural, resolveDimensions, resolveScope, technicalDimensions } from './scope.ts';

const input = z.strictObject({
  source: nameArgument().describe('e.g. fi_reporting'),
  measure: nameArgument().optional().describe("default: the source's default measure"),
  filters: filtersArgument('e.g. {"company":"1000"}; a period range limits the periods compared'),
  by: z.array(nameArgument()).max(4).optional().describe('one series per value, e.g. ["company"]'),
  threshold: z.number().min(1).max(50).optional().describe(`robust score flagged from (default ${DEFAULT_OUTLIER_THRESHOLD}); lower finds more; a period under half the median is flagged from one less`),
  limit: z.number().int().positive().optional().describe(`default ${DEFAULT_OUTLIERS}, at most ${MAX_OUTLIERS}`),
});

/** Distinct periods read from the source to find periods without any rows. */
const MAX_KNOWN_PERIODS = 1000;

/** The cut-offs for a given robust-score threshold. */
const rulesFor = (threshold: number): OutlierRules => ({ threshold, minDeviationPercent: MIN_DEVIATION_PERCENT, halfMedianThreshold: Math.max(1, threshold - HALF_MEDIAN_SCORE_MARGIN) });

/** The two rules in words, with their thresholds: what `flagged_by` of each outlier refers to. */
function rulesOf(rules: OutlierRules) {
  return [
    {
      rule: 'robust_score' as const,
      threshold: rules.threshold,
      description:
        `score = (total − median) / (1.4826 × MAD): the period's distance from the series' median in robust standard deviations (MAD: median absolute deviation; 1.2533 × the mean absolute deviation when more than half the periods are equal). ` +
        `Flagged when |score| ≥ ${rules.threshold} and the period is at least ${rules.minDeviationPercent}% away from the median.`,
    },
    {
      rule: 'below_half_median' as const,
      threshold: rules.halfMedianThreshold,
      description:
        `Flagged when the period is under ${HALF_MEDIAN_SHARE} × the median (less than half the usual amount, zero, or the other sign: a loss month of a profitable company) and |score| ≥ ${rules.halfMedianThreshold}. ` +
        `Catches what the score misses on short seasonal series, whose spread is wide; high periods are judged by the score alone.`,
    },
  ];
}

const method = (rules: OutlierRules) =>
  `Each period's total is compared with the other periods of its series. Rule robust_score: |(total − median) / (1.4826 × MAD)| ≥ ${rules.threshold} and at least ${rules.minDeviationPercent}% from the median. ` +
  `Rule below_half_median: under half the median (or zero, or the other sign) and |score| ≥ ${rules.halfMedianThreshold}. Each outlier's flagged_by names the rules it met. Periods without rows count as 0 for summed measures.`;

export const findOutlierPeriods = defineTool({
  name: 'find_outlier_periods',
  description: 'Periods whose total deviates sharply from the other periods of the same series (robust median test), with the expected range. Use it for "which month looks wrong", "unusual periods".',
  input,
  output: outliersOutput,
  handler: async (args, context) => {
    const scope = resolveScope(context.catalog, args.source, args.filters);
    const { source, notes } = scope;
    const measure = findMeasure(source, args.measure ?? source.defaultMeasures[0] ?? [...source.measures.keys()][0]!);
    const period = periodDimension(source);
    if (!period) {
      throw new ToolError('invalid_value', `Source '${source.name}' has no period dimension, so its periods cannot be compared.`, {
        hint: 'Choose a source with a period dimension (see list_sources).',
        details: { argument: 'source', source: source.name },
      });
    }
    const by = args.by ? resolveDimensions(source, args.by, 'by') : [];
    if (by.includes(period)) {
      throw new ToolError('invalid_value', `'${period.name}' cannot be a series dimension: the periods are what is compared.`, {
        hint: `Leave '${period.name}' out of by; split by other dimensions, e.g. ["company"].`,
        details: { argument: 'by', dimension: period.name },
      });
    }
    const currency = measure.currencyDimension ? source.dimensions.get(measure.currencyDimension) : undefined;
    const series = [...by, ...(currency && !by.includes(currency) ? [currency] : [])];
    const load = technicalDimensions(source)[0];
    const threshold = args.threshold ?? DEFAULT_OUTLIER_THRESHOLD;
    const requested = args.limit ?? DEFAULT_OUTLIERS;
    if (requested > MAX_OUTLIERS) notes.push(`limit ${requested} was lowered to the maximum of ${MAX_OUTLIERS} outliers.`);
    const limit = Math.min(requested, MAX_OUTLIERS);

    const totals = await periodTotals(
      context.data,
      { table: source.table, connection: source.connection, series: series.map(named), period: named(period), measure: { function: measure.aggregation, column: measure.column }, loadColumn: load?.column, where: scope.where, limit: MAX_PERIOD_ROWS },
      context.signal,
    );
    if (totals.truncated) {
      throw new ToolError('invalid_value', `More than ${MAX_PERIOD_ROWS.toLocaleString('en-US')} series × period totals: too many series to judge at once.`, {
        hint: `Filter (e.g. one company or account) or split by fewer dimensions than ${listText(by.map((d) => `'${d.name}'`)) || 'now'}.`,
        details: { argument: 'by' },
      });
    }
    if (totals.rows.length === 0) {
      await checkFilterValuesExist(source, scope.filters.conditions, context);
      notes.push('No rows match this combination of filters (each filter value exists on its own).');
    }

    const periods = await periodsInScope(totals.rows, source, period, scope.filters.conditions, context);
    const rules = rulesFor(threshold);
    const scored = scoreAll(totals.rows, periods, measure, rules);
    if (scored.skipped > 0) notes.push(`${plural(scored.skipped, 'series')} with fewer than ${MIN_PERIODS} periods could not be judged.`);
    const flagged = scored.points.filter((p) => p.flagged).sort((x, y) => Math.abs(y.score) - Math.abs(x.score) || x.order - y.order);
    const loads = scored.points.filter((p) => p.loads !== undefined && p.usualLoads !== undefined && p.loads > p.usualLoads && p.loads > 1);
    const unit = currency ? undefined : measureUnit(measure);
    const row = (p: Scored) => ({
      ...p.series,
      period: p.period,
      value: roundAmount(p.value),
      median: p.median,
      expected_range: { low: p.low, high: p.high },
      deviation: p.deviation,
      deviation_percent: p.deviationPercent,
      score: p.score,
      direction: p.deviation > 0 ? ('high' as const) : ('low' as const),
      flagged_by: p.flaggedBy,
      flag_reason: p.flaggedBy.map(ruleText).join('; '),
      records: p.records,
      ...(p.loads !== undefined && load ? { load_requests: p.loads } : {}),
    });
    return {
      source: source.name,
      measure: { name: measure.name, unit: measureUnit(measure) },
      by: series.map((d) => d.name),
      filters: scope.filters.applied,
      threshold,
      method: method(rules),
      rules: rulesOf(rules),
      series_checked: scored.series,
      periods_checked: scored.periods.length,
      outliers: flagged.slice(0, limit).map(row),
      outlier_count: flagged.length,
      truncated: flagged.length > limit,
      ...(load ? { multiple_load_requests: loads.slice(0, limit).map((p) => ({ ...p.series, period: p.period, load_requests: p.loads, usual_load_requests: p.usualLoads })) } : {}),
      finding: finding(source.name, scope.filters.applied, by, currency, unit, scored, flagged, loads, rules, load, period.calendar?.fiscalYearStart),
      ...(notes.length ? { notes } : {}),
      sql: totals.sql,
    };
  },
  summarize: findingSummary('find_outlier_periods'),
  present: presentOutliers,
});

type Scored = ScoredPoint & { series: Record<string, string | null>; median: number; usualLoads: number | undefined; order: number; periodsInSeries: number };

/**
 * The periods to compare: those with rows in scope, plus the source's periods between the first
 * and the last of them that no series has (a period nothing was loaded for), within the period filter.
 */
async function periodsInScope(rows: PeriodTotal[], source: Source, period: Dimension, conditions: readonly Condition[], context: ToolContext): Promise<string[]> {
  const seen = [...new Set(rows.map((r) => r.period))].sort();
  if (seen.length === 0) return seen;
  const first = seen[0]!;
  const last = seen.at(-1)!;
  const filter = conditions.find((c) => c.dimension.name === period.name);
  const known = (await distinctValues(context.data, source, period.column, MAX_KNOWN_PERIODS, context.signal)).filter((p): p is string => p !== null);
  const inFilter = (p: string) =>
    !filter || (filter.kind === 'in' ? filter.values.includes(p) : (filter.from === undefined || p >= filter.from) && (filter.to === undefined || p <= filter.to));
  return [...new Set([...seen, ...known.filter((p) => p >= first && p <= last && inFilter(p))])].sort();
}

/** Groups the totals into series, fills periods without rows (0 for sums and counts), scores each series. */
function scoreAll(rows: PeriodTotal[], periods: string[], measure: Measure, rules: OutlierRules) {
  const bySeries = new Map<string, PeriodTotal[]>();
  for (const row of rows) {
    const key = JSON.stringify(row.series);
    const list = bySeries.get(key) ?? [];
    list.push(row);
    bySeries.set(key, list);
  }
  const fillsZero = measure.aggregation === 'sum' || measure.aggregation === 'count';
  const points: Scored[] = [];
  let skipped = 0;
  let order = 0;
  for (const list of bySeries.values()) {
    const present = new Map(list.map((r) => [r.period, r]));
    // A series with rows in most periods that lacks one is suspicious (nothing loaded?); a sparse one is just sparse.
    const fill = fillsZero && list.length * 2 >= periods.length;
    const seriesPoints = (fill ? periods : list.map((r) => r.period)).flatMap((p) => {
      const found = present.get(p);
      if (found) return found.value === null ? [] : [{ period: p, value: found.value, records: found.records, loads: found.loads }];
      return [{ period: p, value: 0, records: 0, loads: list[0]!.loads === undefined ? undefined : 0 }];
    });
    if (seriesPoints.length < MIN_PERIODS) {
      skipped += 1;
      continue;
    }
    const score = scoreSeries(seriesPoints, rules);
    const loadCounts = seriesPoints.flatMap((p) => (p.loads === undefined || p.records === 0 ? [] : [p.loads]));
    const usualLoads = loadCounts.length ? median(loadCounts) : undefined;
    for (const point of score.points) points.push({ ...point, series: list[0]!.series, median: score.median, usualLoads, order: order++, periodsInSeries: seriesPoints.length });
  }
  return { points, periods, series: bySeries.size - skipped, skipped };
}

function seriesText(point: Scored, by: Dimension[]): string {
  const values = Object.fromEntries(by.map((d) => [d.name, point.series[d.name] ?? null]));
  return describeValues(values);
}

/** "Flagged by robust score 4.25 ≥ 3.5.", and when only below_half_median flagged it, that the score alone would not have. */
function flaggedText(point: Scored, threshold: number): string {
  const scoreMissed = !point.flaggedBy.some((hit) => hit.rule === 'robust_score');
  return `Flagged by ${point.flaggedBy.map(ruleText).join(', and by ')}${scoreMissed ? `; its robust score alone (${Math.abs(point.score)}) stays under ${threshold}` : ''}.`;
}

const signed = (value: number, unit: string | null | undefined) => `${value > 0 ? '+' : ''}${formatAmount(value, unit)}`;

function finding(
  sourceName: string,
  filters: Record<string, unknown>,
  by: Dimension[],
  currency: Dimension | undefined,
  fixedUnit: string | undefined,
  scored: ReturnType<typeof scoreAll>,
  flagged: Scored[],
  loads: Scored[],
  rules: OutlierRules,
  load: Dimension | undefined,
  fiscalYearStart = 1,
): string {
  const periodText = (period: string) => {
    const described = describePeriod(period, fiscalYearStart);
    return described === period ? period : `${described} (${period})`;
  };
  const scope = describeValues(filters);
  const unitOf = (p: Scored) => (currency ? p.series[currency.name] ?? null : fixedUnit === 'number' || fixedUnit === 'lines' ? null : fixedUnit);
  const parts: string[] = [];
  if (scored.points.length === 0) {
    if (scored.skipped === 0) return `No periods to compare in ${sourceName}${scope ? ` for ${scope}` : ''}.`;
    return `Too few periods to compare in ${sourceName}${scope ? ` for ${scope}` : ''}: each series needs at least ${MIN_PERIODS} periods with data. Widen the period filter (the periods are compared with each other) or split by fewer dimensions.`;
  }
  const top = flagged[0];
  if (!top) {
    parts.push(
      `No period of ${sourceName}${scope ? ` for ${scope}` : ''} deviates sharply: all ${plural(scored.periods.length, 'period')}${scored.series > 1 ? ` of ${scored.series} series` : ''} lie within a robust score of ${rules.threshold} of their median (or less than ${rules.minDeviationPercent}% from it), and none under half the median reaches a score of ${rules.halfMedianThreshold}.`,
    );
  } else {
    const where = seriesText(top, by);
    const unit = unitOf(top);
    const percent = top.deviationPercent === null ? '' : `${top.deviationPercent > 0 ? '+' : ''}${top.deviationPercent.toFixed(1)}%, `;
    parts.push(
      `${periodText(top.period)}${where ? ` for ${where}` : ''} stands out in ${sourceName}${scope ? ` for ${scope}` : ''}: ${formatAmount(top.value, unit)} against a median of ${formatAmount(top.median, unit)} over ${top.periodsInSeries} periods (expected ${formatAmount(top.low, unit)} to ${formatAmount(top.high, unit)}): ${signed(top.deviation, unit)} (${percent}score ${top.score}). ${flaggedText(top, rules.threshold)}`,
    );
    const others = flagged.slice(1, 4).map((p) => `${periodText(p.period)}${by.length ? ` for ${seriesText(p, by)}` : ''} (${p.deviation > 0 ? 'high' : 'low'}, score ${p.score}: ${p.flaggedBy.map(ruleShort).join(' and ')})`);
    if (others.length) parts.push(`Also flagged: ${listText(others)}${flagged.length > 4 ? ` and ${flagged.length - 4} more` : ''}.`);
    else parts.push(`No other period is flagged${scored.series > 1 ? ` in the ${scored.series} series` : ''}.`);
  }
  if (load && loads.length) {
    const items = loads.slice(0, 3).map((p) => `${periodText(p.period)}${by.length ? ` for ${seriesText(p, by)}` : ''} was loaded by ${p.loads} ${load.name.replace(/_/g, ' ')}s (usually ${p.usualLoads})`);
    parts.push(`${listText(items)}${loads.length > 3 ? ` and ${loads.length - 3} more periods too` : ''}: check for a duplicated load with find_duplicates.`);
  }
  return parts.join(' ');
}
