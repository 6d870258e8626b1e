/**
 * The consolidation mart and BPC of a generated database, built from the plan's cell
 * totals (small: companies × periods × accounts × versions rows), with the planted
 * wrong translation rate and manual adjustment in BPC.
 */
import { PERIODS, SCOPE } from '../sample/model.ts';
import { roundToStep, translate } from './money.ts';
import type { Cell, Plan } from './plan.ts';
import type { BpcRow, MartRow } from '../sample/types.ts';

export type { BpcRow, MartRow };

const VERSIONS = ['ACTUAL', 'BUDGET', 'FORECAST'] as const;

export function buildMart(plan: Plan): MartRow[] {
  const rows: MartRow[] = [];
  for (const version of VERSIONS) {
    const running = new Map<string, number>();
    const ordered = [...plan.cells].sort(
      (x, y) =>
        x.company.index - y.company.index ||
        x.periodIndex - y.periodIndex ||
        x.account.grpacct.localeCompare(y.account.grpacct) ||
        (x.pcompany ?? '').localeCompare(y.pcompany ?? ''),
    );
    for (const cell of ordered) {
      const lcCents = valueOf(cell, version);
      if (lcCents === null) continue;
      const key = `${cell.company.compcode}|${cell.account.grpacct}|${cell.pcompany ?? ''}`;
      const ytdCents = (running.get(key) ?? 0) + lcCents;
      running.set(key, ytdCents);
      rows.push({
        compcode: cell.company.compcode,
        fiscper: cell.fiscper,
        version,
        grpacct: cell.account.grpacct,
        pcompany: cell.pcompany,
        lcCents,
        ytdCents,
        curkey_lc: cell.company.currency,
        gcCents: translate(lcCents, plan.fx.rate(cell.company.currency, cell.periodIndex)),
      });
    }
  }
  return rows;
}

function valueOf(cell: Cell, version: (typeof VERSIONS)[number]): number | null {
  if (version === 'ACTUAL') return cell.actualCents;
  if (version === 'BUDGET') return cell.budgetCents;
  return cell.forecastCents;
}

/** The manual adjustment of BPC: a share of the cell's actual, rounded to 1,000 units, as an extra expense. */
export function manualAdjustmentCents(plan: Plan): { cell: Cell; lcCents: number; gcCents: number } {
  const at = plan.planted.manual;
  const cell = plan.cells.find(
    (c) => c.company.compcode === at.compcode && c.periodIndex === at.periodIndex && c.account.gl_acct === at.gl_acct,
  );
  if (!cell || cell.actualCents === null) throw new Error('the manual adjustment cell does not exist');
  const lcCents = -Math.max(100_000, Math.abs(roundToStep(cell.actualCents * at.share, 100_000)));
  return { cell, lcCents, gcCents: translate(lcCents, plan.fx.rate(cell.company.currency, cell.periodIndex)) };
}

export function buildBpc(plan: Plan, mart: readonly MartRow[]): BpcRow[] {
  const wrong = plan.planted.wrongRate;
  const adjustment = manualAdjustmentCents(plan);
  const rows: BpcRow[] = [];
  for (const row of mart) {
    if (row.version === 'FORECAST') continue;
    const periodIndex = PERIODS.indexOf(row.fiscper);
    const wrongRate = row.version === 'ACTUAL' && row.compcode === wrong.compcode && periodIndex === wrong.periodIndex;
    const gcCents = wrongRate ? translate(row.lcCents, plan.fx.rate(row.curkey_lc, wrong.ratePeriodIndex)) : row.gcCents;
    const { ytdCents: _ytd, ...rest } = row;
    rows.push({ ...rest, version: row.version, scope: SCOPE, audittrail: 'INPUT', gcCents });
    const adj = adjustment.cell;
    if (row.version === 'ACTUAL' && row.compcode === adj.company.compcode && row.fiscper === adj.fiscper && row.grpacct === adj.account.grpacct && row.pcompany === null) {
      rows.push({ ...rest, version: 'ACTUAL', scope: SCOPE, audittrail: 'ADJ_MANUAL', lcCents: adjustment.lcCents, gcCents: adjustment.gcCents });
    }
  }
  return rows;
}
