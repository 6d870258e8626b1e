/**
 * Exact money arithmetic of the scale generator: amounts are integer cents, exchange
 * rates integers in 1/10^8 EUR per unit (translation in BigInt, so no product ever
 * loses precision), and the comparison rules of compare_sources, to predict the status
 * a check must report.
 */
import type { Rng } from '../sample/random.ts';

/** Rates are stored as integers: rate_to_eur × RATE_SCALE. */
export const RATE_SCALE = 100_000_000;
const RATE_SCALE_BIG = BigInt(RATE_SCALE);

/** a / b for BigInts, rounded half away from zero (b > 0). */
function divRoundBig(a: bigint, b: bigint): bigint {
  const negative = a < 0n;
  const abs = negative ? -a : a;
  const q = (2n * abs + b) / (2n * b);
  return negative ? -q : q;
}

/** Local-currency cents translated to group-currency (EUR) cents at `rate` (× RATE_SCALE). */
export function translate(lcCents: number, rate: number): number {
  return Number(divRoundBig(BigInt(lcCents) * BigInt(rate), RATE_SCALE_BIG));
}

/**
 * A local-currency amount (a multiple of `unitCents`) that translates to exactly
 * `gcCents` at `rate`, or null when none does (possible when one LC unit is worth more
 * than one EUR cent).
 */
export function lcForGc(gcCents: number, rate: number, unitCents: number): number | null {
  const unit = BigInt(unitCents);
  const guess = divRoundBig(divRoundBig(BigInt(gcCents) * RATE_SCALE_BIG, BigInt(rate)), unit) * unit;
  for (const candidate of [guess, guess - unit, guess + unit]) {
    const lc = Number(candidate);
    if (translate(lc, rate) === gcCents) return lc;
  }
  return null;
}

/** Round cents to a multiple of `stepCents` (half away from zero). */
export function roundToStep(cents: number, stepCents: number): number {
  const sign = cents < 0 ? -1 : 1;
  return sign * Math.round(Math.abs(cents) / stepCents) * stepCents;
}

/**
 * Split `total` cents into `count` same-signed parts that are multiples of `unitCents`
 * (random weights 0.5–1.5; the last part takes the remainder), so they add up exactly.
 */
export function splitCents(total: number, count: number, rng: Rng, unitCents: number): number[] {
  if (count <= 1) return [total];
  const weights = new Array<number>(count);
  let weightSum = 0;
  for (let i = 0; i < count; i++) {
    const w = 0.5 + rng.next();
    weights[i] = w;
    weightSum += w;
  }
  const parts = new Array<number>(count);
  let assigned = 0;
  for (let i = 0; i < count - 1; i++) {
    const part = roundToStep((total * (weights[i] ?? 1)) / weightSum, unitCents);
    parts[i] = part;
    assigned += part;
  }
  parts[count - 1] = total - assigned;
  for (const part of parts) {
    if (part === 0 || Math.sign(part) !== Math.sign(total)) throw new Error(`cannot split ${total} cents into ${count} same-signed lines`);
  }
  return parts;
}

export type RowStatus = 'match' | 'minor_diff' | 'major_diff' | 'only_in_a' | 'only_in_b';

export interface Thresholds {
  match: { absolute: number; percent: number };
  minor: { absolute: number; percent: number };
}

/** The catalog's reference thresholds (data/sources.yaml). */
export const DEFAULT_THRESHOLDS: Thresholds = { match: { absolute: 1000, percent: 1 }, minor: { absolute: 5000, percent: 5 } };

/**
 * Status of one aligned row under the reference rules (as compare_sources applies them):
 * match when |a − b| ≤ match.absolute AND |a − b| / |a| ≤ match.percent; minor within the
 * minor thresholds; otherwise major; a row on one side only is only_in_a / only_in_b.
 * Amounts in cents; null = no row on that side.
 */
export function statusOf(aCents: number | null, bCents: number | null, thresholds: Thresholds = DEFAULT_THRESHOLDS): RowStatus {
  if (bCents === null) return 'only_in_a';
  if (aCents === null) return 'only_in_b';
  const absolute = Math.abs(aCents - bCents) / 100;
  const base = Math.abs(aCents) / 100;
  const percent = base === 0 ? (absolute === 0 ? 0 : null) : (absolute / base) * 100;
  const within = (limit: { absolute: number; percent: number }) => absolute <= limit.absolute && percent !== null && percent <= limit.percent;
  if (within(thresholds.match)) return 'match';
  if (within(thresholds.minor)) return 'minor_diff';
  return 'major_diff';
}

/** Cents as currency units (at most two decimals). */
export const units = (cents: number): number => cents / 100;
