/**
 * The sample's plan: budget, actual and forecast totals per company x period x account
 * (x partner), in integer cents, including the planted variances and the missing
 * intercompany purchase. FI lines, the mart and BPC are all derived from these cells.
 */
import { Rng } from './random.ts';
import { COMPANIES, COMPANY_PLANS, PERIODS, PLANTED, SEASONALITY, SEED, accountByGl, rateE4 } from './model.ts';

// ---------------------------------------------------------------------------
// Integer arithmetic helpers (cents, rates in 1/10000)

/** Integer division rounding half away from zero (numerator, denominator > 0 assumed for denominator). */
export function divRound(numerator: number, denominator: number): number {
  const sign = numerator < 0 ? -1 : 1;
  const q = Math.floor((2 * Math.abs(numerator) + denominator) / (2 * denominator));
  return sign * q;
}

/** Round an amount in currency units to a multiple of `step` units; returns cents. */
export function roundToStepCents(amount: number, step: number): number {
  const sign = amount < 0 ? -1 : 1;
  return sign * Math.round(Math.abs(amount) / step) * step * 100;
}

/** Translate local-currency cents to group-currency cents at a rate in 1/10000. */
export function translateCents(lcCents: number, rate: number): number {
  return divRound(lcCents * rate, 10000);
}

/** Local-currency cents of a group-currency (EUR) amount: eur / rate, rounded to cents. */
export function fromEurCents(eurCents: number, rate: number): number {
  return divRound(eurCents * 10000, rate);
}

export function cellKey(compcode: string, fiscper: string, grpacct: string, pcompany: string | null): string {
  return `${compcode}|${fiscper}|${grpacct}|${pcompany ?? ''}`;
}

export function periodAt(index: number): string {
  const period = PERIODS[index];
  if (period === undefined) throw new Error(`No period at index ${index}`);
  return period;
}

// ---------------------------------------------------------------------------
// Plan: budget, actual and forecast cell totals (company x period x account x partner)

export interface Cell {
  compcode: string;
  fiscper: string;
  periodIndex: number;
  gl_acct: string;
  grpacct: string;
  pcompany: string | null;
  currency: string;
  budgetCents: number;
  /** null when the actual posting is missing (planted). */
  actualCents: number | null;
  forecastCents: number;
}

export function planCells(): Cell[] {
  const cells: Cell[] = [];
  // Seller side of the intercompany flow, needed by the buyer's cells.
  const icSeller = new Map<number, { budget: number; actual: number; forecast: number }>();

  for (const company of COMPANIES) {
    const plans = COMPANY_PLANS[company.compcode] ?? [];
    for (const plan of plans) {
      const account = accountByGl(plan.gl_acct);
      const actualRng = Rng.forLabel(SEED, `actual:${company.compcode}:${plan.gl_acct}`);
      const forecastRng = Rng.forLabel(SEED, `forecast:${company.compcode}:${plan.gl_acct}`);
      const isIcBuyer = plan.pcompany !== null && account.account_type === 'expense';

      for (let p = 0; p < PERIODS.length; p++) {
        const fiscper = periodAt(p);
        // Always draw, so that every stream stays aligned to its period.
        const noise = actualRng.uniform(-plan.actualNoise, plan.actualNoise);
        const reforecast = forecastRng.uniform(-0.04, 0.04);
        const rate = rateE4(company.currency, p);

        let budgetCents: number;
        let actualCents: number | null;
        let forecastCents: number;

        if (isIcBuyer) {
          const seller = icSeller.get(p);
          if (!seller) throw new Error('Intercompany seller must be planned before the buyer');
          budgetCents = -roundToStepCents(seller.budget / 100 / (rate / 10000), 1000);
          // The buyer books the seller's EUR invoice in USD at the period's rate.
          actualCents = -fromEurCents(seller.actual, rate);
          if (translateCents(actualCents, rate) !== -seller.actual) {
            throw new Error(`Intercompany round trip is not exact in ${fiscper}`);
          }
          forecastCents = p < 6 ? actualCents : -roundToStepCents(seller.forecast / 100 / (rate / 10000), 1000);
        } else {
          const seasonal = plan.seasonal ? (SEASONALITY[p] ?? 1) : 1;
          budgetCents = roundToStepCents(plan.monthlyBudget * seasonal, 1000);
          actualCents = roundToStepCents((budgetCents / 100) * (1 + noise), 100);
          forecastCents = p < 6 ? actualCents : roundToStepCents((budgetCents / 100) * (1 + reforecast), 1000);
        }

        // Planted budget variances (discrepancy 5).
        const shortfall = PLANTED.revenueShortfall;
        if (company.compcode === shortfall.compcode && fiscper === shortfall.fiscper && plan.gl_acct === shortfall.gl_acct) {
          actualCents = Math.round(budgetCents * shortfall.actualFactor);
        }
        const bonus = PLANTED.bonusAccrual;
        if (company.compcode === bonus.compcode && fiscper === bonus.fiscper && plan.gl_acct === bonus.gl_acct) {
          actualCents = budgetCents + bonus.extraCents;
        }
        // Planted missing intercompany purchase (discrepancy 2).
        const ic = PLANTED.missingIntercompany;
        if (isIcBuyer && company.compcode === ic.buyer && fiscper === ic.fiscper) {
          actualCents = null;
        }

        if (plan.pcompany !== null && !isIcBuyer) {
          icSeller.set(p, { budget: budgetCents, actual: actualCents ?? 0, forecast: forecastCents });
        }

        cells.push({
          compcode: company.compcode,
          fiscper,
          periodIndex: p,
          gl_acct: plan.gl_acct,
          grpacct: account.grpacct,
          pcompany: plan.pcompany,
          currency: company.currency,
          budgetCents,
          actualCents,
          forecastCents,
        });
      }
    }
  }
  return cells;
}

