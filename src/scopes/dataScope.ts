/**
 * A data scope: what one API key may see, in the catalog's own words: the sources it may use
 * and, per dimension, the values its rows must have (`company: ["1000"]`). Declared in the keys
 * file (src/config/keysFile.ts), checked against the catalog at startup, and applied to
 * the catalog, the data and the knowledge a tool sees (scopedView.ts).
 */
import { ConfigurationError } from '../errors/index.ts';
import type { Catalog } from '../catalog/catalog.ts';
import type { DataScope } from '../config/keysFile.ts';

/** Declared with the keys file (src/config/keysFile.ts), which config reads before any catalog exists. */
export type { DataScope };

/** Who is calling: the key's name (for audit lines), the identity its sessions are owned by, and its scope. */
export interface Caller {
  /** The key's name from the keys file, or `key:<identity>` for a key from API_KEYS. Never the key. */
  name: string;
  /** Owner of the key's sessions (a short hash); never the key. */
  identity: string;
  /** Undefined: the key sees everything. */
  scope?: DataScope | undefined;
  /** What the keys file lets the key do besides reading (`permissions: [sign_off]`); none when absent. */
  permissions?: readonly string[] | undefined;
}

/**
 * One line naming a scope, for audit logs and messages; `all data` without one.
 * @example
 * describeScope({ sources: ['fi_reporting'], values: { company: ['1000'] } }) // 'company=1000; sources=fi_reporting'
 */
export function describeScope(scope: DataScope | undefined): string {
  if (!scope) return 'all data';
  const parts = Object.entries(scope.values)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([dimension, values]) => `${dimension}=${[...values].sort().join(',')}`);
  if (scope.sources) parts.push(`sources=${[...scope.sources].sort().join(',')}`);
  return parts.join('; ') || 'all data';
}

/**
 * Checks a scope's names against the catalog, so a typo fails at startup rather than hiding
 * everything (or nothing) at run time.
 * @throws ConfigurationError naming the key and what is wrong.
 */
export function checkScope(scope: DataScope, catalog: Catalog, keyName: string, origin: string): void {
  const problems: string[] = [];
  for (const source of scope.sources ?? []) {
    if (!catalog.sources.has(source)) problems.push(`source '${source}' is not in the catalog (sources: ${[...catalog.sources.keys()].join(', ')})`);
  }
  const dimensions = new Set([...catalog.sources.values()].flatMap((source) => [...source.dimensions.keys(), ...Object.keys(source.implied)]));
  for (const [dimension, values] of Object.entries(scope.values)) {
    if (!dimensions.has(dimension)) problems.push(`dimension '${dimension}' is in no source of the catalog`);
    if (values.length === 0) problems.push(`dimension '${dimension}' lists no values (the key would see nothing)`);
  }
  if (problems.length) throw new ConfigurationError(`Invalid configuration:\n  ${origin}: key '${keyName}': ${problems.join('; ')}`);
}
