/**
 * Drafts a catalog from an existing database (`npm run catalog:init`, scripts/catalogInit.ts):
 * opens it read-only through the service's own engines (SQLite, DuckDB, PostgreSQL), profiles
 * its tables with bounded queries (introspect.ts), guesses sources, dimensions and measures
 * (guess.ts) and writes them as commented YAML (render.ts). The draft is valid per the catalog
 * schema and names only columns that exist, so it loads as it is; what a person must confirm
 * is marked `# CHECK:`. The database's password never appears in the draft or in an error.
 */
import { describeConnection, engineOf, openEngine, type ConnectionSpec } from '../../data/connections.ts';
import { redactConnectionUrl } from '../../shared/redact.ts';
import { catalogSchema } from '../schema.ts';
import { parse } from 'yaml';
import { draftSource, guessAlignOn, type SourceDraft } from './guess.ts';
import { listTables, profileTable } from './introspect.ts';
import { renderDraft } from './render.ts';

export interface DraftOptions {
  /** sqlite:FILE, duckdb:FILE or postgres://… */
  from: string;
  /** Only these tables (default: every table and view of the database's current schema). */
  tables?: string[];
  /** Tables with more rows are profiled on their first N rows (default 100 000). */
  sampleRows?: number;
  /** Progress lines (one per table). */
  onProgress?: (line: string) => void;
}

export interface DraftResult {
  /** The catalog as commented YAML. */
  yaml: string;
  /** Logical names of the drafted sources. */
  sources: string[];
  notDrafted: { table: string; reason: string }[];
  /** Where the draft came from, safe to show. */
  target: string;
}

export const DEFAULT_SAMPLE_ROWS = 100_000;
const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The server-side limit of one profiling statement. */
const STATEMENT_TIMEOUT_MS = 60_000;

/**
 * Drafts the catalog of a database.
 * @throws Error (without the password) when the database cannot be opened, a requested table does not exist, or nothing can be drafted.
 * @example
 * const draft = await draftCatalog({ from: 'sqlite:data/sample.db', tables: ['fi_reporting'] });
 * writeFileSync('catalog.draft.yaml', draft.yaml);
 */
export async function draftCatalog(options: DraftOptions): Promise<DraftResult> {
  const spec: ConnectionSpec = { name: 'default', url: options.from };
  const target = describeTarget(options.from);
  const redact = (error: unknown) => new Error(withoutCredentials(String((error as Error)?.message ?? error), options.from));
  let engine;
  try {
    engine = await openEngine(spec, { statementTimeoutMs: STATEMENT_TIMEOUT_MS });
  } catch (error) {
    throw new Error(`${target} cannot be opened: ${redact(error).message}`);
  }
  try {
    const present = await listTables(engine);
    const tables = options.tables && options.tables.length > 0 ? [...new Set(options.tables)] : present;
    const missing = tables.filter((table) => !present.includes(table));
    if (missing.length > 0) throw new Error(`no table ${missing.join(', ')} in ${target} (tables: ${present.join(', ') || 'none'})`);
    const sources: SourceDraft[] = [];
    const notDrafted: DraftResult['notDrafted'] = [];
    const usedNames = new Set<string>();
    for (const table of tables) {
      if (!PLAIN_IDENTIFIER.test(table)) {
        notDrafted.push({ table, reason: 'its name is not a plain SQL identifier (letters, digits, underscore)' });
        continue;
      }
      const profile = await profileTable(engine, table, { sampleRows: options.sampleRows ?? DEFAULT_SAMPLE_ROWS });
      const draft = draftSource(profile, usedNames);
      if (draft.ok) sources.push(draft.source);
      else notDrafted.push({ table, reason: draft.reason });
      options.onProgress?.(`${table}: ${profile.sampled ? `first ${profile.rows}` : profile.rows} rows, ${draft.ok ? `${draft.source.dimensions.length} dimensions, ${draft.source.measures.length} measures` : `not drafted (${draft.reason})`}`);
    }
    if (sources.length === 0) throw new Error(`nothing to draft in ${target}: ${notDrafted.map((t) => `${t.table} (${t.reason})`).join('; ') || 'it has no tables'}`);
    const yaml = renderDraft({ sources, alignment: guessAlignOn(sources), header: header(options.from, target, sources.length), notDrafted });
    // The draft must be a catalog; a failure here is a bug of the drafter, not of the database.
    const checked = catalogSchema.safeParse(parse(yaml));
    if (!checked.success) throw new Error(`the draft is not a valid catalog (a bug of catalog:init): ${checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return { yaml, sources: sources.map((s) => s.name), notDrafted, target };
  } catch (error) {
    throw redact(error);
  } finally {
    await engine.close();
  }
}

/**
 * Where a data URL points, without user, password or query string.
 * @example
 * describeTarget('postgres://reader:secret@db:5432/finance?sslmode=require'); // 'postgres://db:5432/finance'
 */
export function describeTarget(url: string): string {
  try {
    return describeConnection({ name: 'default', url });
  } catch {
    return '(not a data URL)';
  }
}

/**
 * Text with a data URL shown as describeTarget shows it, and its password hidden wherever else
 * it appears (a driver may quote it alone, or percent-decoded).
 * @example
 * withoutCredentials('cannot connect to postgres://u:pw@db/fi', 'postgres://u:pw@db/fi'); // 'cannot connect to postgres://db/fi'
 */
export function withoutCredentials(text: string, url: string): string {
  return redactConnectionUrl(text.replaceAll(url, describeTarget(url)), url);
}

/** Where the draft came from and, off SQLite, how the service reaches the database. */
function header(url: string, target: string, sourceCount: number): string[] {
  const lines = [`Catalog draft made by \`npm run catalog:init\` from ${target} (${sourceCount} source${sourceCount === 1 ? '' : 's'}).`];
  const engine = engineOf(url);
  if (engine === 'sqlite') return lines;
  lines.push(
    '',
    'Connection: the sources use the default connection, DATA_URL. Start the service with',
    engine === 'postgres'
      ? `  DATA_URL=${target} (with the user and password added from your secret store, never written here)`
      : `  DATA_URL=${target}`,
    '  CATALOG=<this file>',
    'To keep this database beside another default one, declare it under connections with its URL read',
    'from the environment (connections: { warehouse: { url: "${WAREHOUSE_URL}" } }) and add',
    'connection: warehouse to each of these sources.',
  );
  return lines;
}
