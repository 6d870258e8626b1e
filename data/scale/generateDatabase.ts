/**
 * Generates a finance database of any size with the schema of the bundled sample (so the
 * service runs on it with the default catalog), the same kinds of planted discrepancies,
 * and a manifest of them with the tool calls that reveal them.
 *
 * Deterministic: the same options give the same rows and the same manifest. Memory stays
 * bounded: FI lines are streamed into SQLite, never held all at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ACCOUNTS, FISCAL_YEAR, PERIODS } from '../sample/model.ts';
import {
  INDEXES,
  INSERT_ACCOUNT_SQL,
  INSERT_BPC_SQL,
  INSERT_COMPANY_SQL,
  INSERT_FX_SQL,
  INSERT_MART_SQL,
  SCHEMA,
  TABLE_NAMES,
  centsToAmount as cents,
} from '../sample/schema.ts';
import { buildBpc, buildMart } from './aggregates.ts';
import { writeFi } from './fiWriter.ts';
import { buildDiscrepancies, type Manifest } from './manifest.ts';
import { RATE_SCALE } from './money.ts';
import { resolveOptions } from './options.ts';
import { buildPlan, type Plan } from './plan.ts';

export interface GenerateInput {
  rows: number;
  out: string;
  seed?: number;
  companies?: number;
  /** Progress messages (one line each); default: none. */
  onProgress?: (message: string) => void;
}

export interface GenerateResult {
  manifest: Manifest;
  /** Absolute paths of the database and its manifest. */
  path: string;
  manifestPath: string;
  bytes: number;
  elapsedMs: number;
}

export const manifestPathOf = (databasePath: string) => `${databasePath}.manifest.json`;

/**
 * Writes the database to `out` (replacing it) and its manifest to `out.manifest.json`.
 * Both are built in temporary files next to the targets and renamed into place.
 * @throws UsageError for invalid options
 */
export function generateDatabase(input: GenerateInput): GenerateResult {
  const options = resolveOptions(input);
  const started = process.hrtime.bigint();
  const seconds = () => (Number(process.hrtime.bigint() - started) / 1e9).toFixed(1);
  const say = (message: string) => input.onProgress?.(`${message} (${seconds()}s)`);
  const target = path.resolve(options.out);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  if (fs.existsSync(target) && fs.statSync(target).isDirectory()) throw new Error(`${target} is a folder`);
  const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.tmp`);
  fs.rmSync(tmp, { force: true });

  const plan = buildPlan(options.rows, options.companies, options.seed);
  let manifest: Manifest;
  try {
    const db = new Database(tmp);
    try {
      db.pragma('journal_mode = OFF');
      db.pragma('synchronous = OFF');
      db.pragma('locking_mode = EXCLUSIVE');
      db.pragma('cache_size = -65536'); // 64 MB page cache (also the index sorter's memory)
      db.exec(SCHEMA);
      writeMasterData(db, plan);
      const fi = writeFi(db, plan, options.seed, (done, total) => say(`fi_acquisition ${done.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} rows`));
      say(`fi_reporting ${fi.reportingRows.toLocaleString('en-US')} rows`);
      const mart = buildMart(plan);
      const bpc = buildBpc(plan, mart);
      writeAggregates(db, mart, bpc);
      say(`consolidation_mart ${mart.length.toLocaleString('en-US')} rows, bpc_reporting ${bpc.length.toLocaleString('en-US')} rows`);
      for (const statement of INDEXES.split(';').map((s) => s.trim()).filter(Boolean)) {
        db.exec(statement);
        say(statement.replace(/^CREATE INDEX (\w+) ON (\w+) .*$/s, 'index $1 on $2'));
      }
      db.exec('PRAGMA analysis_limit = 1000; ANALYZE;');
      const tables: Record<string, number> = {};
      for (const name of TABLE_NAMES) tables[name] = (db.prepare(`SELECT COUNT(*) AS n FROM ${name}`).get() as { n: number }).n;
      manifest = {
        seed: options.seed,
        rows_per_source: options.rows,
        companies: options.companies,
        fiscal_year: FISCAL_YEAR,
        company_list: plan.companies.map((c) => ({ compcode: c.compcode, name: c.name, currency: c.currency })),
        tables,
        discrepancies: buildDiscrepancies(plan, fi, mart, bpc),
      };
    } finally {
      db.close();
    }
    fs.renameSync(tmp, target);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  const manifestPath = manifestPathOf(target);
  const manifestTmp = `${manifestPath}.${process.pid}.tmp`;
  fs.writeFileSync(manifestTmp, `${JSON.stringify(manifest, null, 2)}\n`);
  fs.renameSync(manifestTmp, manifestPath);
  return { manifest, path: target, manifestPath, bytes: fs.statSync(target).size, elapsedMs: Number(process.hrtime.bigint() - started) / 1e6 };
}

function writeMasterData(db: Database.Database, plan: Plan): void {
  const company = db.prepare(INSERT_COMPANY_SQL);
  const account = db.prepare(INSERT_ACCOUNT_SQL);
  const fx = db.prepare(INSERT_FX_SQL);
  db.transaction(() => {
    for (const c of plan.companies) company.run(c.compcode, c.name, c.country, c.currency);
    for (const a of ACCOUNTS) account.run(a.gl_acct, a.grpacct, a.description, a.account_type);
    PERIODS.forEach((fiscper, p) => {
      for (const currency of plan.fx.currencies) fx.run(fiscper, currency, plan.fx.rate(currency, p) / RATE_SCALE);
    });
  })();
}

function writeAggregates(db: Database.Database, mart: ReturnType<typeof buildMart>, bpc: ReturnType<typeof buildBpc>): void {
  const insertMart = db.prepare(INSERT_MART_SQL);
  const insertBpc = db.prepare(INSERT_BPC_SQL);
  db.transaction(() => {
    for (const r of mart) insertMart.run(r.compcode, r.fiscper, r.version, r.grpacct, r.pcompany, cents(r.lcCents), cents(r.ytdCents), r.curkey_lc, cents(r.gcCents));
    for (const r of bpc) insertBpc.run(r.compcode, r.fiscper, r.version, r.scope, r.grpacct, r.pcompany, r.audittrail, cents(r.lcCents), r.curkey_lc, cents(r.gcCents));
  })();
}
