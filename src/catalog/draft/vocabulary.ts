/**
 * The drafter's dictionary of common ERP and general-ledger column names (SAP table fields,
 * German and English words): what a column called `bukrs`, `hkont` or `plan_wert` is, the logical
 * name and synonyms it gets in a draft, and which currency column an amount goes with. Kept as
 * data, one row per concept, so a new name is one more word in a list; columnRole.ts and guess.ts
 * read it through `termOf`. Names are compared in snake_case (`GJAHR_MONAT`, `CompanyCode`). SAP BW
 * InfoObject names (compcode, fiscper, gl_acct) are left out on purpose: drafts of the bundled BW
 * sample keep its column names, which its tests and hand-written catalog rely on.
 */
import { logicalName } from './logicalNames.ts';

export type TermRole =
  /** A dimension (company, account, document…). */
  | 'dimension'
  /** A period: its format is read from the values (YYYYPPP, YYYYMM, YYYY-MM, a date, or 1..16 beside a fiscal year). */
  | 'period'
  /** A fiscal year (2024): the period's partner when the period is held as 1..16. */
  | 'fiscal_year'
  | 'currency'
  | 'measure'
  /** A master-data description (the business name of a key). */
  | 'label'
  /** The language key of a master-data text table (SKAT-SPRAS). */
  | 'language';

export interface Term {
  role: TermRole;
  /** The logical name the column gets (made unique within its source). */
  name: string;
  /** Physical names, any case. */
  columns: readonly string[];
  /** What it is, for the description and the report. */
  meaning: string;
  synonyms: readonly string[];
  /** The logical name when `name` is already taken in the source (rtcur beside rhcur: transaction_currency). */
  alternative?: string;
  /** Near-unique keys (documents). */
  cardinality?: 'high';
  /** Measures: the currency columns that give each row's currency, best first. */
  currencyColumns?: readonly string[];
  /** Measures: false for amounts in a fixed currency (group currency), which never take a table's only currency column. */
  anyCurrency?: boolean;
}

const COMPANY = ['companies', 'company code', 'company codes', 'entity', 'entities', 'legal entity', 'comp code'];
const ACCOUNT = ['accounts', 'gl account', 'g/l account', 'general ledger account', 'ledger account'];
const PERIOD = ['periods', 'month', 'months', 'fiscal period', 'posting period'];
const AMOUNT = ['value', 'values', 'figure', 'figures', 'balance', 'result', 'P&L'];
const LOCAL = ['amounts', ...AMOUNT, 'local currency', 'LC', 'company code currency'];

export const TERMS: readonly Term[] = [
  { role: 'dimension', name: 'company', columns: ['bukrs', 'rbukrs', 'company', 'company_code', 'companycode', 'comp_code', 'entity', 'legal_entity', 'buchungskreis', 'gesellschaft', 'firma'], meaning: 'Company code (legal entity)', synonyms: COMPANY },
  { role: 'dimension', name: 'account', columns: ['hkont', 'saknr', 'racct', 'konto', 'sachkonto', 'account', 'gl_account', 'account_number'], meaning: 'General ledger account', synonyms: ACCOUNT },
  { role: 'period', name: 'period', columns: ['gjahr_monat', 'monat', 'poper', 'period', 'periode', 'fiscal_period', 'buchungsperiode', 'posting_period', 'month', 'year_month', 'yearmonth', 'jahr_monat'], meaning: 'Period (posting month or fiscal period)', synonyms: PERIOD },
  { role: 'fiscal_year', name: 'fiscal_year', columns: ['gjahr', 'ryear', 'fiscal_year', 'fiscyear', 'geschaeftsjahr', 'fyear', 'year', 'jahr'], meaning: 'Fiscal year', synonyms: ['fiscal year', 'fiscal years', 'year', 'FY'] },
  { role: 'currency', name: 'currency', columns: ['rhcur', 'hwaer', 'currency', 'currency_code', 'currency_key', 'curr', 'waehrung', 'wahrung'], meaning: 'Currency key', synonyms: ['currencies', 'currency key', 'currency code'] },
  // Transaction/document currency: the amount's currency when it is the table's only one (a GL extract's rwcur), else its own.
  { role: 'currency', name: 'currency', alternative: 'transaction_currency', columns: ['waers', 'rwcur', 'rtcur'], meaning: 'Currency key (transaction or document currency)', synonyms: ['currencies', 'currency key', 'currency code'] },
  { role: 'currency', name: 'group_currency', columns: ['rkcur', 'kwaer', 'group_currency'], meaning: 'Group currency key', synonyms: ['group currency key'] },
  { role: 'dimension', name: 'document', columns: ['belnr', 'document_number', 'document_no', 'doc_number', 'document', 'docnr', 'belegnummer', 'beleg', 'journal_entry'], meaning: 'Accounting document number', synonyms: ['documents', 'document number', 'doc', 'journal entry'], cardinality: 'high' },
  { role: 'dimension', name: 'document_line', columns: ['buzei', 'docln', 'docline', 'line_item', 'line_number', 'posnr'], meaning: 'Line within the document', synonyms: ['line number', 'line item number'] },
  { role: 'dimension', name: 'version', columns: ['rvers', 'version', 'versn', 'category', 'scenario', 'plan_version', 'planversion'], meaning: 'Data version or category (actual, budget, forecast)', synonyms: ['versions', 'scenario', 'category'] },
  { role: 'dimension', name: 'cost_center', columns: ['kostl', 'rcntr', 'cost_center', 'cost_centre', 'costcenter', 'kostenstelle'], meaning: 'Cost centre', synonyms: ['cost centre', 'cost centres', 'cost centers'] },
  { role: 'dimension', name: 'profit_center', columns: ['prctr', 'rprctr', 'profit_center', 'profit_centre', 'profitcenter'], meaning: 'Profit centre', synonyms: ['profit centre', 'profit centres', 'profit centers'] },
  { role: 'dimension', name: 'partner_company', columns: ['vbund', 'rassc', 'pbukrs', 'partner_company', 'trading_partner'], meaning: 'Trading partner company (intercompany)', synonyms: ['partner', 'partners', 'trading partner', 'counterparty'] },
  { role: 'dimension', name: 'ledger', columns: ['rldnr', 'ledger'], meaning: 'Ledger', synonyms: ['ledgers'] },
  { role: 'dimension', name: 'segment', columns: ['segment', 'rsegment'], meaning: 'Reporting segment', synonyms: ['segments'] },
  { role: 'period', name: 'posting_date', columns: ['budat', 'posting_date', 'buchungsdatum'], meaning: 'Posting date', synonyms: ['posting date', 'posted on'] },
  { role: 'measure', name: 'amount', columns: ['hsl', 'dmbtr', 'amount', 'amount_lc', 'local_amount', 'betrag', 'wert', 'amount_local'], meaning: 'Amount in local (company code) currency', synonyms: LOCAL, currencyColumns: ['rhcur', 'hwaer', 'rwcur', 'rtcur', 'waers', 'currency', 'currency_code'], anyCurrency: true },
  { role: 'measure', name: 'amount', columns: ['plan_wert', 'planwert', 'plan_amount', 'budget_amount', 'budget', 'plan', 'planned_amount', 'plan_value'], meaning: 'Planned (budget) amount', synonyms: ['amounts', ...AMOUNT, 'planned amount', 'budget amount'], currencyColumns: ['waers', 'rwcur', 'rtcur', 'rhcur', 'currency', 'currency_code'], anyCurrency: true },
  { role: 'measure', name: 'amount_group', columns: ['ksl', 'amount_gc', 'group_amount', 'amount_group'], meaning: 'Amount in group currency', synonyms: ['group currency', 'GC', 'amount in group currency'], currencyColumns: ['rkcur', 'kwaer', 'group_currency'], anyCurrency: false },
  { role: 'measure', name: 'amount_transaction', columns: ['wsl', 'tsl', 'wrbtr', 'amount_tc', 'transaction_amount', 'amount_dc'], meaning: 'Amount in transaction (document) currency', synonyms: ['transaction currency', 'document currency', 'TC'], currencyColumns: ['rwcur', 'rtcur', 'waers'], anyCurrency: false },
  { role: 'measure', name: 'quantity', columns: ['msl', 'menge', 'quantity', 'qty'], meaning: 'Quantity', synonyms: ['quantities', 'volume'] },
  { role: 'label', name: 'description', columns: ['txt50', 'txt20', 'ltext', 'ktext', 'butxt', 'text', 'name', 'description', 'bezeichnung', 'beschreibung', 'account_name', 'company_name', 'long_text', 'short_text'], meaning: 'Description', synonyms: [] },
  { role: 'language', name: 'language', columns: ['spras', 'langu', 'language', 'sprache'], meaning: 'Language key', synonyms: [] },
];

const BY_COLUMN = new Map(TERMS.flatMap((term) => term.columns.map((column) => [logicalName(column), term] as const)));

/**
 * The dictionary's entry for a physical column name, if any.
 * @example
 * termOf('BUKRS')?.name; // 'company'
 * termOf('plan_wert')?.meaning; // 'Planned (budget) amount'
 * termOf('cs_trn_lc'); // undefined
 */
export function termOf(column: string): Term | undefined {
  return BY_COLUMN.get(logicalName(column));
}

/**
 * Words in an account's description that make it a well-known business value, and the name it then
 * also answers to ("revenue" for an account described "Umsatzerlöse Inland"); the first that
 * matches wins, so "Revenue … expenses" is revenue.
 */
export const VALUE_WORDS: readonly { pattern: RegExp; name: string }[] = [
  { pattern: /revenue|sales|umsatz|erl[öo]se?|turnover|ertr[äa]g/i, name: 'revenue' },
  { pattern: /expense|aufwand|aufwendung|kosten/i, name: 'expenses' },
];

/** Table names that say the table holds a plan, and the version it is. */
export const PLAN_TABLE: readonly { pattern: RegExp; version: string; aliases: readonly string[] }[] = [
  { pattern: /forecast|fcst|prognose|hochrechnung/i, version: 'FORECAST', aliases: ['forecast'] },
  { pattern: /budget|plan|soll/i, version: 'BUDGET', aliases: ['budget', 'plan', 'budgeted', 'planned'] },
];

/**
 * Table names that say the table is the general ledger (SAP's ACDOCA, FAGLFLEXA, BSEG, BSIS, a
 * `gl_…` extract, "Hauptbuch"), and the words people use for it: "how many GL lines".
 */
export const LEDGER_TABLE = { pattern: /^(gl|acdoca|fagl\w*|bseg|bsis)(_|$)|ledger|hauptbuch/i, aliases: ['GL', 'general ledger', 'ledger'] } as const;

/** Words for a count of rows: "how many lines did SG01 post", "number of records". */
export const ROW_COUNT_WORDS: readonly string[] = ['row count', 'number of rows', 'how many rows', 'records', 'number of records', 'lines', 'line count', 'number of lines', 'how many lines', 'line items', 'entries', 'postings', 'number of postings'];

/**
 * Subjects a ledger holding profit-and-loss accounts only cannot answer: when every account of the
 * master data is revenue or expenses, the draft declares them not held, so "CA01's balance sheet"
 * is declined instead of answered with a P&L total.
 */
export const BALANCE_SHEET_TERMS: readonly string[] = ['balance sheet', 'balance sheets', 'assets', 'liabilities', 'equity', 'cash balance', 'bank balance', 'receivables', 'payables', 'inventory', 'working capital'];
