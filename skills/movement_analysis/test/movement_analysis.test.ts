/**
 * The movement_analysis tools on the sample data: every figure is checked against an
 * independent SQL query on data/sample.db (read-only), not hard-coded — including the
 * duplicated delta load that drives company 1000's December revenue in fi_reporting.
 */
import Database from 'better-sqlite3';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skillTestKit, type SkillTestKit } from '../../../src/skills/api.ts';
import skill from '../index.ts';
import { comparePeriodsOutput, periodTrendOutput } from '../schemas.ts';
import { comparePeriods } from '../comparePeriods.ts';
import { periodTrend } from '../periodTrend.ts';

const samplePath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../data/sample.db');
let kit: SkillTestKit;
let db: Database.Database;
beforeAll(async () => {
  kit = await skillTestKit(skill);
  db = new Database(samplePath, { readonly: true, fileMustExist: true });
});
afterAll(async () => {
  db.close();
  await kit.close();
});

const cents = (value: number) => Math.round(value * 100) / 100;
/** fi_reporting amount (cs_trn_lc) per key for periods between from and to, by SQL of its own. */
function fiSums(key: string, where: string, from: string, to: string): Map<string, number> {
  const rows = db
    .prepare(`SELECT ${key} AS k, SUM(cs_trn_lc) AS v FROM fi_reporting WHERE ${where} AND fiscper BETWEEN ? AND ? GROUP BY ${key}`)
    .all(from, to) as { k: string; v: number }[];
  return new Map(rows.map((row) => [String(row.k), cents(row.v)]));
}
const total = (sums: Map<string, number>) => cents([...sums.values()].reduce((sum, v) => sum + v, 0));
async function run(tool: string, args: Record<string, unknown>) {
  const outcome = await kit.run(tool, args);
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.error));
  return outcome.result as any;
}

describe('compare_periods', () => {
  it('splits company 1000 November → December by group account, revenue the main driver', async () => {
    const result = await run('compare_periods', { source: 'fi_reporting', period_a: '2024011', period_b: 'December 2024', group_by: ['group_account'], filters: { company: '1000' } });
    expect(comparePeriodsOutput.parse(result)).toBeTruthy();
    const nov = fiSums('grpacct', "compcode = '1000'", '2024011', '2024011');
    const dec = fiSums('grpacct', "compcode = '1000'", '2024012', '2024012');
    const net = cents(total(dec) - total(nov));
    expect(result.totals).toEqual([{ currency: 'EUR', total_a: total(nov), total_b: total(dec), change: net, change_percent: cents((net / Math.abs(total(nov))) * 100) }]);
    for (const row of result.rows) {
      const change = cents((dec.get(row.group_account) ?? 0) - (nov.get(row.group_account) ?? 0));
      expect(row).toMatchObject({ a: nov.get(row.group_account), b: dec.get(row.group_account), change, share_percent: cents((change / net) * 100) });
      expect(row.role).toBe(Math.sign(change) === Math.sign(net) ? 'driver' : 'offset');
    }
    // Ranked by size of the change; revenue moves most and with the net change.
    const changes = result.rows.map((row: any) => Math.abs(row.change));
    expect(changes).toEqual([...changes].sort((x, y) => y - x));
    expect(result.rows[0]).toMatchObject({ group_account: 'G4000000', role: 'driver' });
    expect(result.rows[0].share_percent).toBeGreaterThan(50);
    expect(result.offset_count).toBeGreaterThan(0);
    expect(result.interpretation).toContain('main driver group_account G4000000');
  });

  it('shows the duplicated delta load as the request new in December that drives 1000\'s revenue', async () => {
    const result = await run('compare_periods', { source: 'fi_reporting', period_a: '2024011', period_b: '2024012', group_by: ['load_request'], filters: { company: '1000', group_account: 'G4000000' }, limit: 50 });
    const duplicate = cents((db.prepare("SELECT SUM(cs_trn_lc) AS v FROM fi_reporting WHERE request_id = 'REQ_2024012_1000_02'").get() as { v: number }).v);
    expect(duplicate).toBe(110000);
    const row = result.rows.find((r: any) => r.load_request === 'REQ_2024012_1000_02');
    expect(row).toMatchObject({ a: 0, b: duplicate, change: duplicate, status: 'new', role: 'driver', currency: 'EUR' });
    // The whole December revenue change is smaller than the duplicate: without it revenue fell.
    const net = result.totals[0].change;
    const expected = cents(total(fiSums('grpacct', "compcode = '1000' AND grpacct = 'G4000000'", '2024012', '2024012')) - total(fiSums('grpacct', "compcode = '1000' AND grpacct = 'G4000000'", '2024011', '2024011')));
    expect(net).toBe(expected);
    expect(duplicate).toBeGreaterThan(net);
    expect(row.share_percent).toBe(cents((duplicate / net) * 100));
  });

  it('keeps currencies apart: revenue of all companies gives one total per currency', async () => {
    const result = await run('compare_periods', { source: 'fi_reporting', period_a: '2024011', period_b: '2024012', group_by: ['company'], filters: { group_account: 'G4000000' } });
    const byCurrency = (period: string) => fiSums('curkey_lc', "grpacct = 'G4000000'", period, period);
    const [nov, dec] = [byCurrency('2024011'), byCurrency('2024012')];
    expect(result.totals.map((t: any) => t.currency)).toEqual(['EUR', 'GBP', 'USD']);
    for (const t of result.totals) expect(t).toMatchObject({ total_a: nov.get(t.currency), total_b: dec.get(t.currency), change: cents(dec.get(t.currency)! - nov.get(t.currency)!) });
  });

  it('compares quarters: company 2000 Q3 vs Q4 by group account', async () => {
    const result = await run('compare_periods', { source: 'fi_reporting', period_a: 'Q3 2024', period_b: { from: '2024010', to: '2024012' }, group_by: ['group_account'], filters: { company: '2000' } });
    expect(result).toMatchObject({ period_a: { from: '2024007', to: '2024009' }, period_b: { from: '2024010', to: '2024012' }, label_a: 'July 2024–September 2024' });
    const q3 = fiSums('grpacct', "compcode = '2000'", '2024007', '2024009');
    const q4 = fiSums('grpacct', "compcode = '2000'", '2024010', '2024012');
    expect(result.totals[0]).toMatchObject({ currency: 'USD', total_a: total(q3), total_b: total(q4), change: cents(total(q4) - total(q3)) });
    for (const row of result.rows) expect(row.change).toBe(cents(q4.get(row.group_account)! - q3.get(row.group_account)!));
    // G7000000 (depreciation) does not move: it is counted but not listed.
    expect(result.rows.some((row: any) => row.group_account === 'G7000000')).toBe(false);
    expect(result.total_rows).toBe(q3.size);
  });

  it('answers wrong names and periods with errors the model can fix', async () => {
    const base = { source: 'fi_reporting', period_a: '2024011', period_b: '2024012' };
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ ...base, source: 'fi_reports' }, { code: 'unknown_source', closest: 'fi_reporting' }],
      [{ ...base, measure: 'amount_lc' }, { code: 'unknown_measure' }],
      [{ ...base, group_by: ['acount'] }, { code: 'unknown_dimension' }],
      [{ ...base, period_b: 'Smarch 2024' }, { code: 'invalid_value' }],
      [{ ...base, period_a: '2023012' }, { code: 'unknown_value', dimension: 'period' }],
      [{ ...base, filters: { company: '9999' } }, { code: 'unknown_value', dimension: 'company' }],
      [{ ...base, filters: { period: '2024012' } }, { code: 'invalid_value' }],
      [{ ...base, group_by: ['period'] }, { code: 'invalid_value' }],
      [{ ...base, period_a: 'x'.repeat(201) }, { code: 'invalid_arguments' }],
    ];
    for (const [args, error] of cases) expect(await kit.run('compare_periods', args)).toMatchObject({ ok: false, error });
  });

  it('describes its result in one line and as a table with a bar chart', async () => {
    const input = { source: 'fi_reporting', period_a: '2024011', period_b: '2024012', group_by: ['group_account'], filters: { company: '1000' } };
    const result = await run('compare_periods', input);
    expect(comparePeriods.summarize!(result).length).toBeLessThanOrEqual(300);
    const spec = comparePeriods.present!(result, input);
    expect(spec.views[0]).toMatchObject({ rowsAt: ['rows'], chart: { kind: 'bar', categories: ['group_account'], series: [{ key: 'change', splitBy: 'currency' }] } });
    expect(spec.views[0]!.columns.map((c) => c.key)).toEqual(['group_account', 'currency', 'a', 'b', 'change', 'change_percent', 'share_percent', 'role']);
    expect(spec.views[1]).toMatchObject({ rowsAt: ['totals'] });
  });
});

describe('period_trend', () => {
  it('totals company 3000 per month with the change against the month before', async () => {
    const result = await run('period_trend', { source: 'fi_reporting', filters: { company: '3000' } });
    expect(periodTrendOutput.parse(result)).toBeTruthy();
    const months = [...fiSums('fiscper', "compcode = '3000'", '2024001', '2024012').entries()].sort(([x], [y]) => x.localeCompare(y));
    expect(result.rows).toHaveLength(12);
    let largest = { to: '', change: 0 };
    months.forEach(([period, value], index) => {
      const change = index === 0 ? null : cents(value - months[index - 1]![1]);
      expect(result.rows[index]).toMatchObject({ period, currency: 'GBP', value, change });
      if (change !== null && Math.abs(change) > Math.abs(largest.change)) largest = { to: period, change };
    });
    expect(result.largest_changes).toEqual([expect.objectContaining({ currency: 'GBP', to: largest.to, change: largest.change })]);
    const spec = periodTrend.present!(result, { source: 'fi_reporting' });
    expect(spec.views[0]).toMatchObject({ chart: { kind: 'bar', categories: ['period'] } });
    expect(periodTrend.summarize!(result)).toContain('12 periods');
  });

  it('takes a span of periods and refuses an unknown company', async () => {
    const result = await run('period_trend', { source: 'fi_reporting', periods: 'Q4 2024', filters: { company: '1000' } });
    expect(result.rows.map((row: any) => row.period)).toEqual(['2024010', '2024011', '2024012']);
    expect(await kit.run('period_trend', { source: 'fi_reporting', filters: { company: '9999' } })).toMatchObject({ ok: false, error: { code: 'unknown_value' } });
  });
});
