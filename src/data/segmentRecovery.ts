/**
 * Finding the one key by which two segments differ from their checksums alone (bisection.ts), so
 * the rows read are that key's, not the whole segment's. A key on one side only shows in the
 * segment's count and hash sums: their difference is its hash. A key whose amount differs shows
 * in the amount fingerprints: Σc·h and Σc differ by Δc·h and Δc (modulo their primes), so h is the
 * one divided by the other modulo the first prime. A segment that differs otherwise (two keys or
 * more) gives no key, or a wrong one: every guess is checked against the rows it reads
 * (`explains`) before anything is merged.
 */
import { OTHER_PRIME, PRIME } from './compileBisection.ts';

/** One side's checksums of a segment (compileSegments' columns). */
export interface SegmentSums {
  keys: number;
  keySum: number;
  otherKeySum: number;
  weightedSum: number;
  amountSum: number;
}

/**
 * The hashes a differing key may have: its low 32 bits (one to three candidates), and its high
 * ones when known; `holder`, the side holding it (both: its amount differs).
 */
export interface KeyGuess {
  hashes: number[];
  otherHash?: number;
  holder: 'a' | 'b' | 'both';
}

/** A key's row as read for checking: its hash halves and its amount in whole units. */
export interface CheckedRow {
  hash: number;
  otherHash: number;
  units: bigint;
}

const TWO_TO_32 = 2 ** 32;
const NONE: SegmentSums = { keys: 0, keySum: 0, otherKeySum: 0, weightedSum: 0, amountSum: 0 };

/**
 * The key by which segment `segment` (the low `bits` of the hash) of two sides differs, if one
 * key would explain the difference; undefined when none can.
 * @example
 * guessKey({ keys: 3, keySum: 9_000, … }, { keys: 2, keySum: 5_000, … }, 12, 3_904); // { hashes: [4_000], otherHash: …, holder: 'a' }
 */
export function guessKey(a: SegmentSums | undefined, b: SegmentSums | undefined, bits: number, segment: number): KeyGuess | undefined {
  const [x, y] = [a ?? NONE, b ?? NONE];
  const inSegment = (hash: number) => Number.isInteger(hash) && hash >= 0 && hash < TWO_TO_32 && hash % 2 ** bits === segment;
  const keys = x.keys - y.keys;
  if (keys === 1 || keys === -1) {
    // One more key on one side: the sums differ by its hashes (exact, below 2^53).
    const [hash, otherHash] = [(x.keySum - y.keySum) * keys, (x.otherKeySum - y.otherKeySum) * keys];
    return inSegment(hash) && otherHash >= 0 && otherHash < TWO_TO_32 ? { hashes: [hash], otherHash, holder: keys === 1 ? 'a' : 'b' } : undefined;
  }
  if (keys !== 0 || x.keySum !== y.keySum || x.otherKeySum !== y.otherKeySum) return undefined;
  // The same keys: one amount changed by Δc, taken as the value nearest zero with its residue.
  const residue = modulo(x.amountSum - y.amountSum, OTHER_PRIME);
  const change = BigInt(residue > OTHER_PRIME / 2 ? residue - OTHER_PRIME : residue);
  const divisor = modulo(change, PRIME);
  if (divisor === 0n) return undefined;
  const remainder = Number((BigInt(modulo(x.weightedSum - y.weightedSum, PRIME)) * inverse(divisor)) % BigInt(PRIME));
  const hashes = [remainder, remainder + PRIME, remainder + 2 * PRIME].filter(inSegment);
  return hashes.length ? { hashes, holder: 'both' } : undefined;
}

/**
 * Whether the rows read of a segment account for all its difference: what is left of each side's
 * checksums once they are taken out agrees (with the odds of any two segments' checksums).
 * @example
 * explains(sumsA, sumsB, rowsReadOfA, rowsReadOfB); // true: the rest of the segment agrees
 */
export function explains(a: SegmentSums | undefined, b: SegmentSums | undefined, rowsA: readonly CheckedRow[], rowsB: readonly CheckedRow[]): boolean {
  const [x, y] = [withoutRows(a ?? NONE, rowsA), withoutRows(b ?? NONE, rowsB)];
  return x.keys === y.keys && x.keySum === y.keySum && x.otherKeySum === y.otherKeySum && modulo(x.weightedSum - y.weightedSum, PRIME) === 0 && modulo(x.amountSum - y.amountSum, OTHER_PRIME) === 0;
}

/** A segment's sums less the rows read (each weighted as compileSegments weighs it, modulo the primes). */
export function withoutRows(sums: SegmentSums, rows: readonly CheckedRow[]): SegmentSums {
  let { keys, keySum, otherKeySum, weightedSum, amountSum } = sums;
  for (const row of rows) {
    keys -= 1;
    keySum -= row.hash;
    otherKeySum -= row.otherHash;
    weightedSum -= Number((((row.units % BigInt(PRIME)) * BigInt(row.hash % PRIME)) % BigInt(PRIME)));
    amountSum -= Number(row.units % BigInt(OTHER_PRIME));
  }
  return { keys, keySum, otherKeySum, weightedSum, amountSum };
}

/** `value` modulo `prime`, whatever the sign. */
function modulo(value: number, prime: number): number;
function modulo(value: bigint, prime: number): bigint;
function modulo(value: number | bigint, prime: number): number | bigint {
  if (typeof value === 'bigint') return ((value % BigInt(prime)) + BigInt(prime)) % BigInt(prime);
  return ((value % prime) + prime) % prime;
}

/** The inverse of `value` modulo PRIME (Fermat: value^(PRIME − 2)). */
function inverse(value: bigint): bigint {
  const prime = BigInt(PRIME);
  let [result, base, exponent] = [1n, value % prime, prime - 2n];
  while (exponent > 0n) {
    if (exponent & 1n) result = (result * base) % prime;
    base = (base * base) % prime;
    exponent >>= 1n;
  }
  return result;
}
