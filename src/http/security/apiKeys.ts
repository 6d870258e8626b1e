/**
 * API keys (`API_KEYS`): checking a request's `Authorization: Bearer <key>` against the
 * configured keys, and the identity a key gives its sessions. Keys are compared in constant
 * time over SHA-256 digests (so neither a key's content nor its length leaks through timing),
 * and a key itself is never stored or logged: sessions carry a short hash of it instead.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The digest keys are compared by. */
function digest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/**
 * The identity of a key as stored with its sessions and used to rate-limit it: a short hash,
 * from a digest other than the one keys are compared by. Never the key.
 */
export function keyIdentity(key: string): string {
  return createHash('sha256').update(`analyst-agent owner\0${key}`, 'utf8').digest('hex').slice(0, 16);
}

export class ApiKeys {
  private readonly digests: Buffer[];

  /** `keys`: the configured keys (already trimmed, none empty). */
  constructor(keys: readonly string[]) {
    this.digests = keys.map(digest);
  }

  /** False when no keys are configured: everything is open, sessions have no owner. */
  get enabled(): boolean {
    return this.digests.length > 0;
  }

  /**
   * The identity of `candidate` when it is one of the keys, else undefined. Every configured key
   * is compared, whatever matches, so the time taken does not tell which one (or whether any) did.
   */
  identify(candidate: string): string | undefined {
    const given = digest(candidate);
    let matched = false;
    for (const known of this.digests) matched = timingSafeEqual(given, known) || matched;
    return matched ? keyIdentity(candidate) : undefined;
  }
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), else undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+([^\s]+)[ ]*$/i.exec(header);
  return match?.[1];
}
