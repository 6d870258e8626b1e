/**
 * A YAML file parsed once per content. Parsing openapi.yaml (230 KB) with `yaml` took about a
 * fifth of the service's start, the catalog another tenth; the parsed value is kept as JSON under
 * node_modules/.cache/analyst-agent/yaml/, named by the text's hash, and read back in a few
 * milliseconds by later starts. An edited file has another hash, so it is parsed afresh. Values
 * JSON cannot hold the same (NaN, Infinity) are not cached; a cache that cannot be written only
 * costs the parse.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';

/** The yaml package's version (its package.json, read once). */
const PARSER = `yaml@${(JSON.parse(readFileSync(createRequire(import.meta.url).resolve('yaml/package.json'), 'utf8')) as { version: string }).version}`;
const cacheDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/.cache/analyst-agent/yaml');

/**
 * The parsed content of a YAML file (as `yaml`'s `parse`), from the cache when this text was parsed before.
 * @example
 * const spec = readYamlFile('openapi.yaml') as { paths: Record<string, unknown> };
 */
export function readYamlFile(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  const cached = cachedYaml(text);
  if (cached) return cached.value;
  const value: unknown = parse(text);
  rememberYaml(text, value);
  return value;
}

/**
 * The value this YAML text parsed to before, if it was cached; undefined when it must be parsed.
 * `kind` keeps apart what different readers keep for the same text (a parsed value, or a value
 * with what else its reader needs, such as a manifest's key lines).
 * @example
 * const value = cachedYaml(text)?.value ?? parseAndRemember(text);
 */
export function cachedYaml(text: string, kind = 'value'): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(readFileSync(cacheFile(text, kind), 'utf8')) as unknown };
  } catch {
    // Not parsed yet (or the cache is unreadable).
    return undefined;
  }
}

/**
 * Keeps what a YAML text parsed to, for cachedYaml in later processes. Only valid content should
 * be remembered: a cached value skips the parse, and with it the parser's errors.
 * @example
 * rememberYaml(text, parse(text));
 */
export function rememberYaml(text: string, value: unknown, kind = 'value'): void {
  const json = JSON.stringify(value);
  if (json === undefined || !isDeepStrictEqual(JSON.parse(json), value)) return;
  const cached = cacheFile(text, kind);
  try {
    mkdirSync(cacheDirectory, { recursive: true });
    // Written beside, then renamed: a process starting at the same moment reads all or nothing.
    // Only the owner reads it: a catalog may hold a connection URL with its password.
    writeFileSync(`${cached}.${process.pid}`, json, { mode: 0o600 });
    renameSync(`${cached}.${process.pid}`, cached);
  } catch {
    // Read-only install: parsed at every start.
  }
}

function cacheFile(text: string, kind: string): string {
  // The parser's version is part of the name: another yaml release may read the same text differently.
  const hash = createHash('sha256').update(PARSER).update('\0');
  // The plain value's name is unchanged from before kinds existed: caches already written stay valid.
  if (kind !== 'value') hash.update(kind).update('\0');
  return path.join(cacheDirectory, `${hash.update(text).digest('hex').slice(0, 24)}.json`);
}
