/**
 * Small deterministic pseudo-random helpers for the sample data generator.
 *
 * Nothing here touches Math.random or the clock: every stream is derived
 * from a fixed seed plus a label, so the same label always yields the same
 * sequence, independent of the order in which other streams are used.
 */

/** 32-bit FNV-1a hash of a string (used to derive per-label seeds). */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * mulberry32: a tiny 32-bit generator with a full 2^32 period.
 * Returns a function yielding floats in [0, 1).
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded random stream with a few convenience methods. */
export class Rng {
  private readonly nextFloat: () => number;

  constructor(seed: number) {
    this.nextFloat = mulberry32(seed);
  }

  /** A stream for a label, derived from a base seed (stable per label). */
  static forLabel(baseSeed: number, label: string): Rng {
    return new Rng((hashString(label) ^ Math.imul(baseSeed >>> 0, 0x9e3779b1)) >>> 0);
  }

  /** Float in [0, 1). */
  next(): number {
    return this.nextFloat();
  }

  /** Float in [min, max). */
  uniform(min: number, max: number): number {
    return min + (max - min) * this.nextFloat();
  }

  /** Integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.nextFloat() * (max - min + 1));
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick: empty array');
    const item = items[Math.floor(this.nextFloat() * items.length)];
    return item as T;
  }

  /** `count` distinct indices in [0, size), in the order drawn. */
  distinctIndices(size: number, count: number): number[] {
    if (count > size) throw new Error(`Rng.distinctIndices: cannot draw ${count} of ${size}`);
    const pool = Array.from({ length: size }, (_, i) => i);
    const out: number[] = [];
    for (let i = 0; i < count; i++) {
      const j = i + Math.floor(this.nextFloat() * (size - i));
      const a = pool[i] as number;
      const b = pool[j] as number;
      pool[i] = b;
      pool[j] = a;
      out.push(b);
    }
    return out;
  }
}
