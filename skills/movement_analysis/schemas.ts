/**
 * Zod schemas of the movement_analysis tools: what they accept (periods as a value or a range,
 * with the shared length limits) and what they return (totals per currency, ranked movements).
 */
import { z } from 'zod';
import { briefForModel, filtersArgument, measureReference, nameArgument, valueArgument } from '../../src/skills/api.ts';

/** Rows a compare_periods result lists at most. */
export const MAX_MOVEMENT_ROWS = 50;
/** Groups each side may have; beyond it the result says it is truncated. */
export const MAX_GROUPS = 2_000;

/** One side of a comparison: a period ("2024011", "November 2024", "Q4 2024") or an inclusive range. */
export const periodArgument = z
  .union([valueArgument().min(1), z.strictObject({ from: valueArgument().min(1), to: valueArgument().min(1) })])
  .describe('a period ("2024011", "November 2024"), a span ("Q3 2024") or {"from","to"}');

export const comparePeriodsInput = z.strictObject({
  source: nameArgument().describe('e.g. fi_reporting'),
  measure: nameArgument().optional().describe("default: the source's first default measure"),
  period_a: briefForModel(periodArgument).describe('the earlier side: "2024011", "Q3 2024" or {"from","to"}'),
  period_b: briefForModel(periodArgument).describe('the later side'),
  group_by: z.array(nameArgument()).max(4).optional().describe('e.g. ["group_account"]; none: totals only'),
  filters: filtersArgument(),
  limit: z.number().int().min(1).max(MAX_MOVEMENT_ROWS).optional().describe(`default 10, at most ${MAX_MOVEMENT_ROWS}`),
});

export const periodTrendInput = z.strictObject({
  source: nameArgument().describe('e.g. fi_reporting'),
  measure: nameArgument().optional().describe("default: the source's first default measure"),
  periods: briefForModel(periodArgument.optional()).describe('e.g. "2024" or {"from","to"}; default: all'),
  filters: filtersArgument(),
});

const range = z.object({ from: z.string(), to: z.string() });

/** Totals of one currency (no `currency` for measures without one). */
export const movementTotal = z.object({
  currency: z.string().optional(),
  total_a: z.number(),
  total_b: z.number(),
  change: z.number(),
  change_percent: z.number().nullable(),
});

/** One group's movement: its dimension values, both sides, the change and its part of the net change. */
export const movementRow = z.looseObject({
  a: z.number(),
  b: z.number(),
  change: z.number(),
  change_percent: z.number().nullable().describe('change relative to |A|; null when A is 0'),
  share_percent: z.number().nullable().describe("signed share of its currency's net change; null when the net change is 0"),
  role: z.enum(['driver', 'offset', 'unchanged']),
  status: z.enum(['new', 'gone', 'changed', 'unchanged']),
});

export const comparePeriodsOutput = z.object({
  source: z.string(),
  measure: measureReference,
  period_a: range,
  period_b: range,
  label_a: z.string(),
  label_b: z.string(),
  group_by: z.array(z.string()),
  filters: z.record(z.string(), z.unknown()),
  totals: z.array(movementTotal),
  rows: z.array(movementRow),
  row_count: z.number(),
  total_rows: z.number(),
  driver_count: z.number(),
  offset_count: z.number(),
  truncated: z.boolean(),
  interpretation: z.string(),
  notes: z.array(z.string()).optional(),
});

export const trendRow = z.object({
  period: z.string(),
  currency: z.string().optional(),
  value: z.number(),
  change: z.number().nullable(),
  change_percent: z.number().nullable(),
});

export const periodTrendOutput = z.object({
  source: z.string(),
  measure: measureReference,
  filters: z.record(z.string(), z.unknown()),
  rows: z.array(trendRow),
  largest_changes: z.array(z.object({ currency: z.string().optional(), from: z.string(), to: z.string(), change: z.number(), change_percent: z.number().nullable() })),
  interpretation: z.string(),
  notes: z.array(z.string()).optional(),
});

export type ComparePeriodsResult = z.infer<typeof comparePeriodsOutput>;
export type PeriodTrendResult = z.infer<typeof periodTrendOutput>;
export type MovementRow = z.infer<typeof movementRow>;
