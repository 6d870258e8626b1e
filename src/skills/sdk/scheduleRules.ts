/**
 * Schedule rules as finance teams state them — "the 3rd working day of the month at 06:00",
 * "daily at 07:30 on weekdays", a cron expression — turned into the `next(after)` that
 * defineSchedule (sdk/schedules.ts) needs and into plain words. A rule is JSON-safe, so a saved
 * check stores it as it is and a tool takes it as input (`scheduleRuleSchema`).
 *
 * Working days are Monday to Friday minus the given holidays, in the rule's time zone; "at" is
 * the wall-clock time there. On a daylight-saving change a time that does not exist moves
 * forward by the gap (02:30 becomes 03:30) and a time that occurs twice takes the first — the
 * rule Temporal calls 'compatible', and the one cron-parser follows for cron expressions.
 * Cron expressions are read by cron-parser; dates and zone offsets come from luxon.
 *
 * @example
 * defineSchedule({
 *   name: 'close_checks',
 *   next: monthlyOnWorkingDay(3, { timeZone: 'Europe/Berlin', holidays: ['2026-12-25'] }),
 *   run: async ({ records, due }) => { await records.put('runs', due.toISOString(), {}); },
 * });
 */
import { CronExpressionParser } from 'cron-parser';
import { DateTime, IANAZone } from 'luxon';
import { z } from 'zod';
import { ToolError } from '../../errors/index.ts';

/** A schedule as a user or a YAML file states it (JSON-safe, stored with a saved check). */
export type ScheduleRule =
  | { kind: 'monthly_working_day'; day: number; at?: string }
  | { kind: 'daily'; at?: string; weekdays_only?: boolean }
  | { kind: 'cron'; expression: string };

export interface RuleOptions {
  /** IANA time zone the rule's days and times are in (default 'UTC'). */
  timeZone?: string;
  /** 'YYYY-MM-DD' dates that are not working days (cron expressions ignore them). */
  holidays?: readonly string[];
}

const DEFAULT_AT = '06:00';
/** How far ahead a rule is searched before it counts as never firing: ten years. */
const MONTHS_SEARCHED = 120;
const DAYS_SEARCHED = 3_660;
const DAY_MS = 86_400_000;

const inputText = (input: unknown): string => (input === undefined ? 'nothing' : JSON.stringify(input));

const timeOfDay = z
  .string({ error: (issue) => `at must be a 24-hour time 'HH:MM' such as '06:00'; got ${inputText(issue.input)}` })
  .max(5, { error: (issue) => `at must be a 24-hour time 'HH:MM' (at most 5 characters), such as '06:00'; got ${inputText(issue.input)}` })
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, { error: (issue) => `at must be a 24-hour time 'HH:MM' from '00:00' to '23:59', such as '06:00'; got ${inputText(issue.input)}` })
  .describe(`Wall-clock time 'HH:MM' in the schedule's time zone (default '${DEFAULT_AT}').`);

const dayMessage = (issue: { input?: unknown }): string =>
  `day must be a whole number from 1 to 23 (the Nth working day of the month) or from -1 to -5 (counted from the month's end: -1 = the last working day); got ${inputText(issue.input)}`;

/** A strict object's message for a field it does not know, naming the ones it has. */
const onlyFields = (kind: string, fields: string) => ({
  error: (issue: z.core.$ZodRawIssue) =>
    issue.code === 'unrecognized_keys' ? `a '${kind}' rule has only ${fields}; unknown: ${(issue.keys as string[]).join(', ')}` : undefined,
});

/** Five fields, then whatever cron-parser refuses, in words a person can act on. */
function cronProblem(expression: string): string | undefined {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5 || fields[0] === '') {
    return `expression must be a cron expression of 5 fields (minute hour day-of-month month day-of-week), such as '0 6 * * 1-5'; got '${expression}' (${fields[0] === '' ? 0 : fields.length} fields)`;
  }
  try {
    CronExpressionParser.parse(expression, { hashSeed: expression });
    return undefined;
  } catch (error) {
    const reason = (error as Error).message;
    return /explicit day of month/i.test(reason)
      ? `the cron expression '${expression}' never fires: it names a day its months do not have (such as 30 February)`
      : `the cron expression '${expression}' is not valid: ${reason}. Fields: minute hour day-of-month month day-of-week, such as '0 6 * * 1-5'`;
  }
}

/** zod schema of ScheduleRule; its messages are read by a model and by people. */
export const scheduleRuleSchema: z.ZodType<ScheduleRule> = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({
      kind: z.literal('monthly_working_day'),
      day: z
        .number({ error: dayMessage })
        .int({ error: dayMessage })
        .min(-5, { error: dayMessage })
        .max(23, { error: dayMessage })
        .refine((day) => day !== 0, { error: dayMessage })
        .describe("The working day of the month: 1..23 (3 = the 3rd), or -1..-5 from the month's end (-1 = the last)."),
      at: timeOfDay.optional(),
    }, onlyFields('monthly_working_day', 'kind, day and at')),
    z.strictObject({
      kind: z.literal('daily'),
      at: timeOfDay.optional(),
      weekdays_only: z.boolean({ error: 'weekdays_only must be true or false' }).optional().describe('Only on working days (Monday to Friday, not holidays).'),
    }, onlyFields('daily', 'kind, at and weekdays_only')),
    z.strictObject({
      kind: z.literal('cron'),
      expression: z
        .string({ error: "expression must be a cron expression such as '0 6 * * 1-5'" })
        .max(100, { error: 'expression must be at most 100 characters' })
        .superRefine((expression, context) => {
          const problem = cronProblem(expression);
          if (problem) context.addIssue({ code: 'custom', message: problem });
        })
        .describe("Five cron fields: minute hour day-of-month month day-of-week, e.g. '0 6 * * 1-5'."),
    }, onlyFields('cron', 'kind and expression')),
  ],
  { error: (issue) => `kind must be 'monthly_working_day', 'daily' or 'cron'; got ${inputText((issue.input as { kind?: unknown } | undefined)?.kind)}` },
).describe('When a check runs: monthly on the Nth working day, daily (optionally on weekdays only), or a cron expression.');

/**
 * Whether `name` is an IANA time zone a rule (or a saved check's periods) can be in.
 * @example
 * isTimeZone('Europe/Berlin') // true
 */
export function isTimeZone(name: string): boolean {
  return IANAZone.isValidZone(name);
}

/** Checked options: the zone the rule's days and times are in, and its holidays. */
interface Calendar { zone: IANAZone; zoneName: string; holidays: ReadonlySet<string> }

function invalid(message: string, hint?: string): ToolError {
  return new ToolError('invalid_value', message, hint ? { hint } : {});
}

function checkedRule(rule: ScheduleRule): ScheduleRule {
  const parsed = scheduleRuleSchema.safeParse(rule);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => issue.message);
  throw invalid(`Invalid schedule rule: ${problems.join('; ')}.`, "E.g. { kind: 'monthly_working_day', day: 3, at: '06:00' }, { kind: 'daily', at: '07:30', weekdays_only: true } or { kind: 'cron', expression: '0 6 * * 1-5' }.");
}

function calendarOf(options: RuleOptions): Calendar {
  const zoneName = options.timeZone ?? 'UTC';
  if (typeof zoneName !== 'string' || !isTimeZone(zoneName)) {
    throw invalid(`Unknown time zone ${inputText(zoneName)}: a schedule's time zone is an IANA name.`, "E.g. 'Europe/Berlin', 'America/New_York' or 'UTC'.");
  }
  const holidays = options.holidays ?? [];
  if (!Array.isArray(holidays)) throw invalid("holidays must be a list of 'YYYY-MM-DD' dates.");
  for (const holiday of holidays) {
    // The pattern keeps '2026-12-1' and timestamps out; luxon refuses dates like 2026-02-30.
    if (typeof holiday !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(holiday) || !DateTime.fromISO(holiday, { zone: 'utc' }).isValid) {
      throw invalid(`Invalid holiday ${inputText(holiday)}: a holiday is a calendar date 'YYYY-MM-DD' that exists, such as '2026-12-25'.`);
    }
  }
  return { zone: IANAZone.create(zoneName), zoneName, holidays: new Set(holidays) };
}

function isWorkingDay(date: DateTime, calendar: Calendar): boolean {
  return date.weekday <= 5 && !calendar.holidays.has(date.toISODate()!);
}

/** The calendar date (as a UTC midnight, so adding days never meets a DST change) of `instant` in the zone. */
function localDate(instant: Date, calendar: Calendar): DateTime {
  const local = DateTime.fromJSDate(instant, { zone: calendar.zone });
  return DateTime.utc(local.year, local.month, local.day);
}

/** The instant a wall-clock time on a date has in the zone: a gap moves it forward, an overlap takes the first. */
function zonedInstant(date: DateTime, at: string, calendar: Calendar): Date {
  const [hour, minute] = at.split(':').map(Number) as [number, number];
  const wall = Date.UTC(date.year, date.month - 1, date.day, hour, minute);
  // The offsets a day before and after cover any one change near the wall time (minutes east of UTC).
  const offsets = [calendar.zone.offset(wall - DAY_MS), calendar.zone.offset(wall + DAY_MS)];
  const instants = offsets.map((offset) => wall - offset * 60_000).filter((instant, index) => calendar.zone.offset(instant) === offsets[index]);
  // No instant shows that wall time (a gap): the offset before the change puts it as far past the gap's start.
  return new Date(instants.length > 0 ? Math.min(...instants) : wall - offsets[0]! * 60_000);
}

function neverFires(description: string): ToolError {
  return invalid(`The schedule '${description}' has no due time within ten years, so it would never run.`, 'Check the rule and its holidays.');
}

function checkedAfter(after: Date): Date {
  if (!(after instanceof Date) || Number.isNaN(after.getTime())) throw invalid(`next(after) needs a valid Date; got ${String(after)}.`);
  return after;
}

/** The working day of a month a rule names, or undefined when the month has too few. */
function workingDayOfMonth(month: DateTime, day: number, calendar: Calendar): DateTime | undefined {
  const days = Array.from({ length: month.daysInMonth! }, (_, index) => month.set({ day: index + 1 })).filter((date) => isWorkingDay(date, calendar));
  return day > 0 ? days[day - 1] : days[days.length + day];
}

function monthlyNext(day: number, at: string, calendar: Calendar, description: string): (after: Date) => Date {
  return (after) => {
    // From the month before: a slot moved forward past midnight by a gap may belong to it.
    const first = localDate(checkedAfter(after), calendar).startOf('month').minus({ months: 1 });
    for (let index = 0; index <= MONTHS_SEARCHED; index += 1) {
      const date = workingDayOfMonth(first.plus({ months: index }), day, calendar);
      const due = date && zonedInstant(date, at, calendar);
      if (due && due > after) return due;
    }
    throw neverFires(description);
  };
}

function dailyNext(at: string, weekdaysOnly: boolean, calendar: Calendar, description: string): (after: Date) => Date {
  return (after) => {
    const first = localDate(checkedAfter(after), calendar).minus({ days: 1 });
    for (let index = 0; index <= DAYS_SEARCHED; index += 1) {
      const date = first.plus({ days: index });
      if (weekdaysOnly && !isWorkingDay(date, calendar)) continue;
      const due = zonedInstant(date, at, calendar);
      if (due > after) return due;
    }
    throw neverFires(description);
  };
}

function cronNext(expression: string, calendar: Calendar, description: string): (after: Date) => Date {
  return (after) => {
    try {
      // The seed fixes what an 'H' field resolves to, so every instance computes the same slots.
      return CronExpressionParser.parse(expression, { tz: calendar.zoneName, currentDate: checkedAfter(after), hashSeed: expression }).next().toDate();
    } catch (error) {
      if (ToolError.isInstance(error)) throw error;
      // cron-parser gives up after a bounded number of steps: the expression never matches.
      if (/loop limit/i.test((error as Error).message)) throw neverFires(description);
      throw invalid(`The schedule '${description}' failed: ${(error as Error).message}.`);
    }
  };
}

/**
 * The `next` of a rule, for defineSchedule or for when a saved check is due: the first due time
 * strictly after `after`. Throws ToolError('invalid_value') for an invalid rule, zone or holiday.
 * @example
 * nextOccurrence({ kind: 'monthly_working_day', day: 3 }, { timeZone: 'Europe/Berlin' })(new Date('2026-12-01T00:00:00Z'))
 * // 2026-12-03T05:00:00Z (Thursday 3 December, 06:00 in Berlin)
 */
export function nextOccurrence(rule: ScheduleRule, options: RuleOptions = {}): (after: Date) => Date {
  const checked = checkedRule(rule);
  const calendar = calendarOf(options);
  const description = describeChecked(checked, calendar);
  switch (checked.kind) {
    case 'monthly_working_day':
      return monthlyNext(checked.day, checked.at ?? DEFAULT_AT, calendar, description);
    case 'daily':
      return dailyNext(checked.at ?? DEFAULT_AT, checked.weekdays_only ?? false, calendar, description);
    case 'cron':
      return cronNext(checked.expression, calendar, description);
  }
}

/**
 * Monthly on the Nth working day (or, negative, the Nth from the month's end); a month with fewer
 * working days is skipped.
 * @example
 * monthlyOnWorkingDay(-1, { at: '18:00', timeZone: 'Europe/Berlin' }) // the last working day, 18:00
 */
export function monthlyOnWorkingDay(day: number, options: RuleOptions & { at?: string } = {}): (after: Date) => Date {
  return nextOccurrence({ kind: 'monthly_working_day', day, ...(options.at === undefined ? {} : { at: options.at }) }, options);
}

/**
 * Every day at a wall-clock time; with `weekdaysOnly`, on working days only (holidays skipped).
 * @example
 * dailyAt('07:30', { weekdaysOnly: true, timeZone: 'Europe/London' })
 */
export function dailyAt(at: string, options: RuleOptions & { weekdaysOnly?: boolean } = {}): (after: Date) => Date {
  return nextOccurrence({ kind: 'daily', at, ...(options.weekdaysOnly === undefined ? {} : { weekdays_only: options.weekdaysOnly }) }, options);
}

/**
 * A five-field cron expression in a time zone (holidays do not apply).
 * @example
 * cronSchedule('0 6 * * 1-5', { timeZone: 'America/New_York' }) // 06:00 New York time, Monday to Friday
 */
export function cronSchedule(expression: string, options: RuleOptions = {}): (after: Date) => Date {
  return nextOccurrence({ kind: 'cron', expression }, options);
}

/** 1st, 2nd, 3rd, 4th, 11th, 21st, … */
function ordinal(value: number): string {
  const suffix = value % 100 >= 11 && value % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][value % 10] ?? 'th');
  return `${value}${suffix}`;
}

function describeChecked(rule: ScheduleRule, calendar: Calendar): string {
  const holidays = calendar.holidays.size;
  const zone = (usesHolidays: boolean): string =>
    usesHolidays && holidays > 0 ? `(${calendar.zoneName}, ${holidays} ${holidays === 1 ? 'holiday' : 'holidays'} excluded)` : `(${calendar.zoneName})`;
  switch (rule.kind) {
    case 'monthly_working_day': {
      const which = rule.day === -1 ? 'last' : rule.day < 0 ? `${ordinal(-rule.day)}-to-last` : ordinal(rule.day);
      return `monthly on the ${which} working day at ${rule.at ?? DEFAULT_AT} ${zone(true)}`;
    }
    case 'daily':
      return `daily at ${rule.at ?? DEFAULT_AT}${rule.weekdays_only ? ' on weekdays' : ''} ${zone(rule.weekdays_only ?? false)}`;
    case 'cron':
      return `cron ${rule.expression.trim()} ${zone(false)}`;
  }
}

/**
 * A rule in plain words, for a saved check's listing or an answer. Throws like nextOccurrence.
 * @example
 * describeRule({ kind: 'monthly_working_day', day: 3 }, { timeZone: 'Europe/Berlin' }) // "monthly on the 3rd working day at 06:00 (Europe/Berlin)"
 * describeRule({ kind: 'daily', at: '07:30', weekdays_only: true }) // "daily at 07:30 on weekdays (UTC)"
 * describeRule({ kind: 'cron', expression: '0 6 * * 1-5' }) // "cron 0 6 * * 1-5 (UTC)"
 */
export function describeRule(rule: ScheduleRule, options: RuleOptions = {}): string {
  return describeChecked(checkedRule(rule), calendarOf(options));
}
