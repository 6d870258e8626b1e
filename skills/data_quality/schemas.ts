/**
 * The output schemas of the data_quality tools. Their rows carry the source's own dimension
 * names, so rows are open records; the fields every result has are typed.
 */
import { z } from 'zod';
import { measureReference } from '../../src/skills/api.ts';

const filters = z.record(z.string(), z.unknown()).describe('filters as applied, defaults included');
const rows = z.array(z.record(z.string(), z.unknown()));
/** Fields every data_quality result has: the source, the filters, a one-line finding. */
const common = {
  source: z.string(),
  filters,
  finding: z.string().describe('what the check found, in one sentence'),
  notes: z.array(z.string()).optional(),
  sql: z.string(),
};

export const duplicatesOutput = z.object({
  ...common,
  key: z.array(z.string()),
  ignore: z.array(z.string()),
  measure: measureReference.nullable(),
  duplicate_groups: z.number(),
  duplicate_records: z.number(),
  extra_copies: z.number(),
  totals: z.array(z.object({ currency: z.string().nullable().optional(), groups: z.number(), records: z.number(), amount: z.number().nullable(), duplicated_amount: z.number().nullable() })),
  patterns: rows,
  groups: rows,
  truncated: z.boolean(),
});

export const blanksOutput = z.object({
  ...common,
  rows_checked: z.number(),
  dimensions_checked: z.array(z.string()),
  dimensions: z.array(
    z.looseObject({
      dimension: z.string(),
      blank_rows: z.number(),
      null_rows: z.number(),
      empty_rows: z.number(),
      placeholder_rows: z.number(),
      blank_allowed: z.boolean(),
    }),
  ),
  clean_dimensions: z.array(z.string()),
});

const outlierRule = z.enum(['robust_score', 'below_half_median']);

/** One flagged period: the series' dimension values, its figures, and the rules that flagged it. */
const outlierPeriod = z.looseObject({
  period: z.string(),
  value: z.number(),
  median: z.number(),
  score: z.number(),
  direction: z.enum(['high', 'low']),
  flagged_by: z
    .array(z.object({ rule: outlierRule, measured: z.number().describe('|score|'), threshold: z.number(), share_of_median: z.number().optional().describe('below_half_median: value / median') }))
    .min(1),
  flag_reason: z.string().describe("the rules in words, e.g. 'robust score 4.25 ≥ 3.5'"),
});

export const outliersOutput = z.object({
  ...common,
  measure: measureReference,
  by: z.array(z.string()),
  threshold: z.number().describe('the robust_score threshold'),
  method: z.string(),
  rules: z.array(z.object({ rule: outlierRule, threshold: z.number(), description: z.string() })).describe('every rule that can flag a period, with its threshold'),
  series_checked: z.number(),
  periods_checked: z.number(),
  outliers: z.array(outlierPeriod),
  outlier_count: z.number(),
  truncated: z.boolean(),
  multiple_load_requests: rows.optional(),
});
