/**
 * Zod pieces the data_analyst tools' output schemas share: applied filters, a comparison's
 * summary and its difference rows. Rows keep their dimension fields open (their names come
 * from the catalog), so those parts are loose objects.
 */
import { z } from 'zod';
import { measureReference } from '../../src/skills/api.ts';

/** Filters as a result reports them: dimension → a value, null, a list or a range. */
export const appliedFilters = z.record(z.string(), z.unknown()).describe('filters as applied, normalised (periods as YYYYPPP), defaults included');

/** Totals of one currency of a comparison (no `currency` for amounts without one). */
export const comparisonTotal = z.object({
  currency: z.string().optional(),
  total_a: z.number(),
  total_b: z.number(),
  difference: z.number(),
  difference_percent: z.number().nullable(),
});

/** Aligned rows by status, and the totals per currency. */
export const comparisonSummary = z.object({
  aligned_rows: z.number(),
  match: z.number(),
  minor_diff: z.number(),
  major_diff: z.number(),
  only_in_a: z.number(),
  only_in_b: z.number(),
  totals: z.array(comparisonTotal),
});

/** Listed filter values no row of the source holds: left out of the figures, said rather than counted as 0. */
export const valuesNotHeld = z
  .array(
    z.object({
      side: z.enum(['a', 'b']).optional(),
      code: z.enum(['value_not_held', 'unknown_value']),
      dimension: z.string(),
      value: z.string().nullable(),
      held_by: z.array(z.string()).describe('sources that hold the value, most alike first'),
      statement: z.string(),
    }),
  )
  .describe('listed filter values no row holds (the figures cover the other listed values)');

/** One aligned row that differs: its key (dimension fields), both sides, the difference and its status. */
export const differenceRow = z.looseObject({
  a: z.number().nullable(),
  b: z.number().nullable(),
  difference: z.number(),
  difference_percent: z.number().nullable(),
  status: z.string(),
});

const band = z.object({ absolute: z.number(), percent: z.number() });
/** The thresholds a comparison classified its rows with. */
export const thresholdsSchema = z.object({ match: band, minor: band });

/** What compare() returns; compare_sources adds its id and a pointer to the rest of the differences. */
export const comparisonOutput = z.object({
  source_a: z.string(),
  source_b: z.string(),
  measure_a: measureReference,
  measure_b: measureReference,
  align_on: z.array(z.string()),
  filters_a: appliedFilters,
  filters_b: appliedFilters,
  thresholds: thresholdsSchema,
  summary: comparisonSummary,
  top_differences: z.array(differenceRow),
  interpretation: z.string(),
  sides_without_rows: z.array(z.enum(['a', 'b'])).optional().describe('sides with no row for their filters: no total of 0.00, nothing to reconcile'),
  values_not_held: valuesNotHeld.optional(),
  notes: z.array(z.string()).optional(),
  merged_by: z
    .object({
      method: z.enum(['row_merge', 'checksum_bisection']),
      passes: z.number().describe('rounds of segment checksums compared, plus the row merge when it ran (1 alone; 2 when a first pass handed over)'),
      segments_compared: z.number().describe('segment checksums read from both sides'),
      rows_read: z.number().describe('per-key rows read from both sides'),
    })
    .optional()
    .describe('sides on two engines: every key streamed and merged, or checksum bisection (only differing segments read)'),
});

const key = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));
const contribution = z.object({ value: z.string().nullable(), a: z.number().nullable(), b: z.number().nullable(), difference: z.number(), share_percent: z.number(), role: z.enum(['driver', 'offset']) });
const item = z.looseObject({ difference: z.number(), share_percent: z.number(), status: z.string() });

/** What explain_difference returns: the gap, what accounts for it, and the explanation in words. */
export const explanationOutput = z.object({
  key: z.record(z.string(), z.string().nullable()).optional().describe('the aligned row explained ({} for the net of all rows)'),
  target: z.enum(['row', 'net']).optional(),
  gap: z.object({ currency: z.string().nullable(), total_a: z.number(), total_b: z.number(), difference: z.number() }).optional(),
  rows: z.object({ aligned: z.number(), differing: z.number() }).optional(),
  cause: z.enum(['duplicated_load', 'uniform_rate', 'single_value', 'drivers', 'none']).optional(),
  by_dimension: z
    .array(z.object({ dimension: z.string(), values_compared: z.number(), explains_percent: z.number(), uniform_percent: z.number().optional(), values: z.array(contribution), driver_count: z.number(), offset_count: z.number() }))
    .optional(),
  items: z.object({ dimensions: z.array(z.string()), drivers: z.array(item), offsets: z.array(item) }).optional(),
  duplicated_load: z
    .object({
      source: z.string(),
      side: z.enum(['a', 'b']),
      other_source: z.string(),
      dimension: z.string(),
      load_requests: z.array(z.string().nullable()),
      original_load_requests: z.array(z.string().nullable()),
      lines: z.number(),
      copies: z.number(),
      document_dimension: z.string().optional(),
      documents: z.number().optional(),
      amount: z.number(),
      explains_percent: z.number(),
      once_in_other_source: z.boolean().optional(),
      examples: z.array(key),
    })
    .optional(),
  one_sided: z.array(z.object({ source: z.string(), dimension: z.string(), value: z.string().nullable(), amount: z.number(), difference_of: key.optional() })).optional(),
  explanation: z.string(),
  summary: comparisonSummary.optional(),
});
