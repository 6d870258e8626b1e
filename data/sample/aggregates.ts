/**
 * Consolidation mart (ACTUAL aggregated from FI, BUDGET, FORECAST, year-to-date) and
 * BPC (from the mart, with the planted translation error and manual adjustment).
 */
import { PERIODS, PLANTED, SCOPE, rateE4 } from './model.ts';
import { cellKey, translateCents, type Cell } from './plan.ts';
import type { BpcRow, FiLine, MartRow } from './types.ts';

// ---------------------------------------------------------------------------
// Consolidation mart and BPC

function withYtd(rows: Omit<MartRow, 'ytdCents'>[]): MartRow[] {
  const running = new Map<string, number>();
  // rows are sorted by period within each (company, version, grpacct, pcompany)
  return rows.map((row) => {
    const key = `${row.version}|${row.compcode}|${row.grpacct}|${row.pcompany ?? ''}`;
    const ytd = (running.get(key) ?? 0) + row.lcCents;
    running.set(key, ytd);
    return { ...row, ytdCents: ytd };
  });
}

const VERSION_ORDER = ['ACTUAL', 'BUDGET', 'FORECAST'];

function compareMart(
  a: { version: string; compcode: string; fiscper: string; grpacct: string; pcompany: string | null },
  b: { version: string; compcode: string; fiscper: string; grpacct: string; pcompany: string | null },
): number {
  return (
    VERSION_ORDER.indexOf(a.version) - VERSION_ORDER.indexOf(b.version) ||
    a.compcode.localeCompare(b.compcode) ||
    a.fiscper.localeCompare(b.fiscper) ||
    a.grpacct.localeCompare(b.grpacct) ||
    (a.pcompany ?? '').localeCompare(b.pcompany ?? '')
  );
}

export function buildConsolidation(cells: Cell[], fiLoadedBeforeDuplicate: FiLine[]): MartRow[] {
  // ACTUAL = FI aggregated by company x period x group account x partner.
  const actual = new Map<string, Omit<MartRow, 'ytdCents'>>();
  for (const line of fiLoadedBeforeDuplicate) {
    const key = cellKey(line.compcode, line.fiscper, line.grpacct, line.pcompany);
    const row = actual.get(key);
    if (row) row.lcCents += line.amountCents;
    else
      actual.set(key, {
        compcode: line.compcode,
        fiscper: line.fiscper,
        version: 'ACTUAL',
        grpacct: line.grpacct,
        pcompany: line.pcompany,
        lcCents: line.amountCents,
        curkey_lc: line.curkey_lc,
        gcCents: 0,
      });
  }

  const rows: Omit<MartRow, 'ytdCents'>[] = [...actual.values()];
  for (const cell of cells) {
    const aggregated = actual.get(cellKey(cell.compcode, cell.fiscper, cell.grpacct, cell.pcompany));
    if ((aggregated?.lcCents ?? null) !== cell.actualCents) {
      throw new Error(`FI lines do not add up to the planned cell ${cell.compcode}/${cell.fiscper}/${cell.gl_acct}`);
    }
    for (const [version, lcCents] of [
      ['BUDGET', cell.budgetCents],
      ['FORECAST', cell.forecastCents],
    ] as const) {
      rows.push({
        compcode: cell.compcode,
        fiscper: cell.fiscper,
        version,
        grpacct: cell.grpacct,
        pcompany: cell.pcompany,
        lcCents,
        curkey_lc: cell.currency,
        gcCents: 0,
      });
    }
  }

  for (const row of rows) {
    const p = PERIODS.indexOf(row.fiscper);
    row.gcCents = translateCents(row.lcCents, rateE4(row.curkey_lc, p));
  }
  rows.sort(compareMart);
  return withYtd(rows);
}

export function buildBpc(consolidation: MartRow[]): BpcRow[] {
  const wrong = PLANTED.wrongTranslation;
  const adj = PLANTED.manualAdjustment;
  const rows: BpcRow[] = [];
  for (const row of consolidation) {
    if (row.version === 'FORECAST') continue;
    let gcCents = row.gcCents;
    if (row.version === 'ACTUAL' && row.compcode === wrong.compcode && row.fiscper === wrong.fiscper) {
      // Planted: translated at the previous period's rate (discrepancy 3).
      gcCents = translateCents(row.lcCents, rateE4(row.curkey_lc, PERIODS.indexOf(wrong.ratePeriod)));
    }
    rows.push({
      compcode: row.compcode,
      fiscper: row.fiscper,
      version: row.version,
      scope: SCOPE,
      grpacct: row.grpacct,
      pcompany: row.pcompany,
      audittrail: 'INPUT',
      lcCents: row.lcCents,
      curkey_lc: row.curkey_lc,
      gcCents,
    });
    if (
      row.version === 'ACTUAL' &&
      row.compcode === adj.compcode &&
      row.fiscper === adj.fiscper &&
      row.grpacct === adj.grpacct &&
      row.pcompany === null
    ) {
      // Planted: top-side entry only in BPC (discrepancy 4).
      rows.push({
        ...rows[rows.length - 1]!,
        audittrail: adj.audittrail,
        lcCents: adj.amountCents,
        gcCents: translateCents(adj.amountCents, rateE4(row.curkey_lc, PERIODS.indexOf(row.fiscper))),
      });
    }
  }
  return rows;
}

/** The complete sample as plain rows (amounts in integer cents). Pure and deterministic. */
