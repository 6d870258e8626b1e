/**
 * What the close tools answer, built from the stored check, runs, items and sign-offs: plain
 * figures plus one sentence per fact a person reads ("open since the October run, 34 days").
 */
import { describePeriod, describeRule, formatAmount } from '../../src/skills/api.ts';
import type { StoredCheck } from './checkDefinition.ts';
import type { StoredItem, StoredRun, StoredSignOff } from './runs.ts';

const DAY_MS = 86_400_000;

/** An open difference with its age, counted to `at` (the latest run's time). */
export function itemView(item: StoredItem, at: string) {
  const age = Math.max(0, Math.floor((Date.parse(at) - Date.parse(item.first_seen_at)) / DAY_MS));
  const firstRun = monthName(item.first_seen_at);
  const currency = typeof item.key.currency === 'string' ? item.key.currency : undefined;
  // The key as a person reads it: "company 1000, December 2024" (the currency goes with the amount).
  const key = Object.entries(item.key)
    .filter(([name]) => name !== 'currency')
    .map(([name, value]) => (name === 'period' && typeof value === 'string' && /^\d{7}$/.test(value) ? describePeriod(value) : `${name} ${value}`))
    .join(', ');
  return {
    period: item.period,
    key: item.key,
    difference: item.difference,
    open_since_run: item.first_run,
    open_since: item.first_seen_at,
    age_days: age,
    statement: `${key}: ${formatAmount(item.difference, currency)} open since the ${firstRun} run, ${age} ${age === 1 ? 'day' : 'days'}`,
  };
}

export function runView(check: StoredCheck, run: StoredRun, open: StoredItem[]) {
  const items = open.map((item) => itemView(item, run.started_at));
  return {
    check: check.name,
    id: run.check,
    run: run.run,
    status: run.status!,
    previous_status: run.previous_status ?? null,
    trigger: run.trigger,
    by: run.by,
    started_at: run.started_at,
    duration_ms: run.duration_ms ?? 0,
    periods: run.periods.map(({ period, status, totals, counts, differences, error }) => ({ period, status, totals, counts, differences: differences.slice(0, 10), ...(error ? { error } : {}) })),
    open_items: items,
    ...(run.reopened ? { reopened: run.reopened } : {}),
    schedule: scheduleText(check),
    next_due_at: check.next_due_at,
    interpretation: [
      `${check.name}: ${statusWords(run.status!)}${run.previous_status && run.previous_status !== run.status ? ` (was ${statusWords(run.previous_status)})` : ''}.`,
      ...run.periods.map((period) => periodSentence(period)),
      ...(run.reopened ?? []).map((reopened) => `The sign-off of ${reopened.period} by ${reopened.signed_by} is re-opened: the figures changed.`),
      ...(items.length ? [`${items.length} open ${items.length === 1 ? 'difference' : 'differences'}; the oldest ${items.reduce((oldest, item) => (item.age_days > oldest.age_days ? item : oldest)).statement}.`] : []),
    ].join(' '),
  };
}

export function checkView(id: string, check: StoredCheck, last: StoredRun | undefined, open: StoredItem[], signoffs: StoredSignOff[]) {
  const at = last?.started_at ?? check.created_at;
  const ages = open.map((item) => itemView(item, at).age_days);
  return {
    check: check.name,
    id,
    status: last?.status ?? ('never_run' as const),
    last_run: last?.run ?? null,
    last_run_at: last?.started_at ?? null,
    differences: (last?.periods ?? []).flatMap((period) => period.totals.map((total) => ({ period: period.period, ...(total.currency ? { currency: total.currency } : {}), difference: total.difference }))),
    open_items: open.length,
    oldest_open_days: ages.length ? Math.max(...ages) : null,
    error: last?.periods.find((period) => period.error)?.error?.message ?? null,
    signoffs: signoffs.map(signoffView),
    schedule: scheduleText(check),
    next_due_at: check.next_due_at,
    owner: check.owner?.name ?? null,
    comparison: `${check.comparison.source_a} vs ${check.comparison.source_b}${check.comparison.filters ? ` (${Object.entries(check.comparison.filters as Record<string, unknown>).map(([name, value]) => `${name} ${Array.isArray(value) ? value.join('/') : String(value)}`).join(', ')})` : ''}`,
  };
}

export function historyView(id: string, check: StoredCheck, runs: StoredRun[], items: StoredItem[], signoffs: StoredSignOff[]) {
  const at = runs[0]?.started_at ?? check.created_at;
  const open = items.filter((item) => item.state === 'open').map((item) => itemView(item, at));
  const trend = [...runs].reverse().flatMap((run) => run.periods.flatMap((period) => period.totals.map((total) => ({ at: run.started_at, period: period.period, ...(total.currency ? { currency: total.currency } : {}), difference: total.difference }))));
  return {
    check: check.name,
    id,
    schedule: scheduleText(check),
    runs: runs.map((run) => ({ run: run.run, at: run.started_at, status: run.status!, trigger: run.trigger, by: run.by, periods: run.periods.map(({ period, status, totals, error }) => ({ period, status, totals, ...(error ? { error } : {}) })) })),
    trend,
    open_items: open,
    closed_items: items.filter((item) => item.state === 'closed').length,
    signoffs: signoffs.map(signoffView),
    interpretation: runs.length
      ? `${check.name}: ${runs.length} ${runs.length === 1 ? 'run' : 'runs'}, the latest ${statusWords(runs[0]!.status!)} on ${runs[0]!.started_at.slice(0, 10)}; ${open.length} open ${open.length === 1 ? 'difference' : 'differences'}.`
      : `${check.name} has not run yet.`,
  };
}

function signoffView(signoff: StoredSignOff) {
  return { period: signoff.period, state: signoff.state, by: signoff.by, at: signoff.at, note: signoff.note, run: signoff.run, ...(signoff.reopened_by_run ? { reopened_by_run: signoff.reopened_by_run } : {}) };
}

function periodSentence(period: StoredRun['periods'][number]): string {
  if (period.error) return `${period.period}: the comparison failed (${period.error.message}).`;
  const totals = period.totals.map((total) => `${total.currency ?? ''} ${formatAmount(total.difference)}`.trim()).join(', ');
  return `${period.period}: ${statusWords(period.status)}, difference ${totals || '0'}${period.counts.differing ? ` on ${period.counts.differing} of ${period.counts.aligned_rows} aligned rows` : ''}.`;
}

const statusWords = (status: string) => ({ tie: 'ties', within_tolerance: 'within tolerance', break: 'breaks', error: 'failed' })[status] ?? status;

function scheduleText(check: StoredCheck): string | null {
  return check.schedule ? describeRule(check.schedule, { timeZone: check.time_zone, holidays: check.holidays ?? [] }) : null;
}

function monthName(iso: string): string {
  return new Date(iso).toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' });
}
