/**
 * API keys (`API_KEYS`, and the named, scoped keys of `API_KEYS_FILE`): checking a request's
 * `Authorization: Bearer <key>` against the configured keys, and the caller a key makes: its
 * name, the identity its sessions are owned by, and its data scope. Keys are compared in constant
 * time over SHA-256 digests (so neither a key's content nor its length leaks through timing),
 * and a key itself is never stored or logged: sessions carry a short hash of it instead.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { describeScope, type Caller } from '../scopes/dataScope.ts';
import { keyDigest as digest, type DeclaredKey } from '../config/keysFile.ts';

/**
 * The identity of a key as stored with its sessions and used to rate-limit it: a short hash,
 * from a digest other than the one keys are compared by. Never the key.
 */
export function keyIdentity(key: string): string {
  return createHash('sha256').update(`analyst-agent owner\0${key}`, 'utf8').digest('hex').slice(0, 16);
}

/** A key as the service recognises it: its SHA-256 and the caller it makes. */
interface KnownKey {
  digest: Buffer;
  caller: Caller;
}

export class ApiKeys {
  private readonly known: KnownKey[];

  /**
   * `keys`: the configured keys of API_KEYS (already trimmed, none empty), which see everything;
   * `declared`: the keys file's named, scoped keys.
   */
  constructor(keys: readonly string[], declared: readonly DeclaredKey[] = []) {
    this.known = [
      ...keys.map((key) => {
        const identity = keyIdentity(key);
        return { digest: digest(key), caller: { name: `key:${identity}`, identity } };
      }),
      ...declared.map((key) => ({ digest: key.sha256, caller: declaredCaller(key) })),
    ];
  }

  /** False when no keys are configured: everything is open, sessions have no owner. */
  get enabled(): boolean {
    return this.known.length > 0;
  }

  /**
   * The caller `candidate` is the key of, else undefined. Every configured key is compared,
   * whatever matches, so the time taken does not tell which one (or whether any) did.
   */
  identify(candidate: string): Caller | undefined {
    const given = digest(candidate);
    let matched: Caller | undefined;
    for (const known of this.known) if (timingSafeEqual(given, known.digest)) matched ??= known.caller;
    return matched;
  }
}

/**
 * A keys-file key owns its sessions by name and scope: a rotated key (same name, new secret)
 * keeps its conversations, and a narrowed scope never shows conversations held under the wider one.
 */
function declaredCaller(key: DeclaredKey): Caller {
  const identity = createHash('sha256').update(`analyst-agent key\0${key.name}\0${describeScope(key.scope)}`, 'utf8').digest('hex').slice(0, 16);
  return { name: key.name, identity, ...(key.scope ? { scope: key.scope } : {}), ...(key.permissions ? { permissions: key.permissions } : {}) };
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), else undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+([^\s]+)[ ]*$/i.exec(header);
  return match?.[1];
}
