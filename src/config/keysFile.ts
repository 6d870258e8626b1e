/**
 * The keys file (`API_KEYS_FILE`, YAML or JSON): API keys with a name and a data scope each.
 * A key is given by its SHA-256 (so the file holds no secret) or read from an environment
 * variable; the key itself is never stored, logged or returned. Read once at startup: a bad file
 * stops the service with one message naming the entry, never half-applied.
 *
 * @example
 * keys:
 *   - name: emea-dashboard
 *     key_env: EMEA_DASHBOARD_KEY
 *     scopes: { company: ["1000"], sources: [fi_reporting, bpc_reporting] }
 *   - name: group-controlling
 *     key_sha256: 9b7c…   # sha256 of the key, hex (printf %s "$KEY" | sha256sum)
 *     max_model_tokens_per_day: 200000   # optional: the key's model tokens a UTC day (src/http/security/tokenBudget.ts)
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { ConfigurationError } from '../errors/index.ts';

/**
 * What one API key may see, in the catalog's own words: the sources it may use and, per
 * dimension, the values its rows must have (`company: ["1000"]`). Declared here, checked and
 * applied by src/scopes (dataScope.ts, scopedView.ts).
 */
export interface DataScope {
  /** Sources the key may use; undefined: every source. */
  sources?: string[] | undefined;
  /** Dimension name → the values rows must have; a source without the dimension is hidden. */
  values: Record<string, string[]>;
}

/** A key from the keys file: what it is called, the SHA-256 it is recognised by, what it may see. */
/**
 * The digest keys are compared by: SHA-256 of the key's UTF-8 bytes (what `key_sha256` holds).
 * @example
 * keyDigest('secret').toString('hex'); // '2bb80d53…'
 */
export function keyDigest(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

export interface DeclaredKey {
  name: string;
  sha256: Buffer;
  /** Undefined: every source and value. */
  scope: DataScope | undefined;
  /** Model tokens (prompt and completion) the key may spend a UTC day through /chat; undefined: no cap. */
  maxModelTokensPerDay?: number;
  /** What the key may do besides reading, e.g. `sign_off` (a skill checks ToolContext.caller.permissions). */
  permissions?: string[];
}

/** What a key may be, in API_KEYS and the keys file alike, so a key works in either place. */
export const API_KEY_PATTERN = /^[\x21-\x7e]{16,200}$/;

const scopeValues = z.array(z.union([z.string(), z.number()]).transform(String)).min(1, { error: 'must list at least one value' });

const entrySchema = z
  .strictObject({
    name: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/, { error: 'must be 1 to 64 letters, digits or _ . @ - (it appears in audit logs)' }),
    key_env: z.string().regex(/^[A-Z_][A-Z0-9_]*$/, { error: 'must be an environment variable name' }).optional(),
    key_sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, { error: 'must be the key\'s SHA-256 as 64 hex digits' }).optional(),
    scopes: z.record(z.string(), scopeValues).optional(),
    max_model_tokens_per_day: z
      .number({ error: 'must be a whole number of tokens, e.g. 200000' })
      .int({ error: 'must be a whole number of tokens, e.g. 200000' })
      .positive({ error: 'must be at least 1 (leave it out for no cap)' })
      .max(Number.MAX_SAFE_INTEGER, { error: 'is too large' })
      .optional(),
    permissions: z
      .array(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, { error: 'each permission is a snake_case word, e.g. sign_off' }), { error: 'must be a list, e.g. [sign_off]' })
      .optional(),
  })
  .refine((entry) => (entry.key_env === undefined) !== (entry.key_sha256 === undefined), { error: 'give exactly one of key_env and key_sha256' });

const fileSchema = z.strictObject({ keys: z.array(z.unknown()).min(1, { error: 'must list at least one key' }) });

/**
 * Reads and checks the keys file; scopes are checked against the catalog later (dataScope.checkScope).
 * @throws ConfigurationError naming API_KEYS_FILE and the entry at fault.
 * @example
 * const keys = readKeysFile('config/keys.yaml', process.env);
 */
export function readKeysFile(file: string, environment: NodeJS.ProcessEnv): DeclaredKey[] {
  const fail = (problem: string): never => {
    throw new ConfigurationError(`Invalid configuration:\n  API_KEYS_FILE: ${problem}`);
  };
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    fail(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  let document: unknown;
  try {
    // YAML is a superset of JSON: one parser reads both.
    document = parse(text);
  } catch (error) {
    fail(`${file} is not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  const parsed = fileSchema.safeParse(document);
  if (!parsed.success) fail(`${file} must hold 'keys:', a list of keys (${parsed.error.issues[0]?.message})`);
  const keys: DeclaredKey[] = [];
  parsed.data!.keys.forEach((raw, index) => {
    const entry = entrySchema.safeParse(raw);
    if (!entry.success) {
      const issue = entry.error.issues[0]!;
      // The entry's name and the file, when the name itself is fine: an operator finds the line at once.
      const name = (raw as { name?: unknown } | null)?.name;
      const where = typeof name === 'string' && issue.path[0] !== 'name' ? ` (key '${name}' in ${basename(file)})` : ` (in ${basename(file)})`;
      return fail(`keys[${index}]${issue.path.length ? `.${issue.path.join('.')}` : ''}: ${issue.message}${where}`);
    }
    const { name, key_env, key_sha256, scopes, max_model_tokens_per_day, permissions } = entry.data;
    if (keys.some((key) => key.name === name)) fail(`keys[${index}]: the name '${name}' is used twice`);
    let sha256: Buffer;
    if (key_env !== undefined) {
      const key = environment[key_env]?.trim();
      if (!key) return fail(`keys[${index}] (${name}): the environment variable ${key_env} is not set`);
      if (!API_KEY_PATTERN.test(key)) return fail(`keys[${index}] (${name}): the key in ${key_env} must be 16 to 200 visible ASCII characters`);
      sha256 = keyDigest(key);
    } else {
      sha256 = Buffer.from(key_sha256!, 'hex');
    }
    if (keys.some((key) => key.sha256.equals(sha256))) fail(`keys[${index}] (${name}): the same key is declared twice`);
    keys.push({
      name,
      sha256,
      scope: scopes === undefined ? undefined : scopeOf(scopes),
      ...(max_model_tokens_per_day === undefined ? {} : { maxModelTokensPerDay: max_model_tokens_per_day }),
      ...(permissions?.length ? { permissions: [...new Set(permissions)] } : {}),
    });
  });
  return keys;
}

/** `sources` is the list of sources; every other entry is a dimension and its values. Nothing listed: no scope. */
function scopeOf(scopes: Record<string, string[]>): DataScope | undefined {
  const { sources, ...values } = scopes;
  if (!sources && Object.keys(values).length === 0) return undefined;
  return { ...(sources ? { sources } : {}), values };
}
