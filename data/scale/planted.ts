/**
 * Where the discrepancies of a generated database go. Positions are drawn from the seed
 * (so a different seed plants them elsewhere); each case gets its own company × period,
 * so the checks of the manifest never see each other's differences.
 */
import { Rng } from '../sample/random.ts';
import { PERIODS } from '../sample/model.ts';
import type { FxTable, ScaleCompany } from './masterData.ts';

export interface IntercompanyPair {
  seller: ScaleCompany;
  buyer: ScaleCompany;
}

export interface Planted {
  /** (a) documents of one company × period × account loaded twice into fi_reporting. */
  duplicate: { compcode: string; periodIndex: number; gl_acct: string };
  /** (b) a few documents of one cell lost between fi_acquisition and fi_reporting. */
  lost: { compcode: string; periodIndex: number; gl_acct: string; documents: number };
  /** (c) the buyer's intercompany purchase missing in one period (all layers). */
  missingIntercompany: { pair: IntercompanyPair; periodIndex: number } | null;
  /** (d) BPC ACTUAL translated at the previous period's rate for one company × period. */
  wrongRate: { compcode: string; periodIndex: number; ratePeriodIndex: number };
  /** (e) a manual top-side entry in BPC only; the amount is a share of the cell's actual. */
  manual: { compcode: string; periodIndex: number; gl_acct: string; share: number };
  /** (f) ACTUAL = BUDGET × factor (0.85 or 1.15) on a few cells. */
  variances: { compcode: string; periodIndex: number; gl_acct: string; factor: number }[];
}

/** Company 2m sells to company 2m + 1 every month. */
export function intercompanyPairs(companies: readonly ScaleCompany[]): IntercompanyPair[] {
  const pairs: IntercompanyPair[] = [];
  for (let i = 0; i + 1 < companies.length; i += 2) pairs.push({ seller: companies[i]!, buyer: companies[i + 1]! });
  return pairs;
}

export function choosePlanted(companies: readonly ScaleCompany[], fx: FxTable, seed: number): Planted {
  const rng = Rng.forLabel(seed, 'planted');
  const used = new Set<string>();
  const take = (compcode: string, periodIndex: number) => used.add(`${compcode}|${periodIndex}`);
  const free = (compcode: string, periodIndex: number) => !used.has(`${compcode}|${periodIndex}`);
  const freeSlot = (): { compcode: string; periodIndex: number } => {
    for (let attempt = 0; attempt < 10_000; attempt++) {
      const compcode = rng.pick(companies).compcode;
      const periodIndex = rng.int(0, PERIODS.length - 1);
      if (free(compcode, periodIndex)) {
        take(compcode, periodIndex);
        return { compcode, periodIndex };
      }
    }
    throw new Error('no free company × period left for a planted discrepancy');
  };

  // (d) needs a company whose currency is not the group currency; the period is the one
  // in which its currency moved most, so the previous period's rate is visibly wrong.
  const foreign = companies.filter((c) => c.currency !== 'EUR');
  const translated = rng.pick(foreign.length ? foreign : companies);
  const jump = fx.jumpPeriod(translated.currency);
  take(translated.compcode, jump);
  const wrongRate = { compcode: translated.compcode, periodIndex: jump, ratePeriodIndex: jump - 1 };

  const pairs = intercompanyPairs(companies);
  let missingIntercompany: Planted['missingIntercompany'] = null;
  if (pairs.length) {
    const pair = rng.pick(pairs);
    let periodIndex = rng.int(0, PERIODS.length - 1);
    while (!free(pair.buyer.compcode, periodIndex)) periodIndex = (periodIndex + 1) % PERIODS.length;
    take(pair.buyer.compcode, periodIndex);
    missingIntercompany = { pair, periodIndex };
  }

  const duplicate = { ...freeSlot(), gl_acct: rng.pick(['4000000', '5000000']) };
  const lost = { ...freeSlot(), gl_acct: rng.pick(['4000000', '5000000', '6000000', '6100000']), documents: rng.int(2, 4) };
  const manual = { ...freeSlot(), gl_acct: rng.pick(['6000000', '6100000']), share: rng.uniform(0.1, 0.3) };

  const wanted = Math.min(6, Math.max(2, 1 + Math.round(companies.length / 3)));
  const variances: Planted['variances'] = [];
  for (let i = 0; i < wanted && used.size < companies.length * PERIODS.length; i++) {
    const gl_acct = rng.pick(['4000000', '5000000', '6000000', '6100000']);
    const revenue = gl_acct.startsWith('4');
    // Revenue mostly falls short of budget, expenses mostly overrun it.
    const adverse = rng.next() < 0.7;
    const factor = revenue === adverse ? 0.85 : 1.15;
    variances.push({ ...freeSlot(), gl_acct, factor });
  }
  return { duplicate, lost, missingIntercompany, wrongRate, manual, variances };
}
