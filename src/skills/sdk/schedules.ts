/**
 * Work a skill declares to run on a schedule (defineSkill({ tools, schedules })), run by the
 * service's scheduler (src/schedules/scheduler.ts): each due slot runs once across every
 * instance sharing the application database, a slot missed while the service was down runs
 * once (not once per missed slot), and a run whose instance died is run again (at most twice in
 * all) or recorded as failed.
 *
 * @example
 * export const nightly = defineSchedule({
 *   name: 'nightly_checks',
 *   next: everyInterval(24 * 3_600_000),
 *   async run({ records, due }) {
 *     await records.put('runs', due.toISOString(), { status: 'tie' });
 *   },
 * });
 */
import type { Catalog } from '../../catalog/catalog.ts';
import type { DataAccess } from '../../data/dataAccess.ts';
import type { Logger } from '../../logging/logger.ts';
import type { SkillRecords } from './records.ts';
import type { SkillNotification, ToolCallResult, ToolCaller } from './tools.ts';

/** What a scheduled run gets: the data, and the skill's own records. */
export interface ScheduleContext {
  catalog: Catalog;
  data: DataAccess;
  logger: Logger;
  /** The skill's records (sdk/records.ts), as its tools see them. */
  records: SkillRecords;
  /** Aborted when the run passes its time limit (`timeoutMs`) or the service stops. */
  signal: AbortSignal;
  /** The slot this run is for: the time it was due. */
  due: Date;
  /** The scheduler's clock as the run starts: later than `due` when the slot was missed (or a test moved the clock). */
  now: Date;
  /** 1, or 2 when the instance running it first stopped before it finished. */
  attempt: number;
  /**
   * Runs a tool of the service, as `caller` when given (its data scope; what a saved check's
   * owner could see when it was saved), else with every data visible.
   */
  callTool(name: string, input: unknown, caller?: ToolCaller): Promise<ToolCallResult>;
  /** As ToolContext.notify. */
  notify(notification: SkillNotification): Promise<{ queued: boolean }>;
}

export interface ScheduleDefinition {
  /** snake_case, unique within the skill. */
  name: string;
  /** The first time it is due strictly after `after`. */
  next(after: Date): Date;
  run(context: ScheduleContext): unknown;
  /** How long a run may take before it is aborted and recorded as failed (default 10 minutes). */
  timeoutMs?: number;
}

/**
 * Declares a schedule (typed; no other effect).
 * @example
 * defineSchedule({ name: 'hourly', next: everyInterval(3_600_000), run: () => undefined });
 */
export function defineSchedule(schedule: ScheduleDefinition): ScheduleDefinition {
  return schedule;
}

/**
 * A `next` for a fixed interval, aligned on multiples of it since 1970 (so every instance agrees).
 * @example
 * everyInterval(60_000)(new Date('2026-11-26T10:00:30Z')) // 2026-11-26T10:01:00Z
 */
export function everyInterval(ms: number): (after: Date) => Date {
  if (!Number.isInteger(ms) || ms < 1_000) throw new RangeError(`everyInterval: an interval is a whole number of milliseconds, at least 1000; got ${ms}`);
  return (after) => new Date((Math.floor(after.getTime() / ms) + 1) * ms);
}

/**
 * What is wrong with a skill's `schedules` (empty when nothing): shared by the loader and skill:check.
 * @example
 * scheduleProblems([{ name: 'Nightly' }]) // ["schedules[0]: name must be snake_case …", …]
 */
export function scheduleProblems(schedules: unknown): string[] {
  if (schedules === undefined) return [];
  if (!Array.isArray(schedules)) return ['schedules must be a list of defineSchedule({ name, next, run })'];
  const problems: string[] = [];
  const seen = new Set<string>();
  schedules.forEach((schedule: Partial<ScheduleDefinition> | null, index) => {
    const at = `schedules[${index}]`;
    if (typeof schedule?.name !== 'string' || !/^[a-z][a-z0-9_]{0,63}$/.test(schedule.name)) problems.push(`${at}: name must be snake_case (a-z, 0-9, _), at most 64 characters`);
    else if (seen.has(schedule.name)) problems.push(`${at}: the name '${schedule.name}' is used twice`);
    else seen.add(schedule.name);
    if (typeof schedule?.next !== 'function') problems.push(`${at}: next must be a function (after: Date) => Date, e.g. everyInterval(3_600_000)`);
    if (typeof schedule?.run !== 'function') problems.push(`${at}: run must be a function (context) => work`);
    if (schedule?.timeoutMs !== undefined && (!Number.isInteger(schedule.timeoutMs) || schedule.timeoutMs < 1)) problems.push(`${at}: timeoutMs must be a whole number of milliseconds`);
  });
  return problems;
}
