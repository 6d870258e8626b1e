/**
 * A saved check: what it compares (compare_sources' arguments, the period left to the rule),
 * which period each run covers, how much difference it tolerates, when it runs, whose it is and
 * which data it may see. Stored as a record of the skill (collection `checks`, id: its slug).
 */
import { z } from 'zod';
import { scheduleRuleSchema, ToolError, type ScheduleRule, type SkillRecord, type SkillRecords, type ToolCaller } from '../../src/skills/api.ts';

export const CHECKS = 'checks';

/** The period each run covers, counted from the run's date in the check's time zone. */
export const periodRuleSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('previous_month') }).describe('the month just closed'),
  z.strictObject({ kind: z.literal('year_to_date') }).describe('each month of the calendar year so far, up to the month just closed'),
  z.strictObject({ kind: z.literal('fixed'), period: z.string().max(7, { error: 'a month as YYYY-MM (at most 7 characters)' }).regex(/^\d{4}-(0[1-9]|1[0-2])$/, { error: 'a month as YYYY-MM, e.g. 2024-12' }) }),
], { error: 'kind is previous_month, year_to_date or fixed (with period YYYY-MM)' });
export type PeriodRule = z.infer<typeof periodRuleSchema>;

const band = z.strictObject({
  absolute: z.number().min(0, { error: 'must be 0 or more' }).optional(),
  percent: z.number().min(0, { error: 'must be 0 or more' }).max(100).optional(),
});
/** A difference within `absolute` or within `percent` of side a is tolerated; per currency when given. */
export const toleranceSchema = band.extend({ currencies: z.record(z.string().max(3).regex(/^[A-Z]{3}$/, { error: 'a currency code, e.g. EUR' }), band).optional() });
export type Tolerance = z.infer<typeof toleranceSchema>;

/**
 * The comparison, as compare_sources takes it (which checks each argument when the check is
 * saved and run); its period comes from the rule.
 */
export const comparisonSchema = z.strictObject({
  source_a: z.string().min(1).max(64),
  source_b: z.string().min(1).max(64),
  measure: z.unknown(),
  align_on: z.unknown().optional(),
  filters: z.record(z.string().max(64), z.unknown()).optional(),
  filters_a: z.record(z.string().max(64), z.unknown()).optional(),
  filters_b: z.record(z.string().max(64), z.unknown()).optional(),
  thresholds: z.unknown().optional(),
});

export interface StoredCheck {
  name: string;
  comparison: Record<string, unknown>;
  period: PeriodRule;
  tolerance?: Tolerance;
  /** Absent: the check runs only when asked. */
  schedule?: ScheduleRule;
  time_zone: string;
  holidays?: string[];
  /** The key that saved it (its name shows; its identity and scope are what runs use). */
  owner: { name: string; identity: string; permissions: string[] } | null;
  scope: ToolCaller['scope'] | null;
  created_at: string;
  /** ISO time the next scheduled run is due; null when unscheduled. */
  next_due_at: string | null;
  /** A run in progress: its id and how long its claim holds. */
  running?: { run: string; until: string } | null;
  last?: { run: string; status: RunStatus; at: string } | null;
}

export type RunStatus = 'tie' | 'within_tolerance' | 'break' | 'error';

/**
 * The id of a check named by a person: lower case words joined by `_`.
 * @example
 * checkId('FI vs BPC — 3000') // 'fi_vs_bpc_3000'
 */
export function checkId(name: string): string {
  const id = name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 80);
  if (!id) throw new ToolError('invalid_value', `The check name '${name}' has no letters or digits.`, { hint: 'Name it in words, e.g. "FI vs BPC 1000".' });
  return id;
}

/** Whether a caller may see and run a check: unscoped callers see every check, a scoped one the checks saved with its very scope. */
export function visibleTo(check: StoredCheck, caller: ToolCaller | undefined): boolean {
  if (!caller?.scope) return true;
  return canonicalScope(check.scope) === canonicalScope(caller.scope);
}

function canonicalScope(scope: ToolCaller['scope'] | null | undefined): string {
  if (!scope) return '';
  const values = Object.fromEntries(Object.entries(scope.values).sort(([a], [b]) => a.localeCompare(b)).map(([key, list]) => [key, [...list].sort()]));
  return JSON.stringify({ sources: scope.sources ? [...scope.sources].sort() : null, values });
}

/** The caller's records, or a clear error where the service keeps none (a tool called directly). */
export function recordsOf(context: { records?: SkillRecords }): SkillRecords {
  if (!context.records) throw new ToolError('data_unavailable', 'Saved checks need the application database, which this call has none of.', { hint: 'Call the tool through the service (POST /tools, /chat or MCP).' });
  return context.records;
}

/**
 * The check a caller named, by its name or id; not found (or another scope's) reads the same.
 * @throws ToolError unknown_value with the caller's checks as choices.
 */
export async function findCheck(records: SkillRecords, name: string, caller: ToolCaller | undefined): Promise<SkillRecord<StoredCheck>> {
  const found = await records.get<StoredCheck>(CHECKS, checkId(name));
  if (found && visibleTo(found.value, caller)) return found;
  const choices = (await allChecks(records, caller)).map((check) => check.value.name);
  throw new ToolError('unknown_value', `No saved check is called '${name}'.`, { hint: choices.length ? 'Use one of the choices, or save_check to save a new one.' : 'No check is saved yet: save one with save_check.', details: { argument: 'check', choices } });
}

/** Every check the caller may see, in id order. */
export async function allChecks(records: SkillRecords, caller: ToolCaller | undefined): Promise<SkillRecord<StoredCheck>[]> {
  return (await listRecords<StoredCheck>(records, CHECKS)).filter((check) => visibleTo(check.value, caller));
}

/**
 * Every record of a collection (whose id starts with `prefix`), in id order, paged past the
 * 1,000 a list gives at once.
 * @example
 * const runs = await listRecords<StoredRun>(records, 'runs', 'fi_vs_bpc_1000|');
 */
export async function listRecords<Value>(records: SkillRecords, collection: string, prefix = ''): Promise<SkillRecord<Value>[]> {
  const found: SkillRecord<Value>[] = [];
  for (let after: string | undefined; ; ) {
    const page = await records.list<Value>(collection, { prefix, limit: 1_000, ...(after ? { after } : {}) });
    found.push(...page);
    if (page.length < 1_000) return found;
    after = page.at(-1)!.id;
  }
}
