/**
 * The key hash of checksum bisection (bisection.ts): PostgreSQL's `hashtextextended(text, 0)`,
 * which is Bob Jenkins' lookup3 hash over the text's UTF-8 bytes (PostgreSQL's
 * `hash_bytes_extended`, little-endian byte order) giving two 32-bit values at once, as one
 * signed 64-bit integer: its low half is `hashtext`'s value, its high half lookup3's second
 * value. PostgreSQL computes it natively and cheaply (its `md5` costs 1–2 µs a call, many times
 * more); SQLite and DuckDB get this implementation as the function `key_hash(part, …)`, the hash
 * of the parts joined by U+001F, so a key hashes alike on all three (Dialect.keyHash writes the
 * call). One call gives bisection its two independent hashes of a key. Tested against a real server.
 */

const rotate = (value: number, bits: number) => (value << bits) | (value >>> (32 - bits));
const encoder = new TextEncoder();
/** Separator of a key's parts, as the SQL side writes it (chr(31)). */
const SEPARATOR = 0x1f;

/**
 * A key's UTF-8 bytes built part by part, then hashed: the parts joined by U+001F hash as the
 * joined text does in PostgreSQL. One builder is reused for every key (no allocation per key).
 */
export class KeyBytes {
  private bytes = new Uint8Array(256);
  private length = 0;
  /** Whether a part was appended since reset (the next one is preceded by a separator). */
  private started = false;

  /** Starts a new key. */
  reset(): this {
    this.length = 0;
    this.started = false;
    return this;
  }

  /** Appends a part (after a separator unless it is the first). */
  text(value: string): this {
    this.separate();
    this.room(value.length * 3);
    // ASCII (almost every key) is its own UTF-8; anything else is encoded.
    const start = this.length;
    for (let index = 0; index < value.length; index += 1) {
      const code = value.charCodeAt(index);
      if (code > 0x7f) {
        this.length = start + encoder.encodeInto(value, this.bytes.subarray(start)).written;
        return this;
      }
      this.bytes[start + index] = code;
    }
    this.length = start + value.length;
    return this;
  }

  /** Appends a part given as UTF-8 bytes (`count` bytes of `source` from `offset`). */
  utf8(source: Uint8Array, offset: number, count: number): this {
    this.separate();
    this.room(count);
    for (let index = 0; index < count; index += 1) this.bytes[this.length + index] = source[offset + index]!;
    this.length += count;
    return this;
  }

  /** The key's hash as `hashtext` gives it (the low half of `hashtextextended(…, 0)`). */
  hash(): number {
    hashBytes(this.bytes, this.length);
    return halves[0]!;
  }

  /** The key's 64-bit hash, as `hashtextextended(…, 0)` gives it. */
  hash64(): bigint {
    hashBytes(this.bytes, this.length);
    return BigInt.asIntN(64, (BigInt(halves[1]!) << 32n) | BigInt(halves[0]! >>> 0));
  }

  /**
   * Hashes the key and writes the two halves of its 64-bit hash into `into` at `at` (low half)
   * and `at + 1` (high half): a signed 64-bit integer's words on a little-endian machine, as
   * DuckDB's BIGINT vector holds them, without a BigInt per key.
   */
  hashInto(into: Int32Array, at: number): void {
    hashBytes(this.bytes, this.length);
    into[at] = halves[0]!;
    into[at + 1] = halves[1]!;
  }

  private separate(): void {
    if (this.started) {
      this.room(1);
      this.bytes[this.length++] = SEPARATOR;
    }
    this.started = true;
  }

  private room(more: number): void {
    if (this.length + more <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.length + more));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}

const shared = new KeyBytes();

/**
 * The hash of a text, as PostgreSQL's `hashtext(text)` returns it.
 * @example
 * hashText('1000'); // the same number as SELECT hashtext('1000') on PostgreSQL
 */
export function hashText(value: string): number {
  return shared.reset().text(value).hash();
}

/**
 * The hash of a key's parts joined by U+001F, as PostgreSQL's `hashtext(p0 || chr(31) || p1 …)`.
 * @example
 * hashParts(['1000', '2024012', 'EUR']) === hashText('1000\u001f2024012\u001fEUR'); // true
 */
export function hashParts(parts: readonly unknown[]): number {
  const key = shared.reset();
  for (const part of parts) key.text(String(part));
  return key.hash();
}

/**
 * The 64-bit hash of a key's parts joined by U+001F, as PostgreSQL's
 * `hashtextextended(p0 || chr(31) || p1 …, 0)` returns it.
 * @example
 * BigInt.asIntN(32, hashPartsExtended(['1000', 'EUR'])) === BigInt(hashParts(['1000', 'EUR'])); // true
 */
export function hashPartsExtended(parts: readonly unknown[]): bigint {
  const key = shared.reset();
  for (const part of parts) key.text(String(part));
  return key.hash64();
}

/** lookup3's two results, c (hashtext's value) then b: written by hashBytes. */
const halves = new Int32Array(2);

const word = (k: Uint8Array, at: number) => k[at]! | (k[at + 1]! << 8) | (k[at + 2]! << 16) | (k[at + 3]! << 24);

/**
 * lookup3 over `length` bytes, mixed and finished as PostgreSQL's hash_bytes does; with seed 0
 * its hash_bytes_extended is the same computation, returning (b << 32) | c.
 */
function hashBytes(k: Uint8Array, length: number): void {
  let a = (0x9e3779b9 + length + 3923095) | 0;
  let b = a;
  let c = a;
  let offset = 0;
  let left = length;
  while (left >= 12) {
    a = (a + word(k, offset)) | 0;
    b = (b + word(k, offset + 4)) | 0;
    c = (c + word(k, offset + 8)) | 0;
    // mix(a, b, c)
    a = (a - c) | 0; a ^= rotate(c, 4); c = (c + b) | 0;
    b = (b - a) | 0; b ^= rotate(a, 6); a = (a + c) | 0;
    c = (c - b) | 0; c ^= rotate(b, 8); b = (b + a) | 0;
    a = (a - c) | 0; a ^= rotate(c, 16); c = (c + b) | 0;
    b = (b - a) | 0; b ^= rotate(a, 19); a = (a + c) | 0;
    c = (c - b) | 0; c ^= rotate(b, 4); b = (b + a) | 0;
    offset += 12;
    left -= 12;
  }
  // The last 11 bytes; the lowest byte of c is left for the length (added at the start).
  switch (left) {
    case 11: c = (c + (k[offset + 10]! << 24)) | 0;
    case 10: c = (c + (k[offset + 9]! << 16)) | 0;
    case 9: c = (c + (k[offset + 8]! << 8)) | 0;
    case 8: b = (b + (k[offset + 7]! << 24)) | 0;
    case 7: b = (b + (k[offset + 6]! << 16)) | 0;
    case 6: b = (b + (k[offset + 5]! << 8)) | 0;
    case 5: b = (b + k[offset + 4]!) | 0;
    case 4: a = (a + (k[offset + 3]! << 24)) | 0;
    case 3: a = (a + (k[offset + 2]! << 16)) | 0;
    case 2: a = (a + (k[offset + 1]! << 8)) | 0;
    case 1: a = (a + k[offset + 0]!) | 0;
  }
  // final(a, b, c)
  c ^= b; c = (c - rotate(b, 14)) | 0;
  a ^= c; a = (a - rotate(c, 11)) | 0;
  b ^= a; b = (b - rotate(a, 25)) | 0;
  c ^= b; c = (c - rotate(b, 16)) | 0;
  a ^= c; a = (a - rotate(c, 4)) | 0;
  b ^= a; b = (b - rotate(a, 14)) | 0;
  c ^= b; c = (c - rotate(b, 24)) | 0;
  halves[0] = c;
  halves[1] = b;
}
