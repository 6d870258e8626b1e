/**
 * The manifest of a generated database: what was planted where, and for each discrepancy
 * a tool call of the service (compare_sources or query_source, with its exact arguments)
 * that reveals it, plus the row that call must report.
 */
import { PERIODS } from '../sample/model.ts';
import { manualAdjustmentCents, type BpcRow, type MartRow } from './aggregates.ts';
import type { FiLineFacts, FiOutcome } from './fiWriter.ts';
import { statusOf, units, type RowStatus, type Thresholds } from './money.ts';
import type { Cell, Plan } from './plan.ts';

type Args = Record<string, unknown>;

export interface CompareExpectation {
  /** The aligned key of the row, as compare_sources reports it (currency included). */
  key: Record<string, string>;
  status: RowStatus;
  /** a - b, to the cent. */
  difference: number;
  a: number | null;
  b: number | null;
}

export interface QueryExpectation {
  row: Record<string, string | number>;
}

export interface Discrepancy {
  id: string;
  kind: string;
  description: string;
  check: { tool: 'compare_sources' | 'query_source'; args: Args };
  expected: CompareExpectation | QueryExpectation;
  /** Facts of the planted case (amounts in currency units). */
  details: Record<string, unknown>;
}

export interface Manifest {
  seed: number;
  rows_per_source: number;
  companies: number;
  fiscal_year: number;
  company_list: { compcode: string; name: string; currency: string }[];
  tables: Record<string, number>;
  discrepancies: Discrepancy[];
}

/** Actual vs budget: a cell is flagged when it is off by more than 5 % (minor) or 10 % (major). */
export const VARIANCE_THRESHOLDS: Thresholds = { match: { absolute: 1e15, percent: 5 }, minor: { absolute: 1e15, percent: 10 } };

const fmt = (cents: number) => units(cents).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

function compared(key: Record<string, string>, a: number | null, b: number | null, thresholds?: Thresholds): CompareExpectation {
  return { key, status: statusOf(a, b, thresholds), difference: units((a ?? 0) - (b ?? 0)), a: a === null ? null : units(a), b: b === null ? null : units(b) };
}

function largest(lines: readonly FiLineFacts[]): FiLineFacts {
  return lines.reduce((best, line) => (Math.abs(line.amountCents) > Math.abs(best.amountCents) ? line : best));
}

/** The top list holds 10 rows unless told otherwise; ask for up to 50 when more rows may differ. */
const topFor = (rows: number): { top?: number } => (rows > 10 ? { top: Math.min(50, rows) } : {});

export function buildDiscrepancies(plan: Plan, fi: FiOutcome, mart: readonly MartRow[], bpc: readonly BpcRow[]): Discrepancy[] {
  const out: Discrepancy[] = [];
  const sum = <T extends { compcode: string; fiscper: string; version: string }>(rows: readonly T[], compcode: string, fiscper: string, pick: (r: T) => number) =>
    rows.filter((r) => r.version === 'ACTUAL' && r.compcode === compcode && r.fiscper === fiscper).reduce((s, r) => s + pick(r), 0);
  const where = (cell: Cell) => ({ company: cell.company.compcode, period: cell.fiscper });

  // (a) duplicated delta load
  const dup = fi.duplicate;
  const dc = dup.cell;
  const dupDetails = {
    ...where(dc), gl_account: dc.account.gl_acct, group_account: dc.account.grpacct, currency: dc.company.currency,
    original_request: `REQ_${dc.fiscper}_${dc.company.compcode}_01`, duplicate_request: dup.request,
    documents: dup.documents, lines: dup.lines.length, amount: units(dup.amountCents),
  };
  out.push({
    id: 'duplicated-delta-load',
    kind: 'duplicated_delta_load',
    description: `${dup.lines.length} lines (${dup.documents} documents) of company ${dc.company.compcode}, period ${dc.fiscper}, GL ${dc.account.gl_acct} were loaded a second time into fi_reporting (request ${dup.request}): fi_reporting - consolidation_mart = ${fmt(dup.amountCents)} ${dc.company.currency} on ${dc.account.grpacct}, every other account matches.`,
    check: { tool: 'compare_sources', args: { source_a: 'fi_reporting', source_b: 'consolidation_mart', measure: 'amount', align_on: ['company', 'period', 'group_account'], filters: where(dc) } },
    expected: compared({ ...where(dc), group_account: dc.account.grpacct, currency: dc.company.currency }, dc.actualCents! + dup.amountCents, dc.actualCents),
    details: dupDetails,
  });
  const dupLine = largest(dup.lines);
  out.push({
    id: 'duplicated-delta-load-lines',
    kind: 'duplicated_delta_load',
    description: `Line by line, fi_reporting holds the ${dup.lines.length} duplicated lines twice; fi_acquisition (the inbound layer) holds each once. The largest is document ${dupLine.document} line ${dupLine.line}.`,
    check: {
      tool: 'compare_sources',
      args: { source_a: 'fi_acquisition', source_b: 'fi_reporting', measure: 'amount', align_on: ['document', 'document_line'], filters: { ...where(dc), group_account: dc.account.grpacct }, ...topFor(dup.lines.length) },
    },
    expected: compared({ document: dupLine.document, document_line: String(dupLine.line), currency: dc.company.currency }, dupLine.amountCents, 2 * dupLine.amountCents),
    details: dupDetails,
  });

  // (b) lines lost between the layers
  const lost = fi.lost;
  const lc = lost.cell;
  const lostLine = largest(lost.lines);
  out.push({
    id: 'lost-in-propagation',
    kind: 'lines_lost_in_propagation',
    description: `${lost.documents.length} documents (${lost.lines.length} lines, ${fmt(lost.amountCents)} ${lc.company.currency}) of company ${lc.company.compcode}, period ${lc.fiscper}, GL ${lc.account.gl_acct} are in fi_acquisition but were lost on the way to fi_reporting.`,
    check: { tool: 'compare_sources', args: { source_a: 'fi_acquisition', source_b: 'fi_reporting', measure: 'amount', align_on: ['document', 'document_line'], filters: where(lc), ...topFor(lost.lines.length) } },
    expected: compared({ document: lostLine.document, document_line: String(lostLine.line), currency: lc.company.currency }, lostLine.amountCents, null),
    details: { ...where(lc), gl_account: lc.account.gl_acct, currency: lc.company.currency, documents: lost.documents, lines: lost.lines.length, amount: units(lost.amountCents) },
  });

  // (c) intercompany purchase missing on the buyer's side
  const ic = plan.planted.missingIntercompany;
  if (ic) {
    const fiscper = PERIODS[ic.periodIndex]!;
    const { seller, buyer } = ic.pair;
    const sellerRow = mart.find((r) => r.version === 'ACTUAL' && r.compcode === seller.compcode && r.fiscper === fiscper && r.grpacct === 'G4100000')!;
    const buyerBudget = mart.find((r) => r.version === 'BUDGET' && r.compcode === buyer.compcode && r.fiscper === fiscper && r.grpacct === 'G5100000')!;
    out.push({
      id: 'missing-intercompany-purchase',
      kind: 'intercompany_missing_buyer',
      description: `In ${fiscper} company ${seller.compcode} booked intercompany revenue of ${fmt(sellerRow.lcCents)} ${seller.currency} (${fmt(sellerRow.gcCents)} EUR) with partner ${buyer.compcode}, but ${buyer.compcode} booked no intercompany purchase (in FI, hence in the mart and BPC): the elimination is out of balance by ${fmt(sellerRow.gcCents)} EUR; every other month nets to 0.00 EUR.`,
      check: {
        tool: 'query_source',
        args: { source: 'consolidation_mart', measures: ['amount_gc'], dimensions: ['period'], filters: { company: [seller.compcode, buyer.compcode], group_account: ['G4100000', 'G5100000'] } },
      },
      expected: { row: { period: fiscper, amount_gc: units(sellerRow.gcCents) } },
      details: { seller: seller.compcode, buyer: buyer.compcode, period: fiscper, seller_amount: units(sellerRow.lcCents), seller_currency: seller.currency, amount_gc: units(sellerRow.gcCents), buyer_budget: units(buyerBudget.lcCents), buyer_currency: buyer.currency },
    });
  }

  // (d) currency translation at a wrong rate in BPC
  const wrong = plan.planted.wrongRate;
  const wrongPeriod = PERIODS[wrong.periodIndex]!;
  const wrongCompany = plan.companies.find((c) => c.compcode === wrong.compcode)!;
  const martGc = sum(mart, wrong.compcode, wrongPeriod, (r) => r.gcCents);
  const bpcGc = sum(bpc, wrong.compcode, wrongPeriod, (r) => r.gcCents);
  const correctRate = plan.fx.rate(wrongCompany.currency, wrong.periodIndex);
  const appliedRate = plan.fx.rate(wrongCompany.currency, wrong.ratePeriodIndex);
  out.push({
    id: 'wrong-translation-rate',
    kind: 'currency_translation',
    description: `BPC translated the ACTUAL of company ${wrong.compcode} (${wrongCompany.currency}) for ${wrongPeriod} at the ${PERIODS[wrong.ratePeriodIndex]} rate ${appliedRate / 1e8} instead of ${correctRate / 1e8}: group currency differs by ${fmt(martGc - bpcGc)} EUR (mart - BPC); local currency is equal.`,
    check: { tool: 'compare_sources', args: { source_a: 'consolidation_mart', source_b: 'bpc_reporting', measure: 'amount_gc', align_on: ['company', 'period'], filters: { company: wrong.compcode } } },
    expected: compared({ company: wrong.compcode, period: wrongPeriod, currency: 'EUR' }, martGc, bpcGc),
    details: { company: wrong.compcode, period: wrongPeriod, currency: wrongCompany.currency, correct_rate: correctRate / 1e8, applied_rate: appliedRate / 1e8, rate_period: PERIODS[wrong.ratePeriodIndex] },
  });

  // (e) manual adjustment in BPC only
  const adj = manualAdjustmentCents(plan);
  const ac = adj.cell;
  const adjDetails = { ...where(ac), group_account: ac.account.grpacct, currency: ac.company.currency, audit_trail: 'ADJ_MANUAL', amount: units(adj.lcCents), amount_gc: units(adj.gcCents) };
  out.push({
    id: 'manual-adjustment',
    kind: 'manual_adjustment',
    description: `bpc_reporting ACTUAL holds a manual top-side entry (audit trail ADJ_MANUAL) of ${fmt(adj.lcCents)} ${ac.company.currency} (${fmt(adj.gcCents)} EUR) for company ${ac.company.compcode}, period ${ac.fiscper}, ${ac.account.grpacct}; it is not in FI nor in the consolidation mart.`,
    check: { tool: 'compare_sources', args: { source_a: 'consolidation_mart', source_b: 'bpc_reporting', measure: 'amount', align_on: ['company', 'period', 'group_account'], filters: where(ac) } },
    expected: compared({ ...where(ac), group_account: ac.account.grpacct, currency: ac.company.currency }, ac.actualCents!, ac.actualCents! + adj.lcCents),
    details: adjDetails,
  });
  out.push({
    id: 'manual-adjustment-audit-trail',
    kind: 'manual_adjustment',
    description: 'Grouping bpc_reporting by audit trail isolates the manual entry.',
    check: { tool: 'query_source', args: { source: 'bpc_reporting', measures: ['amount', 'amount_gc'], dimensions: ['company', 'period', 'group_account', 'audit_trail'], filters: { audit_trail: 'ADJ_MANUAL' } } },
    expected: { row: { ...where(ac), group_account: ac.account.grpacct, audit_trail: 'ADJ_MANUAL', currency: ac.company.currency, amount: units(adj.lcCents), amount_gc: units(adj.gcCents) } },
    details: adjDetails,
  });

  // (f) budget vs actual variances
  plan.planted.variances.forEach((v, i) => {
    const cell = plan.cells.find((c) => c.company.compcode === v.compcode && c.periodIndex === v.periodIndex && c.account.gl_acct === v.gl_acct)!;
    const variance = cell.actualCents! - cell.budgetCents;
    out.push({
      id: `budget-variance-${i + 1}`,
      kind: 'budget_variance',
      description: `ACTUAL of company ${v.compcode}, period ${cell.fiscper}, ${cell.account.grpacct} (${cell.account.description}) is ${v.factor < 1 ? '15 % below' : '15 % above'} BUDGET: ${fmt(cell.actualCents!)} vs ${fmt(cell.budgetCents)} ${cell.company.currency}, variance ${fmt(variance)}. Outside the planted cases ACTUAL is within ±3.5 % of BUDGET.`,
      check: {
        tool: 'compare_sources',
        args: {
          source_a: 'consolidation_mart', source_b: 'consolidation_mart', measure: 'amount', align_on: ['period', 'group_account'],
          filters: { company: v.compcode }, filters_a: { version: 'ACTUAL' }, filters_b: { version: 'BUDGET' }, thresholds: VARIANCE_THRESHOLDS,
        },
      },
      expected: compared({ period: cell.fiscper, group_account: cell.account.grpacct, currency: cell.company.currency }, cell.actualCents, cell.budgetCents, VARIANCE_THRESHOLDS),
      details: { ...where(cell), gl_account: cell.account.gl_acct, group_account: cell.account.grpacct, currency: cell.company.currency, actual: units(cell.actualCents!), budget: units(cell.budgetCents), variance: units(variance), factor: v.factor },
    });
  });
  return out;
}
