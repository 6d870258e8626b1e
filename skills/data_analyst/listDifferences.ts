/**
 * list_differences: pages through the differences of an earlier comparison by its id,
 * without recomputing it.
 */
import { z } from 'zod';
import { defineTool, nameArgument } from '../../src/skills/api.ts';
import { recallComparison } from './comparisonStore.ts';
import { presentDifferences } from './presentations.ts';
import { differenceRow } from './schemas.ts';
import { describeDifferences } from './summaries.ts';

const statuses = ['minor_diff', 'major_diff', 'only_in_a', 'only_in_b'] as const;

export const listDifferences = defineTool({
  name: 'list_differences',
  description: 'Page through the differing rows of an earlier comparison, largest first.',
  input: z.strictObject({
    comparison_id: nameArgument(),
    offset: z.number().int().min(0).default(0),
    limit: z.number().int().min(1).max(100).default(20),
    status: z.array(z.enum(statuses)).min(1).optional(),
  }),
  output: z.object({
    comparison_id: z.string(),
    source_a: z.string(),
    source_b: z.string(),
    offset: z.number(),
    rows: z.array(differenceRow),
    has_more: z.boolean(),
    differing_rows: z.number(),
    note: z.string().optional(),
  }),
  handler: async ({ comparison_id, offset, limit, status }, context) => {
    const { result } = await recallComparison(context, comparison_id);
    const rows = result.top_differences.filter((row) => !status || status.includes(row.status as (typeof statuses)[number]));
    const summary = result.summary as Record<string, number>;
    const differing = statuses.reduce((sum, s) => sum + (status && !status.includes(s) ? 0 : (summary[s] ?? 0)), 0);
    return {
      comparison_id,
      source_a: String(result.source_a),
      source_b: String(result.source_b),
      offset,
      rows: rows.slice(offset, offset + limit),
      has_more: offset + limit < rows.length,
      differing_rows: differing,
      ...(differing > rows.length ? { note: `Only the ${rows.length} largest of ${differing} differing rows are kept; narrow the comparison's filters to see the rest.` } : {}),
    };
  },
  summarize: describeDifferences,
  present: presentDifferences,
});
