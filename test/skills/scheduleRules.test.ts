/**
 * The SDK's schedule rules (src/skills/sdk/scheduleRules.ts), through src/skills/api.ts as a
 * skill imports them: working days with holidays and month boundaries, daily on weekdays,
 * daylight-saving changes in Europe/Berlin, cron in America/New_York, the words for a rule, and
 * the messages for rules that are wrong or never fire. Fixed dates only, no clocks.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  cronSchedule,
  dailyAt,
  defineSchedule,
  describeRule,
  monthlyOnWorkingDay,
  nextOccurrence,
  scheduleRuleSchema,
  ToolError,
  type RuleOptions,
  type ScheduleRule,
} from '../../src/skills/api.ts';

const berlin: RuleOptions = { timeZone: 'Europe/Berlin' };
const at = (iso: string): Date => new Date(iso);
const iso = (date: Date): string => date.toISOString();

/** The ToolError a call throws (fails when it throws nothing or something else). */
function toolErrorOf(call: () => unknown): ToolError {
  try {
    call();
  } catch (error) {
    if (ToolError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a ToolError');
}

/** The messages the schema gives for a rule. */
function schemaMessages(rule: unknown): string[] {
  const parsed = scheduleRuleSchema.safeParse(rule);
  return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
}

describe('monthly on a working day', () => {
  it('finds the 3rd working day of December 2026 at 06:00 Berlin time (Dec 1 is a Tuesday)', () => {
    expect(iso(monthlyOnWorkingDay(3, berlin)(at('2026-12-01T00:00:00Z')))).toBe('2026-12-03T05:00:00.000Z');
    expect(iso(nextOccurrence({ kind: 'monthly_working_day', day: 3 }, berlin)(at('2026-11-20T00:00:00Z')))).toBe('2026-12-03T05:00:00.000Z');
  });

  it('moves a day for a holiday', () => {
    expect(iso(monthlyOnWorkingDay(3, { ...berlin, holidays: ['2026-12-02'] })(at('2026-12-01T00:00:00Z')))).toBe('2026-12-04T05:00:00.000Z');
  });

  it('counts from the month end: the last working day, and before a holiday on it', () => {
    expect(iso(monthlyOnWorkingDay(-1, berlin)(at('2026-12-01T00:00:00Z')))).toBe('2026-12-31T05:00:00.000Z'); // a Thursday
    expect(iso(monthlyOnWorkingDay(-1, { ...berlin, holidays: ['2026-12-31'] })(at('2026-12-01T00:00:00Z')))).toBe('2026-12-30T05:00:00.000Z');
    // October 2026 ends on a Saturday: the last working day is Friday the 30th, the 2nd-to-last Thursday the 29th.
    expect(iso(monthlyOnWorkingDay(-1, { at: '18:00' })(at('2026-10-01T00:00:00Z')))).toBe('2026-10-30T18:00:00.000Z');
    expect(iso(monthlyOnWorkingDay(-2, { at: '18:00' })(at('2026-10-01T00:00:00Z')))).toBe('2026-10-29T18:00:00.000Z');
  });

  it("goes to January's slot once December's has passed (Jan 1, 2027 is a Friday)", () => {
    const next = monthlyOnWorkingDay(3, berlin);
    expect(iso(next(at('2026-12-03T05:00:00Z')))).toBe('2027-01-05T05:00:00.000Z');
    expect(iso(next(at('2026-12-15T00:00:00Z')))).toBe('2027-01-05T05:00:00.000Z');
    expect(iso(monthlyOnWorkingDay(3, { ...berlin, holidays: ['2027-01-01'] })(at('2026-12-15T00:00:00Z')))).toBe('2027-01-06T05:00:00.000Z');
  });

  it('is strictly after `after`: its own result gives the following slot', () => {
    const next = monthlyOnWorkingDay(3, berlin);
    const first = next(at('2026-12-01T00:00:00Z'));
    expect(iso(next(new Date(first.getTime() - 1)))).toBe(iso(first));
    expect(iso(next(first))).toBe('2027-01-05T05:00:00.000Z');
    expect(iso(next(next(first)))).toBe('2027-02-03T05:00:00.000Z'); // Feb 1, 2027 is a Monday
  });

  it('keeps 06:00 local time in summer (April 3, 2026 is 06:00 CEST)', () => {
    expect(iso(monthlyOnWorkingDay(3, berlin)(at('2026-03-10T00:00:00Z')))).toBe('2026-04-03T04:00:00.000Z');
  });

  it('skips a month with fewer working days than asked (the 23rd exists only in some months)', () => {
    // November 2026 has 21 weekdays, December 23.
    expect(iso(monthlyOnWorkingDay(23)(at('2026-11-01T00:00:00Z')))).toBe('2026-12-31T06:00:00.000Z');
  });

  it('serves as the `next` of defineSchedule', () => {
    const schedule = defineSchedule({ name: 'close_checks', next: monthlyOnWorkingDay(3, berlin), run: () => undefined });
    expect(iso(schedule.next(at('2026-12-01T00:00:00Z')))).toBe('2026-12-03T05:00:00.000Z');
  });
});

describe('daily', () => {
  // Friday, November 27, 2026, 09:00 in Berlin.
  const friday = at('2026-11-27T08:00:00Z');

  it('on weekdays skips the weekend, and a holiday', () => {
    const next = dailyAt('07:30', { ...berlin, weekdaysOnly: true });
    expect(iso(next(friday))).toBe('2026-11-30T06:30:00.000Z');
    expect(iso(next(next(friday)))).toBe('2026-12-01T06:30:00.000Z');
    expect(iso(dailyAt('07:30', { ...berlin, weekdaysOnly: true, holidays: ['2026-11-30'] })(friday))).toBe('2026-12-01T06:30:00.000Z');
    expect(iso(nextOccurrence({ kind: 'daily', at: '07:30', weekdays_only: true }, berlin)(friday))).toBe('2026-11-30T06:30:00.000Z');
  });

  it('every day includes weekends and holidays, and defaults to 06:00', () => {
    expect(iso(dailyAt('07:30', { ...berlin, holidays: ['2026-11-28'] })(friday))).toBe('2026-11-28T06:30:00.000Z');
    expect(iso(nextOccurrence({ kind: 'daily' })(friday))).toBe('2026-11-28T06:00:00.000Z');
    expect(iso(nextOccurrence({ kind: 'daily' })(at('2026-11-27T05:59:59.999Z')))).toBe('2026-11-27T06:00:00.000Z');
  });

  it('moves a time that does not exist forward on the spring change (Berlin, March 29, 2026)', () => {
    const next = dailyAt('02:30', berlin);
    expect(iso(next(at('2026-03-28T12:00:00Z')))).toBe('2026-03-29T01:30:00.000Z'); // 03:30 CEST
    expect(iso(next(at('2026-03-29T01:30:00Z')))).toBe('2026-03-30T00:30:00.000Z'); // 02:30 CEST
    expect(iso(dailyAt('06:00', berlin)(at('2026-03-28T12:00:00Z')))).toBe('2026-03-29T04:00:00.000Z');
  });

  it('takes the first of a time that occurs twice on the autumn change (Berlin, October 25, 2026), once', () => {
    const next = dailyAt('02:30', berlin);
    const first = next(at('2026-10-24T12:00:00Z'));
    expect(iso(first)).toBe('2026-10-25T00:30:00.000Z'); // 02:30 CEST, not 02:30 CET an hour later
    expect(iso(next(first))).toBe('2026-10-26T01:30:00.000Z'); // 02:30 CET, the next day
  });
});

describe('cron', () => {
  it("reads '0 6 * * 1-5' in New York time, winter and summer", () => {
    const next = cronSchedule('0 6 * * 1-5', { timeZone: 'America/New_York' });
    expect(iso(next(at('2026-11-27T12:00:00Z')))).toBe('2026-11-30T11:00:00.000Z'); // Friday noon UTC → Monday 06:00 EST
    expect(iso(next(at('2026-07-01T12:00:00Z')))).toBe('2026-07-02T10:00:00.000Z'); // 06:00 EDT
    expect(iso(nextOccurrence({ kind: 'cron', expression: '0 6 * * 1-5' }, { timeZone: 'America/New_York' })(at('2026-11-27T12:00:00Z')))).toBe('2026-11-30T11:00:00.000Z');
  });

  it('is strictly after `after`', () => {
    const next = cronSchedule('0 6 * * 1-5', { timeZone: 'America/New_York' });
    const monday = next(at('2026-11-27T12:00:00Z'));
    expect(iso(next(new Date(monday.getTime() - 1)))).toBe(iso(monday));
    expect(iso(next(monday))).toBe('2026-12-01T11:00:00.000Z');
  });

  it('ignores holidays', () => {
    expect(iso(cronSchedule('0 6 * * *', { holidays: ['2026-11-28'] })(at('2026-11-27T12:00:00Z')))).toBe('2026-11-28T06:00:00.000Z');
  });
});

describe('describeRule', () => {
  it('says a rule in plain words, with its time zone', () => {
    expect(describeRule({ kind: 'monthly_working_day', day: 3 }, berlin)).toBe('monthly on the 3rd working day at 06:00 (Europe/Berlin)');
    expect(describeRule({ kind: 'monthly_working_day', day: -1, at: '18:00' })).toBe('monthly on the last working day at 18:00 (UTC)');
    expect(describeRule({ kind: 'monthly_working_day', day: -2 }, { ...berlin, holidays: ['2026-12-24', '2026-12-31'] })).toBe('monthly on the 2nd-to-last working day at 06:00 (Europe/Berlin, 2 holidays excluded)');
    expect(describeRule({ kind: 'monthly_working_day', day: 21 })).toBe('monthly on the 21st working day at 06:00 (UTC)');
    expect(describeRule({ kind: 'monthly_working_day', day: 11 })).toBe('monthly on the 11th working day at 06:00 (UTC)');
    expect(describeRule({ kind: 'daily', at: '07:30', weekdays_only: true })).toBe('daily at 07:30 on weekdays (UTC)');
    expect(describeRule({ kind: 'daily' }, berlin)).toBe('daily at 06:00 (Europe/Berlin)');
    expect(describeRule({ kind: 'cron', expression: '0 6 * * 1-5' })).toBe('cron 0 6 * * 1-5 (UTC)');
  });
});

describe('invalid rules', () => {
  const cases: { rule: unknown; message: RegExp }[] = [
    { rule: { kind: 'monthly_working_day', day: 0 }, message: /day must be a whole number from 1 to 23 .* or from -1 to -5 .*; got 0/ },
    { rule: { kind: 'monthly_working_day', day: 24 }, message: /day must be .*; got 24/ },
    { rule: { kind: 'monthly_working_day', day: -6 }, message: /day must be .*; got -6/ },
    { rule: { kind: 'monthly_working_day', day: 2.5 }, message: /day must be a whole number/ },
    { rule: { kind: 'daily', at: '25:00' }, message: /at must be a 24-hour time 'HH:MM' .*; got "25:00"/ },
    { rule: { kind: 'daily', at: '6:00' }, message: /at must be a 24-hour time 'HH:MM'/ },
    { rule: { kind: 'cron', expression: '0 6 * *' }, message: /5 fields .* got '0 6 \* \*' \(4 fields\)/ },
    { rule: { kind: 'cron', expression: '61 6 * * *' }, message: /'61 6 \* \* \*' is not valid: .*61/ },
    { rule: { kind: 'cron', expression: '0 6 30 2 *' }, message: /never fires: it names a day its months do not have/ },
    { rule: { kind: 'weekly' }, message: /kind must be 'monthly_working_day', 'daily' or 'cron'; got "weekly"/ },
    { rule: { kind: 'daily', every: 2 }, message: /a 'daily' rule has only kind, at and weekdays_only; unknown: every/ },
  ];

  it.each(cases)('the schema explains $rule', ({ rule, message }) => {
    expect(schemaMessages(rule).join('\n')).toMatch(message);
  });

  it.each(cases)('nextOccurrence throws ToolError invalid_value for $rule', ({ rule, message }) => {
    const error = toolErrorOf(() => nextOccurrence(rule as ScheduleRule));
    expect(error.code).toBe('invalid_value');
    expect(error.message).toMatch(/^Invalid schedule rule: /);
    expect(error.message).toMatch(message);
    expect(error.hint).toMatch(/monthly_working_day/);
  });

  it('accepts valid rules, also inside a tool input', () => {
    const input = z.strictObject({ schedule: scheduleRuleSchema });
    expect(input.parse({ schedule: { kind: 'monthly_working_day', day: -5, at: '23:59' } })).toEqual({ schedule: { kind: 'monthly_working_day', day: -5, at: '23:59' } });
    expect(schemaMessages({ kind: 'daily', weekdays_only: false })).toEqual([]);
    expect(schemaMessages({ kind: 'cron', expression: '*/15 8-18 * * MON-FRI' })).toEqual([]);
  });

  it('refuses the helpers a wrong day, time or expression the same way', () => {
    expect(toolErrorOf(() => monthlyOnWorkingDay(0)).message).toMatch(/day must be .*; got 0/);
    expect(toolErrorOf(() => monthlyOnWorkingDay(24)).message).toMatch(/day must be .*; got 24/);
    expect(toolErrorOf(() => dailyAt('25:00')).message).toMatch(/at must be a 24-hour time/);
    expect(toolErrorOf(() => cronSchedule('every day')).message).toMatch(/5 fields/);
  });

  it('refuses an unknown time zone and a holiday that is not a date', () => {
    const zone = toolErrorOf(() => monthlyOnWorkingDay(3, { timeZone: 'Mars/Olympus_Mons' }));
    expect(zone.code).toBe('invalid_value');
    expect(zone.message).toBe('Unknown time zone "Mars/Olympus_Mons": a schedule\'s time zone is an IANA name.');
    expect(zone.hint).toMatch(/Europe\/Berlin/);
    expect(toolErrorOf(() => describeRule({ kind: 'daily' }, { timeZone: 'CET+1' })).code).toBe('invalid_value');
    for (const holiday of ['2026-02-30', '2026-12-1', '25.12.2026', '2026-12-25T00:00:00Z']) {
      const error = toolErrorOf(() => dailyAt('06:00', { weekdaysOnly: true, holidays: [holiday] }));
      expect(error.code).toBe('invalid_value');
      expect(error.message).toBe(`Invalid holiday "${holiday}": a holiday is a calendar date 'YYYY-MM-DD' that exists, such as '2026-12-25'.`);
    }
  });

  it('refuses an invalid `after`', () => {
    expect(toolErrorOf(() => dailyAt('06:00')(new Date('not a date'))).message).toMatch(/needs a valid Date/);
  });

  it('stops a search that finds no due time within ten years, with a clear error', () => {
    // Every weekday from 2026 to 2036 a holiday: a weekdays-only rule never runs.
    const holidays: string[] = [];
    for (let day = Date.UTC(2026, 0, 1); day <= Date.UTC(2036, 11, 31); day += 86_400_000) {
      if (![0, 6].includes(new Date(day).getUTCDay())) holidays.push(new Date(day).toISOString().slice(0, 10));
    }
    const next = dailyAt('06:00', { weekdaysOnly: true, holidays });
    const error = toolErrorOf(() => next(at('2026-01-01T00:00:00Z')));
    expect(error.code).toBe('invalid_value');
    expect(error.message).toBe(`The schedule 'daily at 06:00 on weekdays (UTC, ${holidays.length} holidays excluded)' has no due time within ten years, so it would never run.`);
    expect(toolErrorOf(() => monthlyOnWorkingDay(1, { holidays })(at('2026-01-01T00:00:00Z'))).message).toMatch(/no due time within ten years/);
  });
});
