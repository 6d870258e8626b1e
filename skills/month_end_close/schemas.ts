/** Output schemas of the close tools (GET /skills publishes them; the tests parse every result). */
import { z } from 'zod';

const status = z.enum(['tie', 'within_tolerance', 'break', 'error']);
const total = z.object({ currency: z.string().optional(), total_a: z.number(), total_b: z.number(), difference: z.number(), difference_percent: z.number().nullable() });
const periodResult = z.object({
  period: z.string(),
  status,
  totals: z.array(total),
  counts: z.object({ aligned_rows: z.number(), differing: z.number(), only_in_a: z.number(), only_in_b: z.number() }),
  differences: z.array(z.object({ key: z.record(z.string(), z.unknown()), a: z.number().nullable(), b: z.number().nullable(), difference: z.number(), status: z.string() })),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});
export const openItem = z.object({
  period: z.string(),
  key: z.record(z.string(), z.unknown()),
  difference: z.number(),
  open_since_run: z.string().describe('the run that first saw it'),
  open_since: z.string().describe('ISO time of that run'),
  age_days: z.number().describe('days between that run and the latest'),
  statement: z.string(),
});
const signoff = z.object({ period: z.string(), state: z.enum(['signed', 'reopened']), by: z.string(), at: z.string(), note: z.string(), run: z.string(), reopened_by_run: z.string().optional() });

export const runOutput = z.object({
  check: z.string(),
  id: z.string(),
  run: z.string(),
  status,
  previous_status: status.nullable(),
  trigger: z.enum(['schedule', 'manual']),
  by: z.string(),
  started_at: z.string(),
  duration_ms: z.number(),
  periods: z.array(periodResult),
  open_items: z.array(openItem),
  reopened: z.array(z.object({ period: z.string(), signed_by: z.string() })).optional(),
  schedule: z.string().nullable(),
  next_due_at: z.string().nullable(),
  interpretation: z.string(),
});

export const checkSummary = z.object({
  check: z.string(),
  id: z.string(),
  status: z.enum(['tie', 'within_tolerance', 'break', 'error', 'never_run']),
  last_run: z.string().nullable(),
  last_run_at: z.string().nullable(),
  differences: z.array(z.object({ period: z.string(), currency: z.string().optional(), difference: z.number() })),
  open_items: z.number(),
  oldest_open_days: z.number().nullable().describe('days the oldest open difference has been open, at the latest run'),
  error: z.string().nullable().describe('why the latest run failed, when it did'),
  signoffs: z.array(signoff),
  schedule: z.string().nullable(),
  next_due_at: z.string().nullable(),
  owner: z.string().nullable(),
  comparison: z.string(),
});
export const checkListOutput = z.object({ checks: z.array(checkSummary), counts: z.record(z.string(), z.number()) });

export const historyOutput = z.object({
  check: z.string(),
  id: z.string(),
  schedule: z.string().nullable(),
  runs: z.array(z.object({ run: z.string(), at: z.string(), status, trigger: z.enum(['schedule', 'manual']), by: z.string(), periods: z.array(periodResult.pick({ period: true, status: true, totals: true, error: true })) })),
  trend: z.array(z.object({ at: z.string(), period: z.string(), currency: z.string().optional(), difference: z.number() })).describe('the difference per run, oldest first: a small chart'),
  open_items: z.array(openItem),
  closed_items: z.number(),
  signoffs: z.array(signoff),
  interpretation: z.string(),
});

export const signOffOutput = z.object({ check: z.string(), period: z.string(), run: z.string(), status, signed_by: z.string(), signed_at: z.string(), note: z.string() });
