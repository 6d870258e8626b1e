/**
 * The second sample ("Northwind Traders", an SAP general-ledger extract): master data, the
 * fiscal calendar (fiscal year starting in April), the planted discrepancies and the
 * deterministic generation of the GL lines and the budget rows. Shaped unlike data/sample on
 * purpose: SAP column names, YYYYMM periods, a separate budget table, other currencies (JPY has
 * no decimals). Amounts are integers in the currency's minor unit until written.
 */
import { Rng } from '../sample/random.ts';

export const SEED = 20_240_401;

export interface Company {
  bukrs: string;
  butxt: string;
  ort01: string;
  land1: string;
  waers: string;
  /** Decimals of the currency (JPY 0). */
  decimals: number;
  /** Monthly revenue budget in currency units, before seasonality and growth. */
  revenue: number;
  /** Share of revenue that is export (account 410000). */
  exportShare: number;
  /** Budget figures are rounded to this many currency units, actuals to a hundredth of it. */
  budgetStep: number;
  /** First two digits of the company's document numbers (belnr). */
  docPrefix: string;
  prctr: string[];
  kostl: string[];
}

export const COMPANIES: readonly Company[] = [
  { bukrs: 'IN01', butxt: 'Northwind Traders India Pvt Ltd', ort01: 'Pune', land1: 'IN', waers: 'INR', decimals: 2, revenue: 42_000_000, exportShare: 0.35, budgetStep: 10_000, docPrefix: '14', prctr: ['IN-P100', 'IN-P200'], kostl: ['IN-C1000', 'IN-C2000'] },
  { bukrs: 'JP01', butxt: 'Northwind Traders Japan KK', ort01: 'Osaka', land1: 'JP', waers: 'JPY', decimals: 0, revenue: 85_000_000, exportShare: 0.3, budgetStep: 100_000, docPrefix: '15', prctr: ['JP-P100', 'JP-P200', 'JP-P300'], kostl: ['JP-C1000', 'JP-C2000'] },
  { bukrs: 'CA01', butxt: 'Northwind Traders Canada Inc.', ort01: 'Toronto', land1: 'CA', waers: 'CAD', decimals: 2, revenue: 900_000, exportShare: 0.25, budgetStep: 1_000, docPrefix: '16', prctr: ['CA-P100', 'CA-P200'], kostl: ['CA-C1000', 'CA-C2000'] },
  { bukrs: 'SG01', butxt: 'Northwind Traders Singapore Pte Ltd', ort01: 'Singapore', land1: 'SG', waers: 'SGD', decimals: 2, revenue: 600_000, exportShare: 0.75, budgetStep: 1_000, docPrefix: '17', prctr: ['SG-P100'], kostl: ['SG-C1000'] },
];

export interface Account {
  saknr: string;
  txt20: string;
  txt50: string;
  /** Share of the company's monthly revenue (negative for expenses); revenue accounts use the export share instead. */
  ratio: number;
  /** Flat accounts (rent, depreciation) have no seasonality and actual = budget. */
  flat: boolean;
  /** Lines per month: [min, max]. */
  lines: [number, number];
}

export const ACCOUNTS: readonly Account[] = [
  { saknr: '400000', txt20: 'Domestic revenue', txt50: 'Revenue from domestic sales', ratio: 1, flat: false, lines: [6, 12] },
  { saknr: '410000', txt20: 'Export revenue', txt50: 'Revenue from export sales', ratio: 1, flat: false, lines: [4, 9] },
  { saknr: '500000', txt20: 'Cost of materials', txt50: 'Cost of materials expenses (goods sold)', ratio: -0.45, flat: false, lines: [5, 10] },
  { saknr: '610000', txt20: 'Salaries', txt50: 'Personnel expenses - salaries and wages', ratio: -0.18, flat: false, lines: [2, 4] },
  { saknr: '620000', txt20: 'Rent', txt50: 'Rent and facilities expenses', ratio: -0.05, flat: true, lines: [1, 2] },
  { saknr: '630000', txt20: 'Travel', txt50: 'Travel expenses', ratio: -0.02, flat: false, lines: [3, 7] },
  { saknr: '700000', txt20: 'Depreciation', txt50: 'Depreciation expenses', ratio: -0.03, flat: true, lines: [1, 1] },
];

export const REVENUE_ACCOUNTS = ['400000', '410000'];

/** Fiscal years (named by the calendar year they start in) and their months, April first. */
export const FISCAL_YEARS = [2024, 2025] as const;
export const FISCAL_YEAR_START_MONTH = 4;
/** SAP's standard fiscal year variant for April–March (12 periods + 4 special), held in t001.periv. */
export const FISCAL_YEAR_VARIANT = 'V3';

/**
 * The 12 calendar months (YYYYMM) of fiscal year `fy`: April fy … March fy+1.
 * @example
 * fiscalMonths(2024); // [202404, 202405, …, 202503]
 */
export function fiscalMonths(fy: number): number[] {
  return Array.from({ length: 12 }, (_, i) => {
    const month = ((FISCAL_YEAR_START_MONTH - 1 + i) % 12) + 1;
    return (month >= FISCAL_YEAR_START_MONTH ? fy : fy + 1) * 100 + month;
  });
}

/**
 * The 3 months of fiscal quarter `q` (1–4) of fiscal year `fy`.
 * @example
 * quarterMonths(2024, 4); // [202501, 202502, 202503]
 */
export const quarterMonths = (fy: number, q: number): number[] => fiscalMonths(fy).slice((q - 1) * 3, q * 3);

export const MONTHS: number[] = FISCAL_YEARS.flatMap(fiscalMonths);

/** Seasonality by fiscal period 1 (April) … 12 (March). */
const SEASONALITY = [0.95, 0.97, 1.0, 0.98, 0.96, 1.02, 1.04, 1.06, 1.12, 0.92, 0.94, 1.04];
const GROWTH: Record<number, number> = { 2024: 1, 2025: 1.06 };

/** The planted discrepancies: every figure in the README's ground truth follows from these. */
export const PLANTED = {
  /** Budget rows loaded twice into gl_plan (the copies are appended at the end of the table). */
  duplicatedPlan: [
    { bukrs: 'CA01', month: 202409, hkont: '400000' },
    { bukrs: 'IN01', month: 202601, hkont: '500000' },
  ],
  /** Actual = budget × factor (a strong deviation in one month). */
  deviations: [
    { bukrs: 'JP01', month: 202511, hkont: '400000', factor: 0.62, why: 'a large customer order was not delivered' },
    { bukrs: 'CA01', month: 202502, hkont: '620000', factor: 1.8, why: 'a one-off lease exit fee for the old warehouse' },
  ],
  /** Export revenue of SG01 falls by 9 % a month after its base month, for six months. */
  decline: { bukrs: 'SG01', hkont: '410000', baseMonth: 202506, months: [202507, 202508, 202509, 202510, 202511, 202512], factor: 0.91 },
  /** Cells with no posting at all (the budget row exists). */
  missing: [
    { bukrs: 'IN01', month: 202502, hkont: '610000', why: "that month's payroll was not posted" },
    { bukrs: 'JP01', month: 202603, hkont: '700000', why: "that month's depreciation run was not posted" },
  ],
} as const;

export interface GlLine {
  bukrs: string;
  gjahr_monat: number;
  belnr: string;
  buzei: number;
  hkont: string;
  prctr: string;
  kostl: string | null;
  hsl: number; // minor units
  rwcur: string;
}

export interface PlanRow {
  bukrs: string;
  gjahr_monat: number;
  hkont: string;
  plan_wert: number; // minor units
  waers: string;
}

export interface SapSampleModel {
  companies: readonly Company[];
  accounts: readonly Account[];
  lines: GlLine[];
  plan: PlanRow[];
}

const fiscalYearOf = (month: number) => (month % 100 >= FISCAL_YEAR_START_MONTH ? Math.floor(month / 100) : Math.floor(month / 100) - 1);
const fiscalPeriodOf = (month: number) => ((month % 100) - FISCAL_YEAR_START_MONTH + 12) % 12;
const roundTo = (value: number, step: number) => Math.sign(value) * Math.round(Math.abs(value) / step) * step;

/** Budget of one cell in minor units. */
function budgetCell(company: Company, account: Account, month: number): number {
  const share = account.saknr === '400000' ? 1 - company.exportShare : account.saknr === '410000' ? company.exportShare : account.ratio;
  const season = account.flat ? 1 : SEASONALITY[fiscalPeriodOf(month)]!;
  const units = company.revenue * share * season * GROWTH[fiscalYearOf(month)]!;
  return roundTo(units, company.budgetStep) * 10 ** company.decimals;
}

const sameCell = (bukrs: string, month: number, hkont: string) => (p: { bukrs: string; month: number; hkont: string }) => p.bukrs === bukrs && p.month === month && p.hkont === hkont;

/** Actual total of every cell (minor units), planted cases included; null when nothing is posted. */
function actualCells(company: Company, budget: (a: Account, m: number) => number): Map<string, number | null> {
  const rng = Rng.forLabel(SEED, `actual:${company.bukrs}`);
  const step = (company.budgetStep / 100) * 10 ** company.decimals;
  const cells = new Map<string, number | null>();
  for (const month of MONTHS) {
    for (const account of ACCOUNTS) {
      const b = budget(account, month);
      const drift = rng.uniform(-0.028, 0.028);
      let actual = account.flat ? b : roundTo(b * (1 + drift), step);
      const deviation = PLANTED.deviations.find(sameCell(company.bukrs, month, account.saknr));
      if (deviation) actual = roundTo(b * deviation.factor, step);
      const decline = PLANTED.decline;
      const k = (decline.months as readonly number[]).indexOf(month);
      if (decline.bukrs === company.bukrs && decline.hkont === account.saknr && k >= 0) {
        actual = roundTo(cells.get(`${decline.baseMonth}|${account.saknr}`)! * decline.factor ** (k + 1), step);
      }
      const missing = PLANTED.missing.some(sameCell(company.bukrs, month, account.saknr));
      cells.set(`${month}|${account.saknr}`, missing ? null : actual);
    }
  }
  return cells;
}

/** Splits `total` into `n` same-signed parts with random weights; the last part takes the remainder. */
function split(rng: Rng, total: number, n: number): number[] {
  const weights = Array.from({ length: n }, () => rng.uniform(0.5, 1.5));
  const sum = weights.reduce((a, b) => a + b, 0);
  const parts = weights.slice(0, -1).map((w) => Math.trunc((total * w) / sum));
  parts.push(total - parts.reduce((a, b) => a + b, 0));
  return parts;
}

/**
 * Generates the whole sample in memory: the same rows in the same order on every call.
 * @example
 * const { lines, plan } = generateSapSample();
 * lines.filter((l) => l.bukrs === 'JP01' && l.gjahr_monat === 202511).length;
 */
export function generateSapSample(): SapSampleModel {
  const lines: GlLine[] = [];
  const plan: PlanRow[] = [];
  const perCompany = COMPANIES.map((company) => {
    const budget = (account: Account, month: number) => budgetCell(company, account, month);
    return { company, budget, actual: actualCells(company, budget), rng: Rng.forLabel(SEED, `lines:${company.bukrs}`), docNo: 0 };
  });
  for (const month of MONTHS) {
    for (const state of perCompany) {
      const { company, rng } = state;
      for (const account of ACCOUNTS) {
        plan.push({ bukrs: company.bukrs, gjahr_monat: month, hkont: account.saknr, plan_wert: state.budget(account, month), waers: company.waers });
        const total = state.actual.get(`${month}|${account.saknr}`);
        if (total === null || total === undefined) continue;
        const amounts = split(rng, total, rng.int(account.lines[0], account.lines[1]));
        const isRevenue = REVENUE_ACCOUNTS.includes(account.saknr) || account.saknr === '500000';
        let buzei = 0;
        let belnr = '';
        for (const hsl of amounts) {
          if (buzei === 0 || buzei >= rng.int(1, 3)) {
            state.docNo += 1;
            belnr = `${company.docPrefix}${String(state.docNo).padStart(8, '0')}`;
            buzei = 0;
          }
          buzei += 1;
          const kostl = isRevenue ? null : rng.pick(company.kostl);
          const prctr = rng.pick(company.prctr);
          lines.push({ bukrs: company.bukrs, gjahr_monat: month, belnr, buzei, hkont: account.saknr, prctr, kostl, hsl, rwcur: company.waers });
        }
      }
    }
  }
  for (const dup of PLANTED.duplicatedPlan) {
    const original = plan.find((row) => row.bukrs === dup.bukrs && row.gjahr_monat === dup.month && row.hkont === dup.hkont)!;
    plan.push({ ...original });
  }
  return { companies: COMPANIES, accounts: ACCOUNTS, lines, plan };
}

/**
 * Minor units to the stored amount (JPY has no decimals).
 * @example
 * toAmount(123456, 2); // 1234.56
 */
export const toAmount = (minor: number, decimals: number): number => minor / 10 ** decimals;
