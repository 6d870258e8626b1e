/**
 * Writes the sample model to SQLite: into a temporary file next to the target, renamed
 * into place once complete, so a failed build never leaves a half-written database.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ACCOUNTS } from './model.ts';
import { generateSampleModel } from './sampleModel.ts';
import {
  FI_TABLES,
  INDEXES,
  INSERT_ACCOUNT_SQL,
  INSERT_BPC_SQL,
  INSERT_COMPANY_SQL,
  INSERT_FX_SQL,
  INSERT_MART_SQL,
  SCHEMA,
  TABLE_NAMES,
  centsToAmount as cents,
  insertFiSql,
} from './schema.ts';
import type { FiLine, SampleModel } from './types.ts';

function writeDatabase(db: Database.Database, model: SampleModel): void {
  db.exec(SCHEMA);
  const insertCompany = db.prepare(INSERT_COMPANY_SQL);
  const insertAccount = db.prepare(INSERT_ACCOUNT_SQL);
  const insertFx = db.prepare(INSERT_FX_SQL);
  const insertMart = db.prepare(INSERT_MART_SQL);
  const insertBpc = db.prepare(INSERT_BPC_SQL);
  const fiLines: Record<(typeof FI_TABLES)[number], FiLine[]> = { fi_acquisition: model.fiAcquisition, fi_reporting: model.fi };

  db.transaction(() => {
    for (const c of model.companies) insertCompany.run(c.compcode, c.name, c.country, c.currency);
    for (const a of ACCOUNTS) insertAccount.run(a.gl_acct, a.grpacct, a.description, a.account_type);
    for (const r of model.fxRates) insertFx.run(r.fiscper, r.currency, r.rateE4 / 10000);
    for (const table of FI_TABLES) {
      const insertFi = db.prepare(insertFiSql(table));
      for (const l of fiLines[table]) {
        insertFi.run(
          l.compcode,
          l.fiscper,
          l.fiscvarnt,
          l.gl_acct,
          l.grpacct,
          l.pcompany,
          l.ac_docnr,
          l.docline,
          l.prof_ctr,
          l.segment,
          cents(l.amountCents),
          l.curkey_lc,
          l.quantity,
          l.request_id,
        );
      }
    }
    for (const r of model.consolidation) {
      insertMart.run(r.compcode, r.fiscper, r.version, r.grpacct, r.pcompany, cents(r.lcCents), cents(r.ytdCents), r.curkey_lc, cents(r.gcCents));
    }
    for (const r of model.bpc) {
      insertBpc.run(r.compcode, r.fiscper, r.version, r.scope, r.grpacct, r.pcompany, r.audittrail, cents(r.lcCents), r.curkey_lc, cents(r.gcCents));
    }
  })();
  db.exec(INDEXES);
}

export interface BuildResult {
  tables: Record<string, number>;
}

/**
 * Build the sample database at `outPath` (overwriting it). The database is
 * written to a temporary file in the same folder and renamed into place,
 * so a failed build never leaves a half-built file behind.
 */
export function buildSampleDatabase(outPath: string): BuildResult {
  const target = path.resolve(outPath);
  const dir = path.dirname(target);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = path.join(dir, `.${path.basename(target)}.${process.pid}.tmp`);
  fs.rmSync(tmp, { force: true });

  const model = generateSampleModel();
  const tables: Record<string, number> = {};
  try {
    const db = new Database(tmp);
    try {
      db.pragma('journal_mode = MEMORY');
      db.pragma('synchronous = OFF');
      writeDatabase(db, model);
      for (const name of TABLE_NAMES) {
        const row = db.prepare(`SELECT COUNT(*) AS n FROM ${name}`).get() as { n: number };
        tables[name] = row.n;
      }
    } finally {
      db.close();
    }
    fs.renameSync(tmp, target);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  return { tables };
}

/**
 * Whether `file` already holds every table of the current schema with its columns; a
 * database built by an older generator (e.g. without fi_acquisition) is outdated.
 */
export function isCurrentSampleDatabase(file: string): boolean {
  if (!fs.existsSync(file)) return false;
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const expected = new Database(':memory:');
    try {
      expected.exec(SCHEMA);
      for (const table of TABLE_NAMES) {
        const columns = (d: Database.Database) =>
          (d.prepare('SELECT name FROM pragma_table_info(?)').all(table) as { name: string }[]).map((c) => c.name).join(',');
        if (columns(db) !== columns(expected)) return false;
      }
      return true;
    } finally {
      expected.close();
    }
  } catch {
    return false;
  } finally {
    db?.close();
  }
}
