/**
 * Guessing the one key by which two segments differ from their checksums (segmentRecovery.ts):
 * sums built here as compileSegments' SQL builds them (truncated remainders, as engines compute
 * them), from keys with random hashes in one segment.
 */
import { describe, expect, it } from 'vitest';
import { OTHER_PRIME, PRIME } from '../../src/data/compileBisection.ts';
import { explains, guessKey, type CheckedRow, type SegmentSums } from '../../src/data/segmentRecovery.ts';

const BITS = 11;
const SEGMENT = 1_234;
let seed = 7;
/** A 32-bit hash in SEGMENT (its low BITS bits), from a small deterministic generator. */
const hashInSegment = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return (((seed * 2 ** BITS) % 2 ** 32) + SEGMENT) % 2 ** 32;
};
const key = (units: bigint): CheckedRow => ({ hash: hashInSegment(), otherHash: hashInSegment(), units });

/** A side's checksums of its keys, as the engines sum them (a remainder keeps its dividend's sign). */
function sumsOf(rows: CheckedRow[]): SegmentSums {
  const truncated = (value: bigint, prime: number) => value % BigInt(prime);
  return {
    keys: rows.length,
    keySum: rows.reduce((sum, row) => sum + row.hash, 0),
    otherKeySum: rows.reduce((sum, row) => sum + row.otherHash, 0),
    weightedSum: rows.reduce((sum, row) => sum + Number(truncated(truncated(row.units, PRIME) * BigInt(row.hash % PRIME), PRIME)), 0),
    amountSum: rows.reduce((sum, row) => sum + Number(truncated(row.units, OTHER_PRIME)), 0),
  };
}

const shared = Array.from({ length: 200 }, (_, index) => key(BigInt((index - 100) * 12_345)));

describe('a key guessed from two segments’ checksums', () => {
  it('is the key one side holds and the other lacks, with both its hashes', () => {
    const extra = key(-5_000n);
    expect(guessKey(sumsOf([...shared, extra]), sumsOf(shared), BITS, SEGMENT)).toEqual({ hashes: [extra.hash], otherHash: extra.otherHash, holder: 'a' });
    expect(guessKey(sumsOf(shared), sumsOf([extra, ...shared]), BITS, SEGMENT)).toEqual({ hashes: [extra.hash], otherHash: extra.otherHash, holder: 'b' });
    // A side without the segment at all.
    expect(guessKey(undefined, sumsOf([extra]), BITS, SEGMENT)).toEqual({ hashes: [extra.hash], otherHash: extra.otherHash, holder: 'b' });
  });

  it('is the key whose amount differs, for changes small and large, up or down, on amounts of either sign', () => {
    for (const [at, change] of [[3, 100n], [150, -1n], [42, 987_654_321n], [7, -1_000_000_000n]] as const) {
      const changed = shared.map((row, index) => (index === at ? { ...row, units: row.units + change } : row));
      const guess = guessKey(sumsOf(changed), sumsOf(shared), BITS, SEGMENT);
      expect(guess?.holder).toBe('both');
      expect(guess?.hashes).toContain(shared[at]!.hash);
      expect(guess?.hashes.every((hash) => hash % 2 ** BITS === SEGMENT)).toBe(true);
    }
  });

  it('is none when no single key explains the difference: keys swapped, an amount changed by a multiple of both primes, two keys more', () => {
    const swapped = [...shared.slice(1), key(shared[0]!.units)];
    expect(guessKey(sumsOf(swapped), sumsOf(shared), BITS, SEGMENT)).toBeUndefined();
    const byPrime = shared.map((row, index) => (index === 9 ? { ...row, units: row.units + BigInt(PRIME) * BigInt(OTHER_PRIME) } : row));
    expect(guessKey(sumsOf(byPrime), sumsOf(shared), BITS, SEGMENT)).toBeUndefined();
    // Two more keys on one side.
    expect(guessKey(sumsOf([...shared, key(1n), key(2n)]), sumsOf(shared), BITS, SEGMENT)).toBeUndefined();
  });
});

describe('the rows read for a guess', () => {
  it('explain the segment when they hold every difference, and not when a difference stays out', () => {
    const raised = new Set([10, 20]);
    const changed = shared.map((row, index) => (raised.has(index) ? { ...row, units: row.units + 100n } : row));
    // Two keys raised alike look like one key at their mean hash: no key has it, nothing is read.
    const guess = guessKey(sumsOf(changed), sumsOf(shared), BITS, SEGMENT);
    const readA = changed.filter((row) => guess?.hashes.includes(row.hash));
    const readB = shared.filter((row) => guess?.hashes.includes(row.hash));
    expect(explains(sumsOf(changed), sumsOf(shared), readA, readB)).toBe(false);
    // Both keys read: the rest agrees.
    expect(explains(sumsOf(changed), sumsOf(shared), [changed[10]!, changed[20]!], [shared[10]!, shared[20]!])).toBe(true);
    expect(explains(sumsOf(changed), sumsOf(shared), [changed[10]!], [shared[10]!])).toBe(false);
    // A key one side lacks, read on the side holding it.
    const extra = key(77n);
    expect(explains(sumsOf([...shared, extra]), sumsOf(shared), [extra], [])).toBe(true);
    expect(explains(sumsOf([...shared, extra]), sumsOf(shared), [], [])).toBe(false);
  });
});
