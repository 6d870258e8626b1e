/**
 * The SQLite schema of the finance databases: the bundled sample (data/sample) and the
 * generated databases of any size (data/scale) share it, so the default catalog
 * data/sources.yaml fits both.
 */

/** Tables in creation order. */
export const TABLE_NAMES = [
  'companies',
  'account_map',
  'fx_rates',
  'fi_acquisition',
  'fi_reporting',
  'consolidation_mart',
  'bpc_reporting',
] as const;
export type TableName = (typeof TABLE_NAMES)[number];

/** The two FI layers: inbound acquisition and reporting; same columns. */
export const FI_TABLES = ['fi_acquisition', 'fi_reporting'] as const;
export type FiTable = (typeof FI_TABLES)[number];

/** Columns of both FI tables, in order. */
export const FI_COLUMNS = [
  'compcode',
  'fiscper',
  'fiscvarnt',
  'gl_acct',
  'grpacct',
  'pcompany',
  'ac_docnr',
  'docline',
  'prof_ctr',
  'segment',
  'cs_trn_lc',
  'curkey_lc',
  'quantity',
  'request_id',
] as const;

const fiTable = (name: FiTable) => `
CREATE TABLE ${name} (
  compcode   TEXT NOT NULL,
  fiscper    TEXT NOT NULL,
  fiscvarnt  TEXT NOT NULL,
  gl_acct    TEXT NOT NULL,
  grpacct    TEXT NOT NULL,
  pcompany   TEXT,
  ac_docnr   TEXT NOT NULL,
  docline    INTEGER NOT NULL,
  prof_ctr   TEXT,
  segment    TEXT,
  cs_trn_lc  REAL NOT NULL,
  curkey_lc  TEXT NOT NULL,
  quantity   REAL,
  request_id TEXT NOT NULL
);`;

export const SCHEMA = `
CREATE TABLE companies (
  compcode TEXT PRIMARY KEY,
  name     TEXT NOT NULL,
  country  TEXT NOT NULL,
  currency TEXT NOT NULL
);
CREATE TABLE account_map (
  gl_acct      TEXT PRIMARY KEY,
  grpacct      TEXT NOT NULL,
  description  TEXT NOT NULL,
  account_type TEXT NOT NULL
);
CREATE TABLE fx_rates (
  fiscper     TEXT NOT NULL,
  currency    TEXT NOT NULL,
  rate_to_eur REAL NOT NULL,
  PRIMARY KEY (fiscper, currency)
);
${fiTable('fi_acquisition')}
${fiTable('fi_reporting')}
CREATE TABLE consolidation_mart (
  compcode  TEXT NOT NULL,
  fiscper   TEXT NOT NULL,
  version   TEXT NOT NULL,
  grpacct   TEXT NOT NULL,
  pcompany  TEXT,
  cs_trn_lc REAL NOT NULL,
  cs_ytd_lc REAL NOT NULL,
  curkey_lc TEXT NOT NULL,
  cs_trn_gc REAL NOT NULL
);
CREATE TABLE bpc_reporting (
  compcode   TEXT NOT NULL,
  fiscper    TEXT NOT NULL,
  version    TEXT NOT NULL,
  scope      TEXT NOT NULL,
  grpacct    TEXT NOT NULL,
  pcompany   TEXT,
  audittrail TEXT NOT NULL,
  cs_trn_lc  REAL NOT NULL,
  curkey_lc  TEXT NOT NULL,
  cs_trn_gc  REAL NOT NULL
);
`;

/** Created after loading (cheaper than maintaining them row by row). */
export const INDEXES = `
CREATE INDEX ix_acq_doc_line ON fi_acquisition (ac_docnr, docline);
CREATE INDEX ix_acq_reconcile_line ON fi_acquisition (curkey_lc, ac_docnr, docline, cs_trn_lc);
CREATE INDEX ix_acq_reconcile_period ON fi_acquisition (curkey_lc, compcode, fiscper, cs_trn_lc);
CREATE INDEX ix_acq_company_period ON fi_acquisition (compcode, fiscper);
CREATE INDEX ix_acq_grpacct ON fi_acquisition (grpacct);
CREATE INDEX ix_fi_doc_line ON fi_reporting (ac_docnr, docline);
CREATE INDEX ix_fi_reconcile_line ON fi_reporting (curkey_lc, ac_docnr, docline, cs_trn_lc);
CREATE INDEX ix_fi_reconcile_period ON fi_reporting (curkey_lc, compcode, fiscper, cs_trn_lc);
CREATE INDEX ix_fi_company_period ON fi_reporting (compcode, fiscper);
CREATE INDEX ix_fi_period ON fi_reporting (fiscper);
CREATE INDEX ix_fi_gl_acct ON fi_reporting (gl_acct);
CREATE INDEX ix_fi_grpacct ON fi_reporting (grpacct);
CREATE INDEX ix_fi_request ON fi_reporting (request_id);
CREATE INDEX ix_cons_version_company_period ON consolidation_mart (version, compcode, fiscper);
CREATE INDEX ix_cons_company_period ON consolidation_mart (compcode, fiscper);
CREATE INDEX ix_cons_period ON consolidation_mart (fiscper);
CREATE INDEX ix_cons_grpacct ON consolidation_mart (grpacct);
CREATE INDEX ix_bpc_version_company_period ON bpc_reporting (version, compcode, fiscper);
CREATE INDEX ix_bpc_company_period ON bpc_reporting (compcode, fiscper);
CREATE INDEX ix_bpc_period ON bpc_reporting (fiscper);
CREATE INDEX ix_bpc_grpacct ON bpc_reporting (grpacct);
CREATE INDEX ix_bpc_audittrail ON bpc_reporting (audittrail);
`;

/** INSERT of one FI line into `table` (parameters in FI_COLUMNS order). */
export function insertFiSql(table: FiTable): string {
  return `INSERT INTO ${table} (${FI_COLUMNS.join(', ')}) VALUES (${FI_COLUMNS.map(() => '?').join(', ')})`;
}

export const INSERT_COMPANY_SQL = 'INSERT INTO companies (compcode, name, country, currency) VALUES (?, ?, ?, ?)';
export const INSERT_ACCOUNT_SQL = 'INSERT INTO account_map (gl_acct, grpacct, description, account_type) VALUES (?, ?, ?, ?)';
export const INSERT_FX_SQL = 'INSERT INTO fx_rates (fiscper, currency, rate_to_eur) VALUES (?, ?, ?)';
export const INSERT_MART_SQL = `INSERT INTO consolidation_mart (compcode, fiscper, version, grpacct, pcompany, cs_trn_lc, cs_ytd_lc, curkey_lc, cs_trn_gc)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`;
export const INSERT_BPC_SQL = `INSERT INTO bpc_reporting (compcode, fiscper, version, scope, grpacct, pcompany, audittrail, cs_trn_lc, curkey_lc, cs_trn_gc)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Cents to currency units as stored (REAL with at most two decimals). */
export const centsToAmount = (cents: number): number => cents / 100;
