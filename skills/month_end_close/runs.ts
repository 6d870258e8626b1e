/**
 * One run of a saved check: the comparison for each period the rule names, a status per period
 * and for the run, the differences still open carried forward with the run that first saw them,
 * a signed-off period re-opened when its figures changed, and one notification when the check's
 * status changed. Stored as records: `runs` (id `<check>|<run key>`, so a check's runs list in
 * time order), `items` (open and closed differences) and `signoffs` (one per check and period).
 */
import { createHash } from 'node:crypto';
import { RecordConflictError, ToolError, type SkillNotification, type SkillRecord, type SkillRecords, type ToolCallResult } from '../../src/skills/api.ts';
import { CHECKS, listRecords, type RunStatus, type StoredCheck, type Tolerance } from './checkDefinition.ts';
import { periodsFor } from './periods.ts';

export const RUNS = 'runs';
export const ITEMS = 'items';
export const SIGNOFFS = 'signoffs';
/** Differences listed per period: those beyond it are counted, and never closed for want of being listed. */
const LISTED_DIFFERENCES = 50;

export interface Total { currency?: string; total_a: number; total_b: number; difference: number; difference_percent: number | null }
export interface Difference { key: Record<string, unknown>; a: number | null; b: number | null; difference: number; status: string }
export interface PeriodResult {
  period: string;
  status: RunStatus;
  totals: Total[];
  counts: { aligned_rows: number; differing: number; only_in_a: number; only_in_b: number };
  differences: Difference[];
  /** Hash of the totals and counts: a later run of the period with another one re-opens its sign-off. */
  figures: string;
  error?: { code: string; message: string };
}

export interface StoredRun {
  check: string;
  run: string;
  trigger: 'schedule' | 'manual';
  by: string;
  state: 'running' | 'done';
  attempt: number;
  started_at: string;
  finished_at?: string;
  duration_ms?: number;
  status?: RunStatus;
  previous_status?: RunStatus | null;
  periods: PeriodResult[];
  reopened?: { period: string; signed_by: string }[];
}

export interface StoredItem {
  check: string;
  period: string;
  key: Record<string, unknown>;
  difference: number;
  a: number | null;
  b: number | null;
  first_run: string;
  first_seen_at: string;
  last_run: string;
  last_seen_at: string;
  state: 'open' | 'closed';
  closed_by_run?: string;
  closed_at?: string;
}

export interface StoredSignOff { check: string; period: string; run: string; by: string; at: string; note: string; figures: string; state: 'signed' | 'reopened'; reopened_by_run?: string; reopened_at?: string }

export interface RunOptions {
  records: SkillRecords;
  /** Runs compare_sources (as the check's owner for a scheduled run). */
  callTool: (name: string, input: unknown) => Promise<ToolCallResult>;
  notify?: ((notification: SkillNotification) => Promise<{ queued: boolean }>) | undefined;
  /** The time the run stands for: its slot when scheduled, now when asked. */
  at: Date;
  runKey: string;
  trigger: 'schedule' | 'manual';
  by: string;
  attempt?: number;
  /** Aborted when the run is cancelled (the service stops, the client leaves): nothing is recorded then. */
  signal?: AbortSignal | undefined;
}

/** Differences named in a notification's text: the rest are in its data. */
const NAMED_DIFFERENCES = 5;

/**
 * Runs a check (claimed by the caller) and records everything; resolves the finished run.
 * @example
 * const run = await runCheck(check, { records, callTool: context.callTool, at: new Date(), runKey: new Date().toISOString(), trigger: 'manual', by: 'anna' });
 */
export async function runCheck(check: SkillRecord<StoredCheck>, options: RunOptions): Promise<StoredRun> {
  const { records, at } = options;
  const id = `${check.id}|${options.runKey}`;
  const started = performance.now();
  const base: StoredRun = { check: check.id, run: id, trigger: options.trigger, by: options.by, state: 'running', attempt: options.attempt ?? 1, started_at: at.toISOString(), periods: [] };
  await records.put(RUNS, id, base);
  const periods: PeriodResult[] = [];
  for (const period of periodsFor(check.value.period, at, check.value.time_zone)) {
    periods.push(await comparePeriod(check.value, period, options));
    // A cancelled run is no result: it is not recorded, and its claim lapses so the slot runs again.
    if (options.signal?.aborted) throw new ToolError('timeout', `The run of '${check.value.name}' was cancelled before it finished; nothing was recorded.`, { hint: 'Run it again.' });
  }
  const status = worst(periods.map((result) => result.status));
  const previous = check.value.last?.status ?? null;
  const reopened: { period: string; signed_by: string }[] = [];
  for (const result of periods) {
    if (result.status === 'error') continue;
    await carryForward(records, check.id, id, result, at);
    const signoff = await reopenIfChanged(records, check.id, id, result, at);
    if (signoff) reopened.push({ period: result.period, signed_by: signoff.by });
  }
  const run: StoredRun = { ...base, state: 'done', status, previous_status: previous, periods, finished_at: new Date(at.getTime() + (performance.now() - started)).toISOString(), duration_ms: Math.round(performance.now() - started), ...(reopened.length ? { reopened } : {}) };
  // Queued before the run is marked done (each key is sent once, ever): a run taken up again after
  // its instance died queues the same keys, so no change goes untold and none is told twice.
  if (status !== previous && !(previous === null && (status === 'tie' || status === 'within_tolerance'))) {
    await options.notify?.(statusNotification(check.value, run, previous));
  }
  for (const { period, signed_by } of reopened) {
    await options.notify?.({ key: `${id}|reopened|${period}`, event: 'check.signoff_reopened', text: `${check.value.name}: the sign-off of ${period} by ${signed_by} was re-opened: the run of ${at.toISOString().slice(0, 10)} shows other figures.`, data: { check: check.id, run: id, period } });
  }
  await records.put(RUNS, id, run);
  return run;
}

async function comparePeriod(check: StoredCheck, period: string, options: RunOptions): Promise<PeriodResult> {
  const comparison = check.comparison as Record<string, unknown> & { filters?: Record<string, unknown>; filters_a?: Record<string, unknown>; filters_b?: Record<string, unknown> };
  const withoutPeriod = (filters: Record<string, unknown> | undefined) => (filters ? Object.fromEntries(Object.entries(filters).filter(([name]) => name !== 'period')) : undefined);
  const input = {
    ...comparison,
    filters: { ...withoutPeriod(comparison.filters), period },
    ...(comparison.filters_a ? { filters_a: withoutPeriod(comparison.filters_a) } : {}),
    ...(comparison.filters_b ? { filters_b: withoutPeriod(comparison.filters_b) } : {}),
    top: LISTED_DIFFERENCES,
  };
  const outcome = await options.callTool('compare_sources', input);
  if (!outcome.ok) {
    // A source or connection that is down is an error, never a break.
    return { period, status: 'error', totals: [], counts: { aligned_rows: 0, differing: 0, only_in_a: 0, only_in_b: 0 }, differences: [], figures: '', error: { code: outcome.error.code, message: outcome.error.message } };
  }
  const result = outcome.result as {
    align_on: string[];
    thresholds: { match: { absolute: number; percent: number } };
    summary: { aligned_rows: number; minor_diff: number; major_diff: number; only_in_a: number; only_in_b: number; totals: Total[] };
    top_differences: (Record<string, unknown> & { a: number | null; b: number | null; difference: number; status: string })[];
  };
  const { summary } = result;
  const counts = { aligned_rows: summary.aligned_rows, differing: summary.minor_diff + summary.major_diff + summary.only_in_a + summary.only_in_b, only_in_a: summary.only_in_a, only_in_b: summary.only_in_b };
  const keyFields = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).filter(([name]) => !['a', 'b', 'difference', 'difference_percent', 'status'].includes(name)));
  const differences = result.top_differences.map((row) => ({ key: keyFields(row), a: row.a, b: row.b, difference: row.difference, status: row.status }));
  const tolerance = check.tolerance ?? { absolute: result.thresholds.match.absolute, percent: result.thresholds.match.percent };
  const status: RunStatus =
    counts.differing === 0 && summary.totals.every((total) => total.difference === 0) ? 'tie' : summary.totals.every((total) => tolerated(total, tolerance)) ? 'within_tolerance' : 'break';
  const figures = createHash('sha256').update(JSON.stringify({ totals: summary.totals, counts })).digest('hex').slice(0, 16);
  return { period, status, totals: summary.totals, counts, differences, figures };
}

/** Within the currency's band (or the general one): the absolute amount, or the percent of side a. */
function tolerated(total: Total, tolerance: Tolerance): boolean {
  const band = (total.currency && tolerance.currencies?.[total.currency]) || tolerance;
  const difference = Math.abs(total.difference);
  if (band.absolute !== undefined && difference <= band.absolute) return true;
  return band.percent !== undefined && total.difference_percent !== null && Math.abs(total.difference_percent) <= band.percent;
}

const order: RunStatus[] = ['tie', 'within_tolerance', 'break', 'error'];
const worst = (statuses: RunStatus[]): RunStatus => statuses.reduce((a, b) => (order.indexOf(b) > order.indexOf(a) ? b : a), 'tie');

const itemId = (check: string, period: string, key: Record<string, unknown>) =>
  `${check}|${period}|${createHash('sha256').update(JSON.stringify(Object.entries(key).sort(([x], [y]) => x.localeCompare(y)))).digest('hex').slice(0, 16)}`;

/** Open differences keep the run that first saw them; those no longer listed (when all are listed) close with this run. */
async function carryForward(records: SkillRecords, check: string, run: string, result: PeriodResult, at: Date): Promise<void> {
  const seen = new Set<string>();
  for (const difference of result.differences) {
    const id = itemId(check, result.period, difference.key);
    seen.add(id);
    const existing = await records.get<StoredItem>(ITEMS, id);
    const open = existing?.value.state === 'open' ? existing.value : undefined;
    await records.put<StoredItem>(ITEMS, id, {
      check, period: result.period, key: difference.key, difference: difference.difference, a: difference.a, b: difference.b,
      first_run: open?.first_run ?? run, first_seen_at: open?.first_seen_at ?? at.toISOString(), last_run: run, last_seen_at: at.toISOString(), state: 'open',
    });
  }
  // Only a run that listed every difference can tell which ones are gone.
  if (result.counts.differing > result.differences.length) return;
  for (const item of await listRecords<StoredItem>(records, ITEMS, `${check}|${result.period}|`)) {
    if (item.value.state === 'open' && !seen.has(item.id)) await records.put<StoredItem>(ITEMS, item.id, { ...item.value, state: 'closed', closed_by_run: run, closed_at: at.toISOString() }, { version: item.version });
  }
}

/** A signed-off period whose figures changed is re-opened (returns the sign-off it re-opened). */
async function reopenIfChanged(records: SkillRecords, check: string, run: string, result: PeriodResult, at: Date): Promise<StoredSignOff | undefined> {
  const signoff = await records.get<StoredSignOff>(SIGNOFFS, `${check}|${result.period}`);
  if (!signoff || signoff.value.state !== 'signed' || signoff.value.figures === result.figures) return undefined;
  try {
    await records.put<StoredSignOff>(SIGNOFFS, signoff.id, { ...signoff.value, state: 'reopened', reopened_by_run: run, reopened_at: at.toISOString() }, { version: signoff.version });
  } catch (error) {
    // Signed again (or re-opened) at this very moment: the newer write stands.
    if (RecordConflictError.isInstance(error)) return undefined;
    throw error;
  }
  return signoff.value;
}

function statusNotification(check: StoredCheck, run: StoredRun, previous: RunStatus | null): SkillNotification {
  const words = (status: RunStatus | null) => (status ? status.replace('_', ' ') : 'no run');
  const differences = run.periods.flatMap((period) => period.totals.filter((total) => total.difference !== 0).map((total) => `${period.period} ${total.currency ?? ''} ${total.difference}`.replace(/\s+/g, ' ')));
  const failed = run.periods.find((period) => period.error)?.error;
  // A year to date in many currencies names a few differences; every figure is in `data`.
  const named = differences.length > NAMED_DIFFERENCES ? `${differences.slice(0, NAMED_DIFFERENCES).join(', ')} and ${differences.length - NAMED_DIFFERENCES} more` : differences.join(', ');
  const detail = run.status === 'error' ? ` (${(failed?.message ?? 'the comparison failed').slice(0, 500)})` : differences.length ? ` — difference ${named}` : '';
  return {
    key: `${run.run}|${previous ?? 'none'}>${run.status}`,
    event: 'check.status_changed',
    text: `${check.name}: ${words(previous)} → ${words(run.status!)}${detail}`,
    data: { check: run.check, run: run.run, from: previous, to: run.status, periods: run.periods.map(({ period, status, totals }) => ({ period, status, totals })) },
  };
}

/**
 * Saves the check's new last run and releases its claim (re-read on a concurrent write), only
 * while the claim is still this run's: a run that outlived its claim leaves the newer one alone.
 * Without `run.status` (a cancelled run) the claim is released and the last run kept.
 */
export async function finishCheck(records: SkillRecords, checkId: string, run: Pick<StoredRun, 'run' | 'started_at'> & { status?: RunStatus | undefined }): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const current = await records.get<StoredCheck>(CHECKS, checkId);
    if (!current || (current.value.running && current.value.running.run !== run.run)) return;
    const last = run.status ? { last: { run: run.run, status: run.status, at: run.started_at } } : {};
    try {
      await records.put<StoredCheck>(CHECKS, checkId, { ...current.value, running: null, ...last }, { version: current.version });
      return;
    } catch (error) {
      if (!RecordConflictError.isInstance(error)) throw error;
    }
  }
}
