/**
 * Drafts a catalog from an existing database or from CSV/Parquet files (`npm run catalog:init`,
 * scripts/catalogInit.ts): opens it read-only through the service's own engines (SQLite, DuckDB,
 * PostgreSQL; files through an in-memory DuckDB, files.ts), profiles its tables with bounded
 * queries (introspect.ts), guesses sources, dimensions and measures (guess.ts, with the ERP
 * dictionary of vocabulary.ts), turns master data into value names (masterData.ts), pairs a plan
 * table with its actuals (pairing.ts), writes commented YAML (render.ts) and a report of what it
 * decided and how sure it is (report.ts). The draft is valid per the catalog schema and names
 * only columns that exist; what a person must confirm is marked `# CHECK:`. The database's
 * password never appears in the draft, the report or an error.
 */
import { describeConnection, engineOf, openEngine, type ConnectionSpec } from '../../data/connections.ts';
import { redactConnectionUrl } from '../../shared/redact.ts';
import { catalogSchema } from '../schema.ts';
import { parse } from 'yaml';
import { catalogPaths, fileTables, FILES_CONNECTION, isFilesSource } from './files.ts';
import { fiscalYearOf } from './fiscalYear.ts';
import { draftSource, guessAlignOn, type SourceDraft } from './guess.ts';
import { listTables, profileTable, type TableProfile } from './introspect.ts';
import { applyValueNames, masterDataOf } from './masterData.ts';
import { pairPlans } from './pairing.ts';
import { BALANCE_SHEET_TERMS, LEDGER_TABLE, PLAN_TABLE } from './vocabulary.ts';
import { renderDraft } from './render.ts';
import { draftReport, type ReportInput } from './report.ts';

export interface DraftOptions {
  /** sqlite:FILE, duckdb:FILE, postgres://…, or CSV/Parquet files and folders (comma-separated). */
  from: string;
  /** The folder the catalog will be written in: file paths are written relative to it (else absolute). */
  catalogDirectory?: string;
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
  /** What the draft decided and how sure it is, and what needs a person (report.ts). */
  report: string[];
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
  const files = isFilesSource(options.from) ? fileTables(options.from) : undefined;
  const spec: ConnectionSpec = files ? { name: FILES_CONNECTION, url: 'duckdb:', files } : { name: 'default', url: options.from };
  const target = files ? `files ${Object.values(files).join(', ')}` : describeTarget(options.from);
  const redact = (error: unknown) => new Error(files ? String((error as Error)?.message ?? error) : withoutCredentials(String((error as Error)?.message ?? error), options.from));
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
    const drafted: { profile: TableProfile; source: SourceDraft }[] = [];
    const notDrafted: DraftResult['notDrafted'] = [];
    const usedNames = new Set<string>();
    for (const table of tables) {
      if (!PLAIN_IDENTIFIER.test(table)) {
        notDrafted.push({ table, reason: 'its name is not a plain SQL identifier (letters, digits, underscore)' });
        continue;
      }
      const profile = await profileTable(engine, table, { sampleRows: options.sampleRows ?? DEFAULT_SAMPLE_ROWS });
      const draft = draftSource(profile, usedNames);
      if (draft.ok) drafted.push({ profile, source: draft.source });
      else notDrafted.push({ table, reason: draft.reason });
      options.onProgress?.(`${table}: ${profile.sampled ? `first ${profile.rows}` : profile.rows} rows, ${draft.ok ? `${draft.source.dimensions.length} dimensions, ${draft.source.measures.length} measures` : `not drafted (${draft.reason})`}`);
    }
    // Master data names the keys of the other sources instead of being a source itself.
    const masters: ReportInput['masters'][number][] = [];
    for (const { profile } of drafted) {
      const others = drafted.filter((d) => d.profile !== profile && !masters.some((m) => m.table === d.profile.table)).map((d) => d.source);
      const master = masterDataOf(profile, others);
      if (!master) continue;
      const named = await applyValueNames(engine, master, others);
      masters.push({ table: profile.table, named });
      notDrafted.push({ table: profile.table, reason: `master data: its ${master.labels.join(', ')} became the value names of ${named.map((n) => `${n.source}.${n.dimension}`).join(', ')}` });
    }
    const sources = drafted.map((d) => d.source).filter((source) => !masters.some((m) => m.table === source.table));
    if (sources.length === 0) throw new Error(`nothing to draft in ${target}: ${notDrafted.map((t) => `${t.table} (${t.reason})`).join('; ') || 'it has no tables'}`);
    // "the GL": the one ledger table answers to it (with two, the word would be ambiguous).
    const ledgers = sources.filter((source) => LEDGER_TABLE.pattern.test(source.table) && !PLAN_TABLE.some(({ pattern }) => pattern.test(source.table)));
    if (ledgers.length === 1) {
      ledgers[0]!.aliases.push(...LEDGER_TABLE.aliases);
      ledgers[0]!.checks.push(`CHECK: called ${LEDGER_TABLE.aliases.join(', ')}: the one table named like a general ledger (${ledgers[0]!.table}).`);
    }
    const pairings = pairPlans(sources);
    if (files) for (const source of sources) source.connection = FILES_CONNECTION;
    const connections = files ? { [FILES_CONNECTION]: { files: catalogPaths(pickTables(files, sources), options.catalogDirectory) } } : undefined;
    const fiscalYear = fiscalYearOf(drafted.map((d) => d.profile));
    const notHeld = profitAndLossOnly(masters);
    const yaml = renderDraft({ sources, alignment: guessAlignOn(sources), header: header(options.from, target, sources.length, files !== undefined, options.catalogDirectory !== undefined), notDrafted, ...(connections ? { connections } : {}), ...(fiscalYear ? { fiscalYear } : {}), ...(notHeld ? { notHeld: [notHeld] } : {}) });
    // The draft must be a catalog; a failure here is a bug of the drafter, not of the database.
    const checked = catalogSchema.safeParse(parse(yaml));
    if (!checked.success) throw new Error(`the draft is not a valid catalog (a bug of catalog:init): ${checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    const needs = periodNeeds(sources);
    return { yaml, sources: sources.map((s) => s.name), notDrafted, target, report: draftReport({ sources, pairings, masters, needs, ...(fiscalYear ? { fiscalYear } : {}), ...(notHeld ? { notHeld: [notHeld] } : {}) }) };
  } catch (error) {
    throw redact(error);
  } finally {
    await engine.close();
  }
}

/**
 * Balance-sheet subjects as not held, when the account master data names every account revenue
 * or expenses (read in full, not cut at the value-name limit).
 */
function profitAndLossOnly(masters: readonly { table: string; named: readonly { dimension: string; names: number; words: Record<string, number>; truncated?: boolean }[] }[]) {
  for (const { table, named } of masters) {
    const accounts = named.find((n) => n.dimension === 'account' && n.names > 0 && !n.truncated);
    if (!accounts || (accounts.words.revenue ?? 0) + (accounts.words.expenses ?? 0) !== accounts.names) continue;
    return {
      terms: [...BALANCE_SHEET_TERMS],
      reason: 'the accounts are profit-and-loss accounts only (revenue and expenses): balance-sheet figures are not in the data',
      basis: `every one of the ${accounts.names} accounts in ${table} is described as revenue or expenses`,
    };
  }
  return undefined;
}

/** Only the files of the drafted sources are declared (master data and skipped tables are not read by the service). */
function pickTables(files: Record<string, string>, sources: readonly SourceDraft[]): Record<string, string> {
  return Object.fromEntries(Object.entries(files).filter(([table]) => sources.some((source) => source.table === table)));
}

/** Periods not in YYYYPPP: read from the values, so worth a look, and named in the report. */
function periodNeeds(sources: readonly SourceDraft[]): string[] {
  const periods = sources.flatMap((source) => source.dimensions.filter((d) => d.type === 'period' && d.format !== 'YYYYPPP').map((d) => `${source.name}.${d.name} (${d.format}${d.yearColumn ? `, year in ${d.yearColumn}` : ''})`));
  return periods.length > 0 ? [`Period formats read from the values: ${periods.join(', ')}: check them.`] : [];
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
function header(url: string, target: string, sourceCount: number, files: boolean, relative: boolean): string[] {
  const lines = [`Catalog draft made by \`npm run catalog:init\` from ${files ? 'CSV/Parquet files' : target} (${sourceCount} source${sourceCount === 1 ? '' : 's'}).`];
  if (files) {
    return [
      ...lines,
      '',
      `Connection: the files are read through DuckDB (connections.${FILES_CONNECTION} below; each source says connection: ${FILES_CONNECTION}).`,
      relative
        ? 'Their paths are relative to this file\'s folder, as the service resolves them: move the files and this file together.'
        : 'Their paths are absolute (the draft was printed, not written to a file); a relative path would be resolved against this file\'s folder.',
      'The default connection (DATA_URL or DATA_DB) is still opened at start: keep it pointing at a database that exists.',
    ];
  }
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
