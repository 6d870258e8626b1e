/**
 * Master data and plan parameters of the bundled sample (fiscal year 2024).
 *
 * Everything the generator needs that is not random lives here, so the
 * ground truth in data/README.md can be traced back to one place.
 */

export const SEED = 20240101;
export const FISCAL_YEAR = 2024;
export const FISCAL_YEAR_VARIANT = 'K4';
export const GROUP_CURRENCY = 'EUR';
export const SCOPE = 'S_LEGAL';

export interface Company {
  compcode: string;
  name: string;
  country: string;
  currency: string;
}

export const COMPANIES: readonly Company[] = [
  { compcode: '1000', name: 'Contoso Deutschland GmbH', country: 'DE', currency: 'EUR' },
  { compcode: '2000', name: 'Contoso Inc.', country: 'US', currency: 'USD' },
  { compcode: '3000', name: 'Contoso UK Ltd', country: 'GB', currency: 'GBP' },
];

export type AccountType = 'revenue' | 'expense';

export interface Account {
  gl_acct: string;
  grpacct: string;
  description: string;
  account_type: AccountType;
  /** Quantity (pieces) is carried on this account's FI lines. */
  hasQuantity: boolean;
}

export const ACCOUNTS: readonly Account[] = [
  { gl_acct: '4000000', grpacct: 'G4000000', description: 'Revenue', account_type: 'revenue', hasQuantity: true },
  { gl_acct: '4100000', grpacct: 'G4100000', description: 'Intercompany revenue', account_type: 'revenue', hasQuantity: true },
  { gl_acct: '5000000', grpacct: 'G5000000', description: 'Cost of goods sold', account_type: 'expense', hasQuantity: true },
  { gl_acct: '5100000', grpacct: 'G5100000', description: 'Intercompany purchases', account_type: 'expense', hasQuantity: true },
  { gl_acct: '6000000', grpacct: 'G6000000', description: 'Personnel expenses', account_type: 'expense', hasQuantity: false },
  { gl_acct: '6100000', grpacct: 'G6100000', description: 'Other operating expenses', account_type: 'expense', hasQuantity: false },
  { gl_acct: '7000000', grpacct: 'G7000000', description: 'Depreciation', account_type: 'expense', hasQuantity: false },
];

export function accountByGl(gl: string): Account {
  const account = ACCOUNTS.find((a) => a.gl_acct === gl);
  if (!account) throw new Error(`Unknown GL account ${gl}`);
  return account;
}

/** Fiscal periods '2024001' .. '2024012'. */
export const PERIODS: readonly string[] = Array.from(
  { length: 12 },
  (_, i) => `${FISCAL_YEAR}${String(i + 1).padStart(3, '0')}`,
);

/**
 * Average monthly rates, local currency -> EUR, in units of 1/10000
 * (9245 = 0.9245 EUR per USD). Integers keep the translation exact.
 */
export const FX_RATES_E4: Readonly<Record<string, readonly number[]>> = {
  EUR: [10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000, 10000],
  USD: [9245, 9262, 9218, 9327, 9302, 9105, 9183, 9051, 9012, 9156, 9378, 9397],
  GBP: [11642, 11693, 11671, 11689, 11702, 11824, 11853, 11744, 11892, 11874, 11861, 11835],
};

export function rateE4(currency: string, periodIndex: number): number {
  const rates = FX_RATES_E4[currency];
  const rate = rates?.[periodIndex];
  if (rate === undefined) throw new Error(`No FX rate for ${currency} period index ${periodIndex}`);
  return rate;
}

/** Seasonality applied to revenue and cost of goods sold (by month). */
export const SEASONALITY: readonly number[] = [0.92, 0.95, 1.02, 0.98, 1.0, 1.03, 0.96, 0.9, 1.04, 1.06, 1.08, 1.06];

export interface CellPlan {
  gl_acct: string;
  /** Partner company for intercompany accounts, otherwise null. */
  pcompany: string | null;
  /** Monthly budget base in local currency (sign: revenue +, expense -). */
  monthlyBudget: number;
  seasonal: boolean;
  /** Maximum relative deviation of actual from budget (0 = actual equals budget). */
  actualNoise: number;
}

/** Which accounts each company posts, and its monthly plan figures. */
export const COMPANY_PLANS: Readonly<Record<string, readonly CellPlan[]>> = {
  '1000': [
    { gl_acct: '4000000', pcompany: null, monthlyBudget: 1_800_000, seasonal: true, actualNoise: 0.03 },
    { gl_acct: '4100000', pcompany: '2000', monthlyBudget: 150_000, seasonal: false, actualNoise: 0.03 },
    { gl_acct: '5000000', pcompany: null, monthlyBudget: -1_000_000, seasonal: true, actualNoise: 0.03 },
    { gl_acct: '6000000', pcompany: null, monthlyBudget: -420_000, seasonal: false, actualNoise: 0.02 },
    { gl_acct: '6100000', pcompany: null, monthlyBudget: -180_000, seasonal: false, actualNoise: 0.03 },
    { gl_acct: '7000000', pcompany: null, monthlyBudget: -60_000, seasonal: false, actualNoise: 0 },
  ],
  '2000': [
    { gl_acct: '4000000', pcompany: null, monthlyBudget: 1_500_000, seasonal: true, actualNoise: 0.03 },
    { gl_acct: '5000000', pcompany: null, monthlyBudget: -700_000, seasonal: true, actualNoise: 0.03 },
    // Budget of the intercompany purchase is derived from the seller's plan (see generate.ts).
    { gl_acct: '5100000', pcompany: '1000', monthlyBudget: 0, seasonal: false, actualNoise: 0 },
    { gl_acct: '6000000', pcompany: null, monthlyBudget: -300_000, seasonal: false, actualNoise: 0.02 },
    { gl_acct: '6100000', pcompany: null, monthlyBudget: -120_000, seasonal: false, actualNoise: 0.03 },
    { gl_acct: '7000000', pcompany: null, monthlyBudget: -40_000, seasonal: false, actualNoise: 0 },
  ],
  '3000': [
    { gl_acct: '4000000', pcompany: null, monthlyBudget: 900_000, seasonal: true, actualNoise: 0.03 },
    { gl_acct: '5000000', pcompany: null, monthlyBudget: -480_000, seasonal: true, actualNoise: 0.03 },
    { gl_acct: '6000000', pcompany: null, monthlyBudget: -210_000, seasonal: false, actualNoise: 0.02 },
    { gl_acct: '6100000', pcompany: null, monthlyBudget: -90_000, seasonal: false, actualNoise: 0.03 },
    { gl_acct: '7000000', pcompany: null, monthlyBudget: -30_000, seasonal: false, actualNoise: 0 },
  ],
};

/** Profit centres per company and the segment each belongs to. */
export const PROFIT_CENTERS: Readonly<Record<string, readonly { prof_ctr: string; segment: string }[]>> = {
  '1000': [
    { prof_ctr: 'PC1010', segment: 'SEG_IND' },
    { prof_ctr: 'PC1020', segment: 'SEG_RET' },
    { prof_ctr: 'PC1030', segment: 'SEG_IND' },
  ],
  '2000': [
    { prof_ctr: 'PC2010', segment: 'SEG_IND' },
    { prof_ctr: 'PC2020', segment: 'SEG_RET' },
  ],
  '3000': [
    { prof_ctr: 'PC3010', segment: 'SEG_IND' },
    { prof_ctr: 'PC3020', segment: 'SEG_RET' },
  ],
};

/** Average unit price (local currency per piece) used to derive quantities. */
export const UNIT_PRICE: Readonly<Record<string, number>> = {
  '1000': 250,
  '2000': 280,
  '3000': 220,
};

/** The planted discrepancies (documented in data/README.md). */
export const PLANTED = {
  duplicate: {
    compcode: '1000',
    fiscper: '2024012',
    gl_acct: '4000000',
    /** Sum of the duplicated lines, in cents (110,000.00 EUR). */
    amountCents: 11_000_000,
    /** Lines per duplicated document (3 documents, 4 lines). */
    documentSizes: [2, 1, 1],
    originalRequest: 'REQ_2024012_1000_01',
    duplicateRequest: 'REQ_2024012_1000_02',
  },
  missingIntercompany: { seller: '1000', buyer: '2000', fiscper: '2024009' },
  wrongTranslation: { compcode: '2000', fiscper: '2024006', ratePeriod: '2024005' },
  manualAdjustment: {
    compcode: '3000',
    fiscper: '2024010',
    grpacct: 'G6100000',
    amountCents: -2_500_000,
    audittrail: 'ADJ_MANUAL',
  },
  revenueShortfall: { compcode: '2000', fiscper: '2024011', gl_acct: '4000000', actualFactor: 0.85 },
  bonusAccrual: { compcode: '3000', fiscper: '2024011', gl_acct: '6000000', extraCents: -4_000_000 },
  dataQuality: { compcode: '3000', fiscper: '2024004', nullProfitCenters: 3, emptySegments: 2 },
} as const;
