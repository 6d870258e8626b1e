/**
 * compare_periods: one measure of one source in period A vs period B (months, quarters or any
 * range), split by dimensions and ranked by contribution to the change B − A. Built from two grouped
 * selects (one per period side) merged here; local-currency amounts are split by currency, never added.
 */
import { checkFilterValuesExist, defineTool, findDimension, ToolError } from '../../src/skills/api.ts';
import { interpret, mergeSides } from './movements.ts';
import { presentComparison, summarizeComparison } from './presentations.ts';
import { comparePeriodsInput, comparePeriodsOutput, MAX_GROUPS } from './schemas.ts';
import { aggregateValue, resolveScope, sideCondition, sideLabel, sideRange } from './scope.ts';

export const comparePeriods = defineTool({
  name: 'compare_periods',
  // Run by the project's output test on the sample data (see ToolDefinition.examples).
  examples: [
    { source: 'fi_reporting', period_a: '2024011', period_b: '2024012', group_by: ['group_account'], filters: { company: '1000' } },
    { source: 'fi_reporting', period_a: 'Q3 2024', period_b: 'Q4 2024', group_by: ['company'], filters: { group_account: 'G4000000' } },
    { source: 'consolidation_mart', measure: 'amount_gc', period_a: '2024011', period_b: '2024012' },
  ],
  description: 'What drove the change of a measure between two periods of one source, split by dimensions and ranked by contribution. Use it for "what drove the change from November to December".',
  input: comparePeriodsInput,
  output: comparePeriodsOutput,
  handler: async (args, context) => {
    const scope = resolveScope(context.catalog, args.source, args.measure, args.filters);
    const sideA = sideCondition(scope, args.period_a);
    const sideB = sideCondition(scope, args.period_b);
    const keys = [...new Set(args.group_by ?? [])].map((name) => findDimension(scope.source, name));
    if (keys.some((d) => d.name === scope.period.name)) {
      throw new ToolError('invalid_value', `Cannot group by '${scope.period.name}': each side is already one period or range.`, {
        hint: 'Group by another dimension (e.g. group_account), or use period_trend for a change per period.',
        details: { argument: 'group_by', dimension: scope.period.name },
      });
    }
    const groupBy = [...keys, ...(scope.currency && !keys.some((d) => d.name === scope.currency!.name) ? [scope.currency] : [])];
    const [rowsA, rowsB] = await Promise.all([aggregateValue(scope, groupBy, [sideA], context), aggregateValue(scope, groupBy, [sideB], context)]);
    const notes: string[] = [];
    for (const [rows, condition, name] of [[rowsA, sideA, 'period_a'], [rowsB, sideB, 'period_b']] as const) {
      if (rows.rows.length > 0) continue;
      // An absent value (a period, a company) is an error the model can fix; an empty combination is an answer.
      await checkFilterValuesExist(scope.source, [...scope.conditions, condition], context);
      notes.push(`No rows in ${name} for these filters: its side counts as 0.`);
    }
    if (rowsA.truncated || rowsB.truncated) notes.push(`Only the first ${MAX_GROUPS} groups of a side were read; group by fewer dimensions.`);
    const names = keys.map((d) => d.name);
    const merged = mergeSides(rowsA.rows, rowsB.rows, names, scope.currency?.name);
    const limit = args.limit ?? 10;
    const rangeA = sideRange(sideA);
    const rangeB = sideRange(sideB);
    const [labelA, labelB] = [sideLabel(rangeA), sideLabel(rangeB)];
    const shown = merged.rows.filter((row) => row.role !== 'unchanged').slice(0, limit);
    if (merged.rows.length > shown.length) notes.push(`${merged.rows.length - shown.length} of ${merged.rows.length} groups are not listed (unchanged or beyond limit ${limit}).`);
    return {
      source: scope.source.name,
      measure: { name: scope.measure.name, unit: scope.unit },
      period_a: rangeA,
      period_b: rangeB,
      label_a: labelA,
      label_b: labelB,
      group_by: names,
      filters: scope.applied,
      totals: merged.totals,
      rows: shown,
      row_count: shown.length,
      total_rows: merged.rows.length,
      driver_count: merged.rows.filter((row) => row.role === 'driver').length,
      offset_count: merged.rows.filter((row) => row.role === 'offset').length,
      truncated: merged.rows.length > shown.length || rowsA.truncated || rowsB.truncated,
      interpretation: interpret(merged, names, labelA, labelB, scope.unit),
      ...(notes.length ? { notes } : {}),
    };
  },
  summarize: summarizeComparison,
  present: presentComparison,
});
