/**
 * Master data of a generated database: companies (code, name, country, local
 * currency, size), their profit centres, and monthly exchange rates. Derived from
 * the seed only, so the same arguments give the same master data.
 */
import { Rng } from '../sample/random.ts';
import { PERIODS } from '../sample/model.ts';
import { RATE_SCALE } from './money.ts';

export interface ScaleCompany {
  index: number;
  compcode: string;
  name: string;
  country: string;
  currency: string;
  /** 1 for currencies with cents, 100 for currencies without decimals (JPY). */
  unitCents: number;
  /** Relative size of the company (share of the document lines). */
  size: number;
  /** First two digits of its 10-digit document numbers. */
  docPrefix: string;
  profitCenters: readonly { prof_ctr: string; segment: string }[];
  /** Average price of a piece, local currency cents (quantities are derived from it). */
  unitPriceCents: number;
}

/** Entities in the order companies are created; beyond the list it repeats with a number. */
const ENTITIES: readonly { country: string; currency: string; name: string }[] = [
  { country: 'DE', currency: 'EUR', name: 'Contoso Deutschland GmbH' },
  { country: 'US', currency: 'USD', name: 'Contoso Inc.' },
  { country: 'GB', currency: 'GBP', name: 'Contoso UK Ltd' },
  { country: 'CH', currency: 'CHF', name: 'Contoso Schweiz AG' },
  { country: 'JP', currency: 'JPY', name: 'Contoso Japan KK' },
  { country: 'CA', currency: 'CAD', name: 'Contoso Canada Inc.' },
  { country: 'SE', currency: 'SEK', name: 'Contoso Sverige AB' },
  { country: 'FR', currency: 'EUR', name: 'Contoso France SAS' },
  { country: 'AU', currency: 'AUD', name: 'Contoso Australia Pty Ltd' },
  { country: 'NO', currency: 'NOK', name: 'Contoso Norge AS' },
  { country: 'DK', currency: 'DKK', name: 'Contoso Danmark A/S' },
  { country: 'PL', currency: 'PLN', name: 'Contoso Polska Sp. z o.o.' },
  { country: 'NL', currency: 'EUR', name: 'Contoso Nederland B.V.' },
  { country: 'CZ', currency: 'CZK', name: 'Contoso Cesko s.r.o.' },
  { country: 'IT', currency: 'EUR', name: 'Contoso Italia S.r.l.' },
  { country: 'MX', currency: 'MXN', name: 'Contoso Mexico S.A. de C.V.' },
  { country: 'IN', currency: 'INR', name: 'Contoso India Pvt Ltd' },
  { country: 'BR', currency: 'BRL', name: 'Contoso Brasil Ltda' },
  { country: 'SG', currency: 'SGD', name: 'Contoso Singapore Pte Ltd' },
  { country: 'ES', currency: 'EUR', name: 'Contoso Espana S.L.' },
];

/** Approximate EUR per unit of each currency (2024), the centre of the generated rates. */
const BASE_RATE: Readonly<Record<string, number>> = {
  EUR: 1,
  USD: 0.924,
  GBP: 1.181,
  CHF: 1.051,
  JPY: 0.00611,
  CAD: 0.676,
  SEK: 0.0876,
  AUD: 0.609,
  NOK: 0.0862,
  DKK: 0.134,
  PLN: 0.232,
  CZK: 0.0398,
  MXN: 0.0512,
  INR: 0.0111,
  BRL: 0.171,
  SGD: 0.689,
};

const NO_DECIMALS = new Set(['JPY']);
const SEGMENTS = ['SEG_IND', 'SEG_RET', 'SEG_SVC'] as const;

export function baseRate(currency: string): number {
  const rate = BASE_RATE[currency];
  if (rate === undefined) throw new Error(`No base rate for ${currency}`);
  return rate;
}

/** 1000, 2000, …, 9000, then 1100, 2100, …, 9100, 1200, …: unique 4-digit codes. */
export function companyCode(index: number): string {
  if (index < 9) return String((index + 1) * 1000);
  const j = index - 9;
  return String(((j % 9) + 1) * 1000 + (Math.floor(j / 9) + 1) * 100);
}

export function buildCompanies(count: number, seed: number): ScaleCompany[] {
  const rng = Rng.forLabel(seed, 'companies');
  return Array.from({ length: count }, (_, index) => {
    const entity = ENTITIES[index % ENTITIES.length]!;
    const round = Math.floor(index / ENTITIES.length);
    const compcode = companyCode(index);
    const centers = rng.int(2, 4);
    const priceEur = rng.uniform(150, 350);
    return {
      index,
      compcode,
      name: round === 0 ? entity.name : `${entity.name} ${round + 1}`,
      country: entity.country,
      currency: entity.currency,
      unitCents: NO_DECIMALS.has(entity.currency) ? 100 : 1,
      size: rng.uniform(0.5, 1.5),
      docPrefix: String(index + 1).padStart(2, '0'),
      profitCenters: Array.from({ length: centers }, (_, c) => ({
        prof_ctr: `PC${compcode}${c + 1}0`,
        segment: SEGMENTS[c % SEGMENTS.length]!,
      })),
      unitPriceCents: Math.round((priceEur / baseRate(entity.currency)) * 100),
    };
  });
}

export interface FxTable {
  currencies: string[];
  /** Rate (EUR per unit × RATE_SCALE) of a currency in a period (index 0–11). */
  rate(currency: string, periodIndex: number): number;
  /** The period (index ≥ 1) in which the currency moved most against the previous period. */
  jumpPeriod(currency: string): number;
}

/** Rounds to 6 significant digits, as integer × RATE_SCALE. */
function scaledRate(rate: number): number {
  const digits = 6 - Math.ceil(Math.log10(rate));
  const rounded = Math.round(rate * 10 ** digits) / 10 ** digits;
  return Math.round(rounded * RATE_SCALE);
}

/**
 * Monthly average rates: a random walk around the base rate (steps of 0.2–1.5 %), with one
 * larger move of 2.5–4 % per currency, so a translation at the previous period's rate in
 * that period is visibly wrong. EUR is always 1.
 */
export function buildFx(currencies: readonly string[], seed: number): FxTable {
  const table = new Map<string, { rates: number[]; jump: number }>();
  for (const currency of [...new Set(currencies)].sort()) {
    if (currency === 'EUR') {
      table.set(currency, { rates: PERIODS.map(() => RATE_SCALE), jump: 1 });
      continue;
    }
    const rng = Rng.forLabel(seed, `fx:${currency}`);
    const jump = rng.int(1, PERIODS.length - 1);
    let rate = baseRate(currency) * (1 + rng.uniform(-0.02, 0.02));
    const rates: number[] = [];
    for (let p = 0; p < PERIODS.length; p++) {
      if (p > 0) {
        const size = p === jump ? rng.uniform(0.025, 0.04) : rng.uniform(0.002, 0.015);
        rate *= 1 + (rng.next() < 0.5 ? -size : size);
      }
      rates.push(scaledRate(rate));
    }
    table.set(currency, { rates, jump });
  }
  return {
    currencies: [...table.keys()],
    rate(currency, periodIndex) {
      const rate = table.get(currency)?.rates[periodIndex];
      if (rate === undefined) throw new Error(`No rate for ${currency} in period index ${periodIndex}`);
      return rate;
    },
    jumpPeriod(currency) {
      const entry = table.get(currency);
      if (!entry) throw new Error(`No rates for ${currency}`);
      return entry.jump;
    },
  };
}
