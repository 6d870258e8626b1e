/**
 * The questions the offline model answers with the close tools: "save a monthly check of FI
 * against BPC for company 3000 on the 3rd working day", "which checks broke this month?",
 * "show the history of the FI vs BPC check for 3000".
 */
import { calendarMonthOf, commonMeasure, defineQuestionForm, failedStep, scopeOn, type CompletedCall } from '../../src/skills/api.ts';

const ORDINALS = ['1st', '2nd', '3rd', '4th', '5th', '6th', '7th', '8th', '9th', '10th', 'first', 'second', 'third', 'fourth', 'fifth'];

export const saveCheckForm = defineQuestionForm({
  name: 'save_check',
  intents: {
    // Only phrases about saving a check: "monthly" or "every month" alone ask for a trend or a breakdown.
    save_check: ['save', 'save this', 'save it', 'save a check', 'save a monthly check', 'save a daily check', 'monthly check', 'daily check', 'as a check', 'as a monthly check', 'working day', 'last working day', ...ORDINALS.map((ordinal) => `${ordinal} working day`)],
  },
  examples: ['Save a monthly check of FI against BPC for company 3000 on the 3rd working day'],
  score: (q) => (q.intents.has('save_check') && q.sources.length >= 2 && /\b(save|check)\b/i.test(q.text) ? 14 : 0),
  plan: (q, done, context) => {
    if (done.length) return failedStep(done) ?? { answer: savedAnswer(done[0]!) };
    const [a, b] = q.sources as [string, string];
    const sourceA = context.catalog.sources.get(a)!;
    const sourceB = context.catalog.sources.get(b)!;
    const { period, ...shared } = q.filters;
    const scopeA = scopeOn(sourceA, shared);
    const scopeB = scopeOn(sourceB, shared);
    const problem = scopeA.problem ?? scopeB.problem;
    if (problem) return { clarify: problem };
    const measure = commonMeasure(context.catalog, a, b, q.measure);
    if (!measure) return { clarify: q.measure ? `${q.measure} is not a measure of both ${a} and ${b}.` : `${a} and ${b} have no measure in common.` };
    const fixed = typeof period === 'string' ? calendarMonth(period, context.catalog.fiscalYearStart) : undefined;
    const filterText = Object.entries(shared).map(([name, value]) => `${name} ${Array.isArray(value) ? value.join('/') : String(value)}`).join(' ');
    const args = {
      name: `${a} vs ${b}${filterText ? ` ${filterText}` : ''}`,
      comparison: { source_a: a, source_b: b, measure, ...(Object.keys(shared).length ? { filters: shared } : {}) },
      period: fixed ? { kind: 'fixed', period: fixed } : { kind: 'previous_month' },
      schedule: scheduleOf(q.text),
    };
    return { toolCalls: [{ name: 'save_check', args }] };
  },
});

export const listChecksForm = defineQuestionForm({
  name: 'list_checks',
  intents: {
    checks: ['which checks', 'what checks', 'my checks', 'saved checks', 'the checks', 'checks', 'list checks', 'list the checks', 'status of the checks'],
    // Not "break" or "breaks": those ask for a breakdown ("break it down by account").
    broke: ['broke', 'broken'],
  },
  examples: ['Which checks broke this month?'],
  // "This month" is the checks' latest runs: a monthly check's latest run is this month's.
  readsRelativePeriods: true,
  score: (q) => (q.intents.has('checks') && !q.intents.has('check_history') && !q.intents.has('save_check') && /\bchecks\b/i.test(q.text) ? 14 : 0),
  plan: (q, done) => {
    if (done.length) return failedStep(done) ?? { answer: listAnswer(done[0]!.result) };
    return { toolCalls: [{ name: 'list_checks', args: q.intents.has('broke') ? { status: 'break' } : {} }] };
  },
});

export const checkHistoryForm = defineQuestionForm({
  name: 'check_history',
  intents: { check_history: ['history of the', 'history', 'check history', 'runs of the', 'past runs'] },
  // Only the history of a check: "the history of revenue" is a trend, another form's.
  examples: ['Show the history of the FI vs BPC check for 3000'],
  score: (q) => (q.intents.has('check_history') && /\bcheck\b/i.test(q.text) ? 14 : 0),
  plan: (q, done) => {
    if (done.length === 0) return { toolCalls: [{ name: 'list_checks', args: {} }] };
    const failed = failedStep(done);
    if (failed) return failed;
    if (done.length === 1) {
      const checks = (done[0]!.result.checks ?? []) as { check: string; comparison: string }[];
      const wanted = (check: { comparison: string }) => q.sources.every((source) => check.comparison.includes(source)) && Object.values(q.filters).flat().every((value) => check.comparison.includes(String(value)));
      const matching = checks.filter(wanted);
      if (matching.length !== 1) {
        return { clarify: checks.length ? `Which check? ${matching.length ? 'These fit' : 'I have'}: ${(matching.length ? matching : checks).map((check) => check.check).join('; ')}.` : 'No check is saved yet.' };
      }
      return { toolCalls: [{ name: 'check_history', args: { check: matching[0]!.check } }] };
    }
    return { answer: historyAnswer(done[1]!.result) };
  },
});

export const questions = [saveCheckForm, listChecksForm, checkHistoryForm];

function savedAnswer(call: CompletedCall): string {
  const result = call.result;
  return `Saved the check "${result.check}"${result.schedule ? `, ${result.schedule}` : ' (it runs when asked)'}. ${result.interpretation}`;
}

function listAnswer(result: { checks: { check: string; status: string; differences: { period: string; currency?: string; difference: number }[]; open_items: number; oldest_open_days: number | null; signoffs: { period: string; state: string; by: string }[] }[] }): string {
  if (result.checks.length === 0) return 'No check fits: none is saved with that status.';
  return result.checks
    .map((check) => {
      const differences = check.differences.filter((entry) => entry.difference !== 0).map((entry) => `${entry.period} ${entry.currency ?? ''} ${entry.difference.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`.replace(/\s+/g, ' '));
      const open = check.open_items ? `, ${check.open_items} open (oldest ${check.oldest_open_days} days)` : '';
      const signed = check.signoffs.map((signoff) => `${signoff.period} ${signoff.state === 'signed' ? 'signed off' : 're-opened'} (${signoff.by})`).join(', ');
      return `- ${check.check}: ${check.status.replace('_', ' ')}${differences.length ? `, difference ${differences.join(', ')}` : ''}${open}${signed ? `; ${signed}` : ''}`;
    })
    .join('\n');
}

function historyAnswer(result: { interpretation: string; runs: { at: string; status: string }[]; open_items: { statement: string }[] }): string {
  const runs = result.runs.map((run) => `- ${run.at.slice(0, 10)}: ${run.status.replace('_', ' ')}`).join('\n');
  const open = result.open_items.length ? `\nOpen: ${result.open_items.map((item) => item.statement).join('; ')}.` : '';
  return `${result.interpretation}\n${runs}${open}`;
}

/** "on the 3rd working day", "last working day", "daily", "every day on weekdays"; default: monthly on the 1st working day. */
function scheduleOf(text: string): Record<string, unknown> {
  const lower = text.toLowerCase();
  if (/\blast working day\b/.test(lower)) return { kind: 'monthly_working_day', day: -1 };
  const ordinal = /\b(\d{1,2})(?:st|nd|rd|th) working day\b/.exec(lower) ?? /\b(first|second|third|fourth|fifth) working day\b/.exec(lower);
  if (ordinal) return { kind: 'monthly_working_day', day: /\d/.test(ordinal[1]!) ? Number(ordinal[1]) : ['first', 'second', 'third', 'fourth', 'fifth'].indexOf(ordinal[1]!) + 1 };
  if (/\b(daily|every day)\b/.test(lower)) return { kind: 'daily', ...(/\bweekdays?\b/.test(lower) ? { weekdays_only: true } : {}) };
  return { kind: 'monthly_working_day', day: 1 };
}

/** A period the question named, as the month YYYY-MM a fixed rule takes (undefined for a span). */
function calendarMonth(period: string, fiscalYearStart: number): string | undefined {
  const month = calendarMonthOf(period, fiscalYearStart);
  return month ? `${month.year}-${String(month.month).padStart(2, '0')}` : undefined;
}


