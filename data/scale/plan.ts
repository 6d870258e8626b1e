/**
 * The plan of a generated database: for every company × period × account (× partner) the
 * number of FI lines and the BUDGET, ACTUAL and FORECAST totals in integer cents. The FI
 * lines are split from the ACTUAL totals, the mart and BPC are built from the totals, so
 * every layer reconciles exactly unless a discrepancy is planted on purpose.
 */
import { Rng } from '../sample/random.ts';
import { ACCOUNTS, PERIODS, SEASONALITY, accountByGl, type Account } from '../sample/model.ts';
import { baseRate, buildCompanies, buildFx, type FxTable, type ScaleCompany } from './masterData.ts';
import { lcForGc, roundToStep, translate } from './money.ts';
import { choosePlanted, intercompanyPairs, type Planted } from './planted.ts';

export interface Cell {
  company: ScaleCompany;
  periodIndex: number;
  fiscper: string;
  account: Account;
  /** Partner company on the intercompany accounts, otherwise null. */
  pcompany: string | null;
  /** FI lines the ACTUAL is split into (0 when the posting is missing). */
  lines: number;
  budgetCents: number;
  /** null: no posting (the planted missing intercompany purchase). */
  actualCents: number | null;
  forecastCents: number | null;
}

export interface Plan {
  companies: ScaleCompany[];
  fx: FxTable;
  planted: Planted;
  /** Ordered by company, period, GL account: the order in which FI documents are numbered. */
  cells: Cell[];
}

/** Share of the (non-intercompany) FI lines and average line amount in EUR, per account. */
const ACCOUNT_PROFILE: Readonly<Record<string, { share: number; lineEur: number; noise: number }>> = {
  '4000000': { share: 0.35, lineEur: 12_000, noise: 0.03 },
  '5000000': { share: 0.3, lineEur: -7_000, noise: 0.03 },
  '6000000': { share: 0.12, lineEur: -3_500, noise: 0.02 },
  '6100000': { share: 0.18, lineEur: -1_500, noise: 0.03 },
  '7000000': { share: 0.05, lineEur: -800, noise: 0 },
};
const SEASONAL_ACCOUNTS = new Set(['4000000', '5000000']);
/** Budgets are rounded to 1,000 units, actuals to 10 units (cents per unit: 100). */
const BUDGET_STEP = 100_000;
const ACTUAL_STEP = 1_000;

/** Lines for each weight: at least one each, the rest in proportion (largest remainder). */
function allocate(total: number, weights: number[]): number[] {
  const counts = weights.map(() => 1);
  const rest = total - weights.length;
  if (rest < 0) throw new Error(`${total} lines are not enough for ${weights.length} cells`);
  const sum = weights.reduce((a, b) => a + b, 0);
  const quotas = weights.map((w) => (rest * w) / sum);
  let assigned = 0;
  quotas.forEach((q, i) => {
    counts[i]! += Math.floor(q);
    assigned += Math.floor(q);
  });
  const order = quotas.map((q, i) => ({ i, frac: q - Math.floor(q) })).sort((x, y) => y.frac - x.frac || x.i - y.i);
  for (let k = 0; k < rest - assigned; k++) counts[order[k]!.i]! += 1;
  return counts;
}

const nonZero = (cents: number, step: number) => (cents === 0 ? step : cents);

/** LC cents of an amount given in another currency's cents, converted via EUR. */
function convert(cents: number, fromRate: number, toRate: number): number {
  return (cents * fromRate) / toRate;
}

export function buildPlan(rows: number, companyCount: number, seed: number): Plan {
  const companies = buildCompanies(companyCount, seed);
  const fx = buildFx(companies.map((c) => c.currency), seed);
  const planted = choosePlanted(companies, fx, seed);
  const pairs = intercompanyPairs(companies);
  const icLines = pairs.length * PERIODS.length * 2 - (planted.missingIntercompany ? 1 : 0);
  const regularAccounts = ACCOUNTS.filter((a) => ACCOUNT_PROFILE[a.gl_acct] !== undefined);

  // Regular cells: line counts by company size, account share and seasonality.
  const cells: Cell[] = [];
  const weights: number[] = [];
  for (const company of companies) {
    for (let p = 0; p < PERIODS.length; p++) {
      for (const account of regularAccounts) {
        const profile = ACCOUNT_PROFILE[account.gl_acct]!;
        weights.push(company.size * profile.share * (SEASONAL_ACCOUNTS.has(account.gl_acct) ? SEASONALITY[p]! : 1));
        cells.push({ company, periodIndex: p, fiscper: PERIODS[p]!, account, pcompany: null, lines: 0, budgetCents: 0, actualCents: 0, forecastCents: 0 });
      }
    }
  }
  const counts = allocate(rows - icLines, weights);
  const isAt = (c: Cell, at: { compcode: string; periodIndex: number }) => c.company.compcode === at.compcode && c.periodIndex === at.periodIndex;

  cells.forEach((cell, i) => {
    const { company, account, periodIndex: p } = cell;
    const profile = ACCOUNT_PROFILE[account.gl_acct]!;
    const rng = Rng.forLabel(seed, `plan:${company.compcode}:${cell.fiscper}:${account.gl_acct}`);
    cell.lines = counts[i]!;
    const budgetEur = cell.lines * profile.lineEur * rng.uniform(0.9, 1.1);
    cell.budgetCents = nonZero(roundToStep((budgetEur / baseRate(company.currency)) * 100, BUDGET_STEP), Math.sign(profile.lineEur) * BUDGET_STEP);
    const variance = cell.pcompany === null ? planted.variances.find((v) => isAt(cell, v) && v.gl_acct === account.gl_acct) : undefined;
    const actual = variance
      ? Math.round(cell.budgetCents * variance.factor)
      : roundToStep(cell.budgetCents * (1 + rng.uniform(-profile.noise, profile.noise)), ACTUAL_STEP);
    cell.actualCents = nonZero(actual, Math.sign(cell.budgetCents) * ACTUAL_STEP);
    const reforecast = rng.uniform(-0.04, 0.04);
    cell.forecastCents = p < 6 ? cell.actualCents : roundToStep(cell.budgetCents * (1 + reforecast), BUDGET_STEP);
  });

  // Intercompany: one invoice a month per pair, one line on each side, translating to the
  // same EUR amount on both sides so the elimination nets to exactly 0.00 EUR.
  const revenueBudget = (company: ScaleCompany, p: number) =>
    cells.find((c) => c.company === company && c.periodIndex === p && c.account.gl_acct === '4000000')!.budgetCents;
  for (const pair of pairs) {
    const { seller, buyer } = pair;
    for (let p = 0; p < PERIODS.length; p++) {
      const rng = Rng.forLabel(seed, `plan-ic:${seller.compcode}:${buyer.compcode}:${PERIODS[p]}`);
      const rS = fx.rate(seller.currency, p);
      const rB = fx.rate(buyer.currency, p);
      const sellerBudget = nonZero(roundToStep(revenueBudget(seller, p) * 0.1, BUDGET_STEP), BUDGET_STEP);
      // The buyer's figures are the seller's converted, to 10 units (so ACTUAL stays within ~3 % of BUDGET).
      const buyerBudget = -nonZero(roundToStep(convert(sellerBudget, rS, rB), ACTUAL_STEP), ACTUAL_STEP);
      const target = roundToStep(sellerBudget * (1 + rng.uniform(-0.03, 0.03)), ACTUAL_STEP);
      const { sellerCents, buyerCents } = intercompanyAmounts(target, seller, rS, buyer, rB);
      const sellerForecast = roundToStep(sellerBudget * (1 + rng.uniform(-0.04, 0.04)), BUDGET_STEP);
      const missing = planted.missingIntercompany?.pair.buyer.compcode === buyer.compcode && planted.missingIntercompany.periodIndex === p;
      const base = { periodIndex: p, fiscper: PERIODS[p]! };
      cells.push({
        ...base,
        company: seller,
        account: accountByGl('4100000'),
        pcompany: buyer.compcode,
        lines: 1,
        budgetCents: sellerBudget,
        actualCents: sellerCents,
        forecastCents: p < 6 ? sellerCents : sellerForecast,
      });
      cells.push({
        ...base,
        company: buyer,
        account: accountByGl('5100000'),
        pcompany: seller.compcode,
        lines: missing ? 0 : 1,
        budgetCents: buyerBudget,
        actualCents: missing ? null : buyerCents,
        forecastCents: p < 6 ? (missing ? null : buyerCents) : -nonZero(roundToStep(convert(sellerForecast, rS, rB), ACTUAL_STEP), ACTUAL_STEP),
      });
    }
  }
  cells.sort((x, y) => x.company.index - y.company.index || x.periodIndex - y.periodIndex || x.account.gl_acct.localeCompare(y.account.gl_acct));
  return { companies, fx, planted, cells };
}

/**
 * Seller and buyer amounts near `targetCents` (seller currency) whose EUR translations are
 * exactly opposite: the buyer books the seller's invoice converted at the period's rate.
 */
function intercompanyAmounts(targetCents: number, seller: ScaleCompany, rS: number, buyer: ScaleCompany, rB: number) {
  const start = roundToStep(targetCents, seller.unitCents);
  for (let i = 0; i < 10_000; i++) {
    const offset = (i % 2 === 0 ? 1 : -1) * Math.ceil(i / 2) * seller.unitCents;
    const sellerCents = start + offset;
    const eur = translate(sellerCents, rS);
    const buyerCents = lcForGc(-eur, rB, buyer.unitCents);
    if (buyerCents !== null) return { sellerCents, buyerCents, eurCents: eur };
  }
  throw new Error(`no exact intercompany amount near ${targetCents} (${seller.currency} → ${buyer.currency})`);
}

