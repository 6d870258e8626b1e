/**
 * A YAML file parsed once per content. Parsing openapi.yaml (230 KB) with `yaml` took about a
 * fifth of the service's start; the parsed value is kept as JSON under
 * node_modules/.cache/analyst-agent/yaml/, named by the text's hash, and read back in a few
 * milliseconds by later starts. An edited file has another hash, so it is parsed afresh. Values
 * JSON cannot hold the same (NaN, Infinity) are not cached; a cache that cannot be written only
 * costs the parse.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';

const cacheDirectory = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/.cache/analyst-agent/yaml');

/**
 * The parsed content of a YAML file (as `yaml`'s `parse`), from the cache when this text was parsed before.
 * @example
 * const spec = readYamlFile('openapi.yaml') as { paths: Record<string, unknown> };
 */
export function readYamlFile(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  const cached = path.join(cacheDirectory, `${createHash('sha256').update(text).digest('hex').slice(0, 24)}.json`);
  try {
    return JSON.parse(readFileSync(cached, 'utf8')) as unknown;
  } catch {
    // Not parsed yet (or the cache is unreadable): parse it now.
  }
  const value: unknown = parse(text);
  const json = JSON.stringify(value);
  if (json !== undefined && isDeepStrictEqual(JSON.parse(json), value)) {
    try {
      mkdirSync(cacheDirectory, { recursive: true });
      // Written beside, then renamed: a process starting at the same moment reads all or nothing.
      writeFileSync(`${cached}.${process.pid}`, json);
      renameSync(`${cached}.${process.pid}`, cached);
    } catch {
      // Read-only install: parsed at every start, as before.
    }
  }
  return value;
}
