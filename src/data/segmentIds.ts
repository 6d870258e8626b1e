/**
 * Segments of checksum bisection as the service holds them (bisection.ts, segmentReads.ts): one
 * side's checksums of a segment, a segment whose sides differ, and a segment's id in maps and sets.
 */
import type { SegmentSums } from './segmentRecovery.ts';

/**
 * Keys a segment's checksums are trusted for: its sums of 32-bit hashes stay below 2^53, exact
 * in a double on every engine. A larger segment (a partition of billions of keys) is taken as
 * differing, whatever its checksums say.
 */
export const MOST_EXACT_KEYS = 2 ** 21;

/** One side's checksums of a segment of a partition, and the unrounded total of its values. */
export interface Segment extends SegmentSums {
  partition: string | null;
  segment: number;
  total: number;
}

/** A segment whose sides differ: its keys (the larger side's), rows of both, and both sides' checksums. */
export interface Differing {
  partition: string | null;
  segment: number;
  keys: number;
  rows: number;
  a?: Segment | undefined;
  b?: Segment | undefined;
}

/**
 * A segment's id in maps and sets: its number and partition.
 * @example
 * idOf({ partition: 'EUR', segment: 904 }); // '904:+EUR'
 */
export const idOf = (segment: { partition: string | null; segment: number }) => `${segment.segment}:${segment.partition === null ? '-' : `+${segment.partition}`}`;
