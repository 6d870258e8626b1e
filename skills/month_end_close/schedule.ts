/**
 * The close's clock: every minute (one instance per minute, the core's scheduler sees to that),
 * the checks whose time has come are run, each as its owner, with its scope. A check's slot is
 * claimed by moving its next due time on (a versioned write, so two instances never both take
 * it); a run whose instance died is taken up again once its claim lapses, or recorded as failed
 * after a second try; slots missed while the service was down run once.
 */
import { defineSchedule, everyInterval, nextOccurrence, RecordConflictError, type ScheduleContext, type SkillRecord, type ToolCaller } from '../../src/skills/api.ts';
import { allChecks, CHECKS, type StoredCheck } from './checkDefinition.ts';
import { finishCheck, runCheck, RUNS, type StoredRun } from './runs.ts';
import { RUN_LEASE_MS } from './tools.ts';

export const runDueChecks = defineSchedule({
  name: 'run_due_checks',
  next: everyInterval(60_000),
  // Checks run one after the other; a month-end morning with many of them may take a while.
  timeoutMs: 30 * 60_000,
  async run(context) {
    for (const check of await allChecks(context.records, undefined)) {
      if (context.signal.aborted) return;
      await runIfDue(check, context);
    }
  },
});

async function runIfDue(check: SkillRecord<StoredCheck>, context: ScheduleContext): Promise<void> {
  // A check is due by the clock, not by this minute's slot (which may be an old, missed one).
  const { records, now: due, logger } = context;
  const value = check.value;
  const running = value.running;
  // A run whose instance died: its claim lapsed; take the same slot up again (or record it failed).
  const interrupted = running && Date.parse(running.until) <= due.getTime() ? running : undefined;
  if (running && !interrupted) return;
  if (!interrupted && (!value.schedule || !value.next_due_at || Date.parse(value.next_due_at) > due.getTime())) return;
  const runId = interrupted?.run ?? `${check.id}|${value.next_due_at}`;
  const slot = runId.split('|')[1]!;
  const previous = (await records.get<StoredRun>(RUNS, runId))?.value;
  const attempt = (previous?.state === 'running' ? previous.attempt : 0) + 1;
  // The next slot counts from now: slots missed while the service was down run once, not once each.
  const next = value.schedule ? nextOccurrence(value.schedule, { timeZone: value.time_zone, holidays: value.holidays ?? [] })(new Date(Math.max(due.getTime(), Date.parse(slot)))).toISOString() : null;
  let claimed: SkillRecord<StoredCheck>;
  try {
    // The claim holds from when this check starts (a pass runs its checks one after another), by the later of the two clocks.
    const startsAt = Math.max(due.getTime(), Date.now());
    claimed = await records.put(CHECKS, check.id, { ...value, next_due_at: next, running: { run: runId, until: new Date(startsAt + RUN_LEASE_MS).toISOString() } }, { version: check.version });
  } catch (error) {
    if (RecordConflictError.isInstance(error)) return; // another instance took it
    throw error;
  }
  if (previous?.state === 'done') return void (await finishCheck(records, check.id, previous));
  if (attempt > 2) {
    const failed: StoredRun = { ...previous!, state: 'done', status: 'error', periods: [{ period: '', status: 'error', totals: [], counts: { aligned_rows: 0, differing: 0, only_in_a: 0, only_in_b: 0 }, differences: [], figures: '', error: { code: 'interrupted', message: 'the run was interrupted twice' } }] };
    await records.put(RUNS, runId, failed);
    await finishCheck(records, check.id, failed);
    logger.warn({ check: check.id, run: runId }, 'a scheduled check run was interrupted twice: recorded as failed');
    return;
  }
  const owner: ToolCaller | undefined = value.owner ? { name: value.owner.name, identity: value.owner.identity, scope: value.scope ?? undefined, permissions: [] } : undefined;
  try {
    const run = await runCheck(claimed, {
      records,
      callTool: (name, input) => context.callTool(name, input, owner),
      notify: context.notify,
      at: new Date(slot),
      runKey: slot,
      trigger: 'schedule',
      by: 'schedule',
      attempt,
      signal: context.signal,
    });
    await finishCheck(records, check.id, run);
  } catch (error) {
    // Left claimed (a cancelled run too, when the service stops): the next tick after the claim lapses runs the slot again.
    logger.error({ err: error, check: check.id, run: runId }, 'a scheduled check run failed');
  }
}
