/**
 * The close tools: save a check, list the checks, run one now, read its history, sign a
 * period off, delete a check. Each sees only the checks of the caller's scope (unscoped keys
 * see all); runs of a scoped check see only its scope's data.
 */
import { z } from 'zod';
import { briefForModel, defineTool, describeRule, isTimeZone, nextOccurrence, RecordConflictError, scheduleRuleSchema, ToolError, type SkillRecord, type SkillRecords, type ToolCaller, type ToolContext } from '../../src/skills/api.ts';
import { allChecks, checkId, CHECKS, comparisonSchema, findCheck, listRecords, periodRuleSchema, recordsOf, toleranceSchema, visibleTo, type StoredCheck } from './checkDefinition.ts';
import { finishCheck, ITEMS, runCheck, RUNS, SIGNOFFS, type StoredItem, type StoredRun, type StoredSignOff } from './runs.ts';
import { checkListOutput, historyOutput, runOutput, signOffOutput } from './schemas.ts';
import { checkView, historyView, runView } from './views.ts';

/** How long a run may hold its check before another may take it over (the instance died). */
export const RUN_LEASE_MS = 10 * 60_000;

const checkName = z.string().trim().min(1).max(120).describe('the check\'s name, e.g. "FI vs BPC 3000"');

export const saveCheck = defineTool({
  name: 'save_check',
  title: 'Save a check',
  writes: true,
  description: 'Saves a comparison as a check re-run on a schedule; runs it once now. For "save this as a monthly check".',
  examples: [{ name: 'FI vs BPC 3000', comparison: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '3000' } }, period: { kind: 'fixed', period: '2024-12' }, schedule: { kind: 'monthly_working_day', day: 3 } }],
  input: z.strictObject({
    name: checkName,
    comparison: briefForModel(comparisonSchema).describe('compare_sources arguments without the period'),
    period: briefForModel(periodRuleSchema.optional()).describe('{"kind":"previous_month"} (default) | {"kind":"year_to_date"} | {"kind":"fixed","period":"2024-12"}'),
    tolerance: briefForModel(toleranceSchema.optional()).describe('{"absolute","percent","currencies":{…}}'),
    schedule: briefForModel(scheduleRuleSchema.optional()).describe('{"kind":"monthly_working_day","day":3} | {"kind":"daily"} | {"kind":"cron","expression":"…"}'),
    time_zone: z.string().max(64).refine(isTimeZone, { error: 'an IANA time zone, e.g. Europe/Berlin' }).optional().describe('IANA zone; default UTC'),
    holidays: z.array(z.string().max(10)).max(100).optional().describe('YYYY-MM-DD non-working days'),
  }),
  output: runOutput,
  handler: async (args, context) => {
    const records = recordsOf(context);
    const id = checkId(args.name);
    const timeZone = args.time_zone ?? 'UTC';
    const now = new Date();
    // Checked now, so a bad rule or zone is refused at once rather than at the first run.
    const next = args.schedule ? nextOccurrence(args.schedule, { timeZone, holidays: args.holidays ?? [] })(now).toISOString() : null;
    const caller = context.caller;
    const check: StoredCheck = {
      name: args.name,
      comparison: args.comparison,
      period: args.period ?? { kind: 'previous_month' },
      ...(args.tolerance ? { tolerance: args.tolerance } : {}),
      ...(args.schedule ? { schedule: args.schedule } : {}),
      time_zone: timeZone,
      ...(args.holidays?.length ? { holidays: args.holidays } : {}),
      owner: caller ? { name: caller.name, identity: caller.identity, permissions: [...caller.permissions] } : null,
      scope: caller?.scope ?? null,
      created_at: now.toISOString(),
      next_due_at: next,
      running: { run: `${id}|${now.toISOString()}`, until: new Date(now.getTime() + RUN_LEASE_MS).toISOString() },
      last: null,
    };
    let saved: SkillRecord<StoredCheck>;
    try {
      saved = await records.put(CHECKS, id, check, { version: 0 });
    } catch (error) {
      if (!RecordConflictError.isInstance(error)) throw error;
      throw new ToolError('invalid_value', `A check called '${args.name}' exists already.`, { hint: 'Choose another name, or delete_check it first.', details: { argument: 'name' } });
    }
    const run = await runNow(saved, records, context, now);
    return runView(saved.value, run, await openItems(records, id));
  },
  summarize: (result) => `save_check: ${result.check} saved, first run ${result.status}`,
});

export const listChecks = defineTool({
  name: 'list_checks',
  title: 'List checks',
  description: 'Every saved check with its status, last run, open differences and sign-off. Use it for "which checks broke this month?".',
  examples: [{}, { status: 'break' }],
  input: z.strictObject({ status: z.enum(['tie', 'within_tolerance', 'break', 'error', 'never_run']).optional().describe('only checks whose last run has this status') }),
  output: checkListOutput,
  handler: async (args, context) => {
    const records = recordsOf(context);
    const checks = [];
    for (const check of await allChecks(records, context.caller)) {
      const status = check.value.last?.status ?? 'never_run';
      if (args.status && status !== args.status) continue;
      const last = check.value.last ? (await records.get<StoredRun>(RUNS, check.value.last.run))?.value : undefined;
      checks.push(checkView(check.id, check.value, last, await openItems(records, check.id), await signOffsOf(records, check.id)));
    }
    return { checks, counts: countBy(checks.map((check) => check.status)) };
  },
  summarize: (result) => `list_checks: ${result.checks.length} checks`,
});

export const runCheckTool = defineTool({
  name: 'run_check',
  title: 'Run a check now',
  writes: true,
  description: 'Runs a saved check now and records the run. Use it for "run the FI vs BPC check".',
  examples: [{ check: 'FI vs BPC 3000' }],
  input: z.strictObject({ check: checkName }),
  output: runOutput,
  handler: async (args, context) => {
    const records = recordsOf(context);
    const found = await findCheck(records, args.check, context.caller);
    checkRunnableBy(found.value, context.caller);
    const now = new Date();
    const claimed = await claim(records, found, `${found.id}|${now.toISOString()}`, now);
    const run = await runNow(claimed, records, context, now);
    return runView(claimed.value, run, await openItems(records, found.id));
  },
  summarize: (result) => `run_check: ${result.check} ${result.status}`,
});

export const checkHistory = defineTool({
  name: 'check_history',
  title: 'History of a check',
  description: 'The runs of a saved check, newest first, with the trend of its difference and the differences still open with their age. Use it for "show the history of the FI vs BPC check".',
  examples: [{ check: 'FI vs BPC 3000' }],
  input: z.strictObject({ check: checkName, limit: z.number().int().min(1).max(100).optional().describe('runs shown (default 12)') }),
  output: historyOutput,
  handler: async (args, context) => {
    const records = recordsOf(context);
    const found = await findCheck(records, args.check, context.caller);
    const runs = (await listAll<StoredRun>(records, RUNS, found.id)).filter((run) => run.state === 'done');
    return historyView(found.id, found.value, runs.reverse().slice(0, args.limit ?? 12), await itemsOf(records, found.id), await signOffsOf(records, found.id));
  },
  summarize: (result) => `check_history: ${result.check}, ${result.runs.length} runs, ${result.open_items.length} open items`,
});

export const signOffRun = defineTool({
  name: 'sign_off_run',
  title: 'Sign a period off',
  writes: true,
  // A person signs off: text planted in the data must not make the chat model do it.
  peopleOnly: true,
  description: 'Signs off the latest run of a check for a period, with a note; needs a key allowed to sign. A later run with other figures re-opens it.',
  examples: [{ check: 'FI vs BPC 3000', period: '2024-12', note: 'Ties: nothing to explain.' }],
  input: z.strictObject({
    check: checkName,
    period: z.string().max(7).regex(/^\d{4}-(0[1-9]|1[0-2])$/, { error: 'a month as YYYY-MM' }).optional().describe('YYYY-MM; default: the latest run\'s last period'),
    note: z.string().trim().min(3).max(1_000).describe('why the figures are accepted, e.g. "explained by the December delta load, reversal posted"'),
  }),
  output: signOffOutput,
  handler: async (args, context) => {
    const signer = signerOf(context.caller);
    const records = recordsOf(context);
    const found = await findCheck(records, args.check, context.caller);
    // A run in progress may bring other figures: sign what it finds, not what it replaces.
    const running = found.value.running;
    if (running && Date.parse(running.until) > Date.now()) throw new ToolError('conflict', `'${found.value.name}' is being run now; sign off once the run is done.`, { hint: 'Ask again in a minute.' });
    const runs = (await listAll<StoredRun>(records, RUNS, found.id)).filter((run) => run.state === 'done').reverse();
    const period = args.period ?? runs[0]?.periods.at(-1)?.period;
    const run = runs.find((candidate) => candidate.periods.some((result) => result.period === period));
    const result = run?.periods.find((candidate) => candidate.period === period);
    if (!run || !result || !period) throw new ToolError('invalid_value', `The check '${found.value.name}' has no run for ${period ?? 'any period'} yet.`, { hint: 'Run it first with run_check.', details: { argument: 'period' } });
    if (result.status === 'error') throw new ToolError('invalid_value', `The latest run of ${period} failed (${result.error?.message}); there are no figures to sign off.`, { hint: 'Run the check again once the data is back.', details: { argument: 'period' } });
    const signoff: StoredSignOff = { check: found.id, period, run: run.run, by: signer, at: new Date().toISOString(), note: args.note, figures: result.figures, state: 'signed' };
    await records.put(SIGNOFFS, `${found.id}|${period}`, signoff);
    return { check: found.value.name, period, run: run.run, status: result.status, signed_by: signer, signed_at: signoff.at, note: args.note };
  },
  summarize: (result) => `sign_off_run: ${result.check} ${result.period} signed off by ${result.signed_by}`,
});

export const deleteCheck = defineTool({
  name: 'delete_check',
  title: 'Delete a check',
  writes: true,
  peopleOnly: true,
  description: 'Deletes a saved check with its runs, open differences and sign-offs.',
  examples: [{ check: 'FI vs BPC 3000' }],
  input: z.strictObject({ check: checkName }),
  output: z.object({ check: z.string(), deleted: z.boolean() }),
  handler: async (args, context) => {
    const records = recordsOf(context);
    const found = await findCheck(records, args.check, context.caller);
    const deleted = await records.delete(CHECKS, found.id, { version: found.version });
    // Its runs, differences and sign-offs go with it: a check saved later under the name (by any key) starts afresh.
    for (const collection of [RUNS, ITEMS, SIGNOFFS]) {
      for (const record of await listRecords(records, collection, `${found.id}|`)) await records.delete(collection, record.id);
    }
    return { check: found.value.name, deleted };
  },
  summarize: (result) => `delete_check: ${result.check} deleted`,
});

/** Takes the check for one run; a run in progress (and not past its lease) refuses. */
export async function claim(records: SkillRecords, check: SkillRecord<StoredCheck>, run: string, now: Date): Promise<SkillRecord<StoredCheck>> {
  const running = check.value.running;
  // A conflict, not `busy`: the service is not overloaded, this one check is being run.
  if (running && Date.parse(running.until) > now.getTime()) throw new ToolError('conflict', `A run of '${check.value.name}' is in progress (since ${running.run.split('|')[1]}).`, { hint: 'Ask again in a minute: the run in progress will be in the history.' });
  try {
    return await records.put(CHECKS, check.id, { ...check.value, running: { run, until: new Date(now.getTime() + RUN_LEASE_MS).toISOString() } }, { version: check.version });
  } catch (error) {
    if (RecordConflictError.isInstance(error)) throw new ToolError('conflict', `'${check.value.name}' was just taken by another run.`, { hint: 'Ask again in a minute: that run will be in the history.' });
    throw error;
  }
}

/** A run asked for by a caller, as the caller: its scope is the check's (see run_check). */
async function runNow(check: SkillRecord<StoredCheck>, records: SkillRecords, context: ToolContext, now: Date): Promise<StoredRun> {
  if (!context.callTool) throw new ToolError('data_unavailable', 'This call cannot run other tools.', { hint: 'Call it through the service.' });
  const claimed = check.value.running!.run;
  try {
    const run = await runCheck(check, {
      records,
      callTool: context.callTool,
      notify: context.notify,
      at: now,
      runKey: claimed.split('|')[1]!,
      trigger: 'manual',
      by: context.caller?.name ?? 'anonymous',
      signal: context.signal,
    });
    await finishCheck(records, check.id, run);
    return run;
  } catch (error) {
    // Cancelled or failed: the claim is released and the last run kept (nothing was recorded).
    await finishCheck(records, check.id, { run: claimed, started_at: now.toISOString() }).catch(() => undefined);
    throw error;
  }
}

/**
 * A scoped check is run by hand only with its own scope: a wider key would compute other
 * figures than its owner's (its scheduled runs run as the owner).
 */
function checkRunnableBy(check: StoredCheck, caller: ToolCaller | undefined): void {
  if (!check.scope || caller?.scope) return;
  throw new ToolError('forbidden', `'${check.name}' was saved by ${check.owner?.name ?? 'a scoped key'} for its scope: run by hand, a key that sees more would compute other figures.`, {
    hint: 'It runs on its schedule as its owner; to run it now, use a key of that scope.',
    details: { argument: 'check' },
  });
}

/** The values of a check's records of a collection (ids `<check>|…`), in id order. */
async function listAll<Value>(records: SkillRecords, collection: string, check: string): Promise<Value[]> {
  return (await listRecords<Value>(records, collection, `${check}|`)).map((record) => record.value);
}


function signerOf(caller: ToolCaller | undefined): string {
  // Without API keys the service has one anonymous user, who may do everything.
  if (!caller) return 'anonymous';
  if (!caller.permissions.includes('sign_off')) {
    throw new ToolError('forbidden', `The key '${caller.name}' may not sign off.`, { hint: 'Ask someone whose key has permissions: [sign_off] in the keys file.', details: { permission: 'sign_off' } });
  }
  return caller.name;
}

export async function openItems(records: SkillRecords, check: string): Promise<StoredItem[]> {
  return (await itemsOf(records, check)).filter((item) => item.state === 'open');
}

async function itemsOf(records: SkillRecords, check: string): Promise<StoredItem[]> {
  return listAll<StoredItem>(records, ITEMS, check);
}

async function signOffsOf(records: SkillRecords, check: string): Promise<StoredSignOff[]> {
  return listAll<StoredSignOff>(records, SIGNOFFS, check);
}

function countBy(values: string[]): Record<string, number> {
  return values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {});
}

export { describeRule, visibleTo };
