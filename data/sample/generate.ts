/**
 * Deterministic generator of the bundled sample database (SAP BW finance
 * reporting, fiscal year 2024). See data/README.md for the resulting data
 * and the ground truth of the planted discrepancies.
 *
 * All amounts are computed as integer cents, so every aggregate the
 * generator derives (consolidation, BPC, year-to-date, group currency) is
 * exact; they are divided by 100 only when written to SQLite.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Rng } from './random.ts';
import {
  ACCOUNTS,
  COMPANIES,
  COMPANY_PLANS,
  FISCAL_YEAR_VARIANT,
  FX_RATES_E4,
  PERIODS,
  PLANTED,
  PROFIT_CENTERS,
  SCOPE,
  SEASONALITY,
  SEED,
  UNIT_PRICE,
  accountByGl,
  rateE4,
  type Company,
} from './model.ts';

export interface FiLine {
  compcode: string;
  fiscper: string;
  fiscvarnt: string;
  gl_acct: string;
  grpacct: string;
  pcompany: string | null;
  ac_docnr: string;
  docline: number;
  prof_ctr: string | null;
  segment: string | null;
  amountCents: number;
  curkey_lc: string;
  quantity: number | null;
  request_id: string;
}

export interface MartRow {
  compcode: string;
  fiscper: string;
  version: string;
  grpacct: string;
  pcompany: string | null;
  lcCents: number;
  ytdCents: number;
  curkey_lc: string;
  gcCents: number;
}

export interface BpcRow {
  compcode: string;
  fiscper: string;
  version: string;
  scope: string;
  grpacct: string;
  pcompany: string | null;
  audittrail: string;
  lcCents: number;
  curkey_lc: string;
  gcCents: number;
}

export interface FxRow {
  fiscper: string;
  currency: string;
  rateE4: number;
}

export interface SampleModel {
  companies: readonly Company[];
  fxRates: FxRow[];
  fi: FiLine[];
  consolidation: MartRow[];
  bpc: BpcRow[];
}

export const TABLE_NAMES = ['companies', 'account_map', 'fx_rates', 'fi_reporting', 'consolidation_mart', 'bpc_reporting'] as const;
export type TableName = (typeof TABLE_NAMES)[number];

// ---------------------------------------------------------------------------
// Integer arithmetic helpers (cents, rates in 1/10000)

/** Integer division rounding half away from zero (numerator, denominator > 0 assumed for denominator). */
function divRound(numerator: number, denominator: number): number {
  const sign = numerator < 0 ? -1 : 1;
  const q = Math.floor((2 * Math.abs(numerator) + denominator) / (2 * denominator));
  return sign * q;
}

/** Round an amount in currency units to a multiple of `step` units; returns cents. */
function roundToStepCents(amount: number, step: number): number {
  const sign = amount < 0 ? -1 : 1;
  return sign * Math.round(Math.abs(amount) / step) * step * 100;
}

/** Translate local-currency cents to group-currency cents at a rate in 1/10000. */
export function translateCents(lcCents: number, rate: number): number {
  return divRound(lcCents * rate, 10000);
}

/** Local-currency cents of a group-currency (EUR) amount: eur / rate, rounded to cents. */
function fromEurCents(eurCents: number, rate: number): number {
  return divRound(eurCents * 10000, rate);
}

function cellKey(compcode: string, fiscper: string, grpacct: string, pcompany: string | null): string {
  return `${compcode}|${fiscper}|${grpacct}|${pcompany ?? ''}`;
}

function companyByCode(compcode: string): Company {
  const company = COMPANIES.find((c) => c.compcode === compcode);
  if (!company) throw new Error(`Unknown company ${compcode}`);
  return company;
}

function periodAt(index: number): string {
  const period = PERIODS[index];
  if (period === undefined) throw new Error(`No period at index ${index}`);
  return period;
}

// ---------------------------------------------------------------------------
// Plan: budget, actual and forecast cell totals (company x period x account x partner)

interface Cell {
  compcode: string;
  fiscper: string;
  periodIndex: number;
  gl_acct: string;
  grpacct: string;
  pcompany: string | null;
  currency: string;
  budgetCents: number;
  /** null when the actual posting is missing (planted). */
  actualCents: number | null;
  forecastCents: number;
}

function planCells(): Cell[] {
  const cells: Cell[] = [];
  // Seller side of the intercompany flow, needed by the buyer's cells.
  const icSeller = new Map<number, { budget: number; actual: number; forecast: number }>();

  for (const company of COMPANIES) {
    const plans = COMPANY_PLANS[company.compcode] ?? [];
    for (const plan of plans) {
      const account = accountByGl(plan.gl_acct);
      const actualRng = Rng.forLabel(SEED, `actual:${company.compcode}:${plan.gl_acct}`);
      const forecastRng = Rng.forLabel(SEED, `forecast:${company.compcode}:${plan.gl_acct}`);
      const isIcBuyer = plan.pcompany !== null && account.account_type === 'expense';

      for (let p = 0; p < PERIODS.length; p++) {
        const fiscper = periodAt(p);
        // Always draw, so that every stream stays aligned to its period.
        const noise = actualRng.uniform(-plan.actualNoise, plan.actualNoise);
        const reforecast = forecastRng.uniform(-0.04, 0.04);
        const rate = rateE4(company.currency, p);

        let budgetCents: number;
        let actualCents: number | null;
        let forecastCents: number;

        if (isIcBuyer) {
          const seller = icSeller.get(p);
          if (!seller) throw new Error('Intercompany seller must be planned before the buyer');
          budgetCents = -roundToStepCents(seller.budget / 100 / (rate / 10000), 1000);
          // The buyer books the seller's EUR invoice in USD at the period's rate.
          actualCents = -fromEurCents(seller.actual, rate);
          if (translateCents(actualCents, rate) !== -seller.actual) {
            throw new Error(`Intercompany round trip is not exact in ${fiscper}`);
          }
          forecastCents = p < 6 ? actualCents : -roundToStepCents(seller.forecast / 100 / (rate / 10000), 1000);
        } else {
          const seasonal = plan.seasonal ? (SEASONALITY[p] ?? 1) : 1;
          budgetCents = roundToStepCents(plan.monthlyBudget * seasonal, 1000);
          actualCents = roundToStepCents((budgetCents / 100) * (1 + noise), 100);
          forecastCents = p < 6 ? actualCents : roundToStepCents((budgetCents / 100) * (1 + reforecast), 1000);
        }

        // Planted budget variances (discrepancy 5).
        const shortfall = PLANTED.revenueShortfall;
        if (company.compcode === shortfall.compcode && fiscper === shortfall.fiscper && plan.gl_acct === shortfall.gl_acct) {
          actualCents = Math.round(budgetCents * shortfall.actualFactor);
        }
        const bonus = PLANTED.bonusAccrual;
        if (company.compcode === bonus.compcode && fiscper === bonus.fiscper && plan.gl_acct === bonus.gl_acct) {
          actualCents = budgetCents + bonus.extraCents;
        }
        // Planted missing intercompany purchase (discrepancy 2).
        const ic = PLANTED.missingIntercompany;
        if (isIcBuyer && company.compcode === ic.buyer && fiscper === ic.fiscper) {
          actualCents = null;
        }

        if (plan.pcompany !== null && !isIcBuyer) {
          icSeller.set(p, { budget: budgetCents, actual: actualCents ?? 0, forecast: forecastCents });
        }

        cells.push({
          compcode: company.compcode,
          fiscper,
          periodIndex: p,
          gl_acct: plan.gl_acct,
          grpacct: account.grpacct,
          pcompany: plan.pcompany,
          currency: company.currency,
          budgetCents,
          actualCents,
          forecastCents,
        });
      }
    }
  }
  return cells;
}

// ---------------------------------------------------------------------------
// FI document lines

/** Split a total (cents) into `count` same-signed parts with random weights; the last takes the remainder. */
function splitCents(total: number, count: number, rng: Rng): number[] {
  if (count <= 1) return [total];
  const weights = Array.from({ length: count }, () => 0.5 + rng.next());
  const weightSum = weights.reduce((a, b) => a + b, 0);
  const parts: number[] = [];
  let assigned = 0;
  for (let i = 0; i < count - 1; i++) {
    const part = Math.round((total * (weights[i] ?? 1)) / weightSum);
    parts.push(part);
    assigned += part;
  }
  parts.push(total - assigned);
  return parts;
}

/** Group line amounts into documents of 1-3 lines (or the given sizes). */
function groupIntoDocuments(amounts: number[], rng: Rng, sizes?: readonly number[]): number[][] {
  const docs: number[][] = [];
  let i = 0;
  let d = 0;
  while (i < amounts.length) {
    const wanted = sizes?.[d] ?? rng.int(1, 3);
    const size = Math.min(wanted, amounts.length - i);
    docs.push(amounts.slice(i, i + size));
    i += size;
    d++;
  }
  return docs;
}

function quantityFor(compcode: string, gl_acct: string, amountCents: number): number | null {
  const account = accountByGl(gl_acct);
  if (!account.hasQuantity) return null;
  const price = (UNIT_PRICE[compcode] ?? 250) * (account.account_type === 'expense' ? 0.6 : 1);
  return Math.max(1, Math.round(Math.abs(amountCents) / 100 / price));
}

function requestId(fiscper: string, compcode: string, seq: number): string {
  return `REQ_${fiscper}_${compcode}_${String(seq).padStart(2, '0')}`;
}

function generateFi(cells: Cell[]): { lines: FiLine[]; duplicates: FiLine[] } {
  const lines: FiLine[] = [];
  const duplicates: FiLine[] = [];
  const docCounters = new Map<string, number>();
  const icQuantity = new Map<string, number>();
  const dup = PLANTED.duplicate;

  const nextDocnr = (compcode: string): string => {
    const n = (docCounters.get(compcode) ?? 0) + 1;
    docCounters.set(compcode, n);
    const base = Number(compcode.charAt(0)) * 100_000_000;
    return String(base + n).padStart(10, '0');
  };

  // Cells are generated company by company, period by period, account by account.
  const ordered = [...cells].sort(
    (a, b) =>
      a.compcode.localeCompare(b.compcode) || a.fiscper.localeCompare(b.fiscper) || a.gl_acct.localeCompare(b.gl_acct),
  );

  for (const cell of ordered) {
    if (cell.actualCents === null) continue;
    const rng = Rng.forLabel(SEED, `fi:${cell.compcode}:${cell.fiscper}:${cell.gl_acct}`);
    const centers = PROFIT_CENTERS[cell.compcode] ?? [];
    const request = requestId(cell.fiscper, cell.compcode, 1);
    const isDuplicateCell = cell.compcode === dup.compcode && cell.fiscper === dup.fiscper && cell.gl_acct === dup.gl_acct;

    let documents: number[][];
    let duplicatedFrom = Infinity; // index of the first duplicated document
    if (cell.pcompany !== null) {
      // One intercompany invoice per month, one line on each side.
      documents = [[cell.actualCents]];
    } else if (isDuplicateCell) {
      const dupLineCount = dup.documentSizes.reduce((a, b) => a + b, 0);
      const restCount = rng.int(8, 12);
      const rest = groupIntoDocuments(splitCents(cell.actualCents - dup.amountCents, restCount, rng), rng);
      const duplicated = groupIntoDocuments(splitCents(dup.amountCents, dupLineCount, rng), rng, dup.documentSizes);
      duplicatedFrom = rest.length;
      documents = [...rest, ...duplicated];
    } else {
      documents = groupIntoDocuments(splitCents(cell.actualCents, rng.int(8, 16), rng), rng);
    }

    documents.forEach((docAmounts, docIndex) => {
      const docnr = nextDocnr(cell.compcode);
      docAmounts.forEach((amountCents, lineIndex) => {
        const center = cell.pcompany !== null ? centers[0] : rng.pick(centers);
        let quantity = quantityFor(cell.compcode, cell.gl_acct, amountCents);
        if (cell.pcompany !== null) {
          // Both sides of the intercompany delivery carry the seller's quantity.
          const icKey = `${cell.fiscper}|${[cell.compcode, cell.pcompany].sort().join('-')}`;
          const known = icQuantity.get(icKey);
          if (known === undefined) icQuantity.set(icKey, quantity ?? 0);
          else quantity = known;
        }
        const line: FiLine = {
          compcode: cell.compcode,
          fiscper: cell.fiscper,
          fiscvarnt: FISCAL_YEAR_VARIANT,
          gl_acct: cell.gl_acct,
          grpacct: cell.grpacct,
          pcompany: cell.pcompany,
          ac_docnr: docnr,
          docline: lineIndex + 1,
          prof_ctr: center?.prof_ctr ?? null,
          segment: center?.segment ?? null,
          amountCents,
          curkey_lc: cell.currency,
          quantity,
          request_id: request,
        };
        lines.push(line);
        if (docIndex >= duplicatedFrom) {
          duplicates.push({ ...line, request_id: dup.duplicateRequest });
        }
      });
    });
  }

  // Planted data-quality defects (discrepancy 6): amounts untouched.
  const dq = PLANTED.dataQuality;
  const candidates = lines
    .map((line, index) => ({ line, index }))
    .filter(({ line }) => line.compcode === dq.compcode && line.fiscper === dq.fiscper);
  const dqRng = Rng.forLabel(SEED, 'data-quality');
  const picks = dqRng.distinctIndices(candidates.length, dq.nullProfitCenters + dq.emptySegments);
  picks
    .map((pick) => candidates[pick]?.index ?? -1)
    .sort((a, b) => a - b)
    .forEach((lineIndex, i) => {
      const line = lines[lineIndex];
      if (!line) throw new Error('data-quality pick out of range');
      if (i < dq.nullProfitCenters) line.prof_ctr = null;
      else line.segment = '';
    });

  return { lines, duplicates };
}

// ---------------------------------------------------------------------------
// Consolidation mart and BPC

function withYtd(rows: Omit<MartRow, 'ytdCents'>[]): MartRow[] {
  const running = new Map<string, number>();
  // rows are sorted by period within each (company, version, grpacct, pcompany)
  return rows.map((row) => {
    const key = `${row.version}|${row.compcode}|${row.grpacct}|${row.pcompany ?? ''}`;
    const ytd = (running.get(key) ?? 0) + row.lcCents;
    running.set(key, ytd);
    return { ...row, ytdCents: ytd };
  });
}

const VERSION_ORDER = ['ACTUAL', 'BUDGET', 'FORECAST'];

function compareMart(
  a: { version: string; compcode: string; fiscper: string; grpacct: string; pcompany: string | null },
  b: { version: string; compcode: string; fiscper: string; grpacct: string; pcompany: string | null },
): number {
  return (
    VERSION_ORDER.indexOf(a.version) - VERSION_ORDER.indexOf(b.version) ||
    a.compcode.localeCompare(b.compcode) ||
    a.fiscper.localeCompare(b.fiscper) ||
    a.grpacct.localeCompare(b.grpacct) ||
    (a.pcompany ?? '').localeCompare(b.pcompany ?? '')
  );
}

function buildConsolidation(cells: Cell[], fiLoadedBeforeDuplicate: FiLine[]): MartRow[] {
  // ACTUAL = FI aggregated by company x period x group account x partner.
  const actual = new Map<string, Omit<MartRow, 'ytdCents'>>();
  for (const line of fiLoadedBeforeDuplicate) {
    const key = cellKey(line.compcode, line.fiscper, line.grpacct, line.pcompany);
    const row = actual.get(key);
    if (row) row.lcCents += line.amountCents;
    else
      actual.set(key, {
        compcode: line.compcode,
        fiscper: line.fiscper,
        version: 'ACTUAL',
        grpacct: line.grpacct,
        pcompany: line.pcompany,
        lcCents: line.amountCents,
        curkey_lc: line.curkey_lc,
        gcCents: 0,
      });
  }

  const rows: Omit<MartRow, 'ytdCents'>[] = [...actual.values()];
  for (const cell of cells) {
    const aggregated = actual.get(cellKey(cell.compcode, cell.fiscper, cell.grpacct, cell.pcompany));
    if ((aggregated?.lcCents ?? null) !== cell.actualCents) {
      throw new Error(`FI lines do not add up to the planned cell ${cell.compcode}/${cell.fiscper}/${cell.gl_acct}`);
    }
    for (const [version, lcCents] of [
      ['BUDGET', cell.budgetCents],
      ['FORECAST', cell.forecastCents],
    ] as const) {
      rows.push({
        compcode: cell.compcode,
        fiscper: cell.fiscper,
        version,
        grpacct: cell.grpacct,
        pcompany: cell.pcompany,
        lcCents,
        curkey_lc: cell.currency,
        gcCents: 0,
      });
    }
  }

  for (const row of rows) {
    const p = PERIODS.indexOf(row.fiscper);
    row.gcCents = translateCents(row.lcCents, rateE4(row.curkey_lc, p));
  }
  rows.sort(compareMart);
  return withYtd(rows);
}

function buildBpc(consolidation: MartRow[]): BpcRow[] {
  const wrong = PLANTED.wrongTranslation;
  const adj = PLANTED.manualAdjustment;
  const rows: BpcRow[] = [];
  for (const row of consolidation) {
    if (row.version === 'FORECAST') continue;
    let gcCents = row.gcCents;
    if (row.version === 'ACTUAL' && row.compcode === wrong.compcode && row.fiscper === wrong.fiscper) {
      // Planted: translated at the previous period's rate (discrepancy 3).
      gcCents = translateCents(row.lcCents, rateE4(row.curkey_lc, PERIODS.indexOf(wrong.ratePeriod)));
    }
    rows.push({
      compcode: row.compcode,
      fiscper: row.fiscper,
      version: row.version,
      scope: SCOPE,
      grpacct: row.grpacct,
      pcompany: row.pcompany,
      audittrail: 'INPUT',
      lcCents: row.lcCents,
      curkey_lc: row.curkey_lc,
      gcCents,
    });
    if (
      row.version === 'ACTUAL' &&
      row.compcode === adj.compcode &&
      row.fiscper === adj.fiscper &&
      row.grpacct === adj.grpacct &&
      row.pcompany === null
    ) {
      // Planted: top-side entry only in BPC (discrepancy 4).
      rows.push({
        ...rows[rows.length - 1]!,
        audittrail: adj.audittrail,
        lcCents: adj.amountCents,
        gcCents: translateCents(adj.amountCents, rateE4(row.curkey_lc, PERIODS.indexOf(row.fiscper))),
      });
    }
  }
  return rows;
}

/** The complete sample as plain rows (amounts in integer cents). Pure and deterministic. */
export function generateSampleModel(): SampleModel {
  const cells = planCells();
  const { lines, duplicates } = generateFi(cells);
  const consolidation = buildConsolidation(cells, lines);
  const bpc = buildBpc(consolidation);
  const fxRates: FxRow[] = [];
  for (let p = 0; p < PERIODS.length; p++) {
    for (const currency of Object.keys(FX_RATES_E4)) {
      fxRates.push({ fiscper: periodAt(p), currency, rateE4: rateE4(currency, p) });
    }
  }
  // The duplicated delta load arrives after everything else was loaded.
  return { companies: COMPANIES, fxRates, fi: [...lines, ...duplicates], consolidation, bpc };
}

// ---------------------------------------------------------------------------
// SQLite

const SCHEMA = `
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
CREATE TABLE fi_reporting (
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
);
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

const INDEXES = `
CREATE INDEX ix_fi_company_period ON fi_reporting (compcode, fiscper);
CREATE INDEX ix_fi_period ON fi_reporting (fiscper);
CREATE INDEX ix_fi_gl_acct ON fi_reporting (gl_acct);
CREATE INDEX ix_fi_grpacct ON fi_reporting (grpacct);
CREATE INDEX ix_fi_docnr ON fi_reporting (ac_docnr);
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

const cents = (value: number): number => value / 100;

function writeDatabase(db: Database.Database, model: SampleModel): void {
  db.exec(SCHEMA);
  const insertCompany = db.prepare('INSERT INTO companies (compcode, name, country, currency) VALUES (?, ?, ?, ?)');
  const insertAccount = db.prepare(
    'INSERT INTO account_map (gl_acct, grpacct, description, account_type) VALUES (?, ?, ?, ?)',
  );
  const insertFx = db.prepare('INSERT INTO fx_rates (fiscper, currency, rate_to_eur) VALUES (?, ?, ?)');
  const insertFi = db.prepare(
    `INSERT INTO fi_reporting (compcode, fiscper, fiscvarnt, gl_acct, grpacct, pcompany, ac_docnr, docline,
       prof_ctr, segment, cs_trn_lc, curkey_lc, quantity, request_id)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertMart = db.prepare(
    `INSERT INTO consolidation_mart (compcode, fiscper, version, grpacct, pcompany, cs_trn_lc, cs_ytd_lc, curkey_lc, cs_trn_gc)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertBpc = db.prepare(
    `INSERT INTO bpc_reporting (compcode, fiscper, version, scope, grpacct, pcompany, audittrail, cs_trn_lc, curkey_lc, cs_trn_gc)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );

  db.transaction(() => {
    for (const c of model.companies) insertCompany.run(c.compcode, c.name, c.country, c.currency);
    for (const a of ACCOUNTS) insertAccount.run(a.gl_acct, a.grpacct, a.description, a.account_type);
    for (const r of model.fxRates) insertFx.run(r.fiscper, r.currency, r.rateE4 / 10000);
    for (const l of model.fi) {
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
