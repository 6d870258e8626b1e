/**
 * Streams the FI document lines of a plan into fi_acquisition, then derives fi_reporting
 * from it in SQL: every line except the lost documents, plus the duplicated delta load.
 * Only one cell's lines (and the duplicated load) are ever held in memory.
 */
import type Database from 'better-sqlite3';
import { FISCAL_YEAR_VARIANT } from '../sample/model.ts';
import { Rng } from '../sample/random.ts';
import { FI_COLUMNS } from '../sample/schema.ts';
import { BatchInserter, type SqlValue } from './inserter.ts';
import { splitCents } from './money.ts';
import type { Cell, Plan } from './plan.ts';

export interface FiLineFacts {
  document: string;
  line: number;
  amountCents: number;
}

export interface FiOutcome {
  acquisitionRows: number;
  reportingRows: number;
  /** (a) the duplicated delta load: its cell, request and lines. */
  duplicate: { cell: Cell; request: string; documents: number; lines: FiLineFacts[]; amountCents: number };
  /** (b) the documents lost between the layers. */
  lost: { cell: Cell; documents: string[]; lines: FiLineFacts[]; amountCents: number };
}

export type Progress = (done: number, total: number) => void;

/** Share of the duplicated cell's amount that the duplicated documents reach at least. */
const DUPLICATE_SHARE = 0.08;

const requestId = (cell: Cell, seq: number) => `REQ_${cell.fiscper}_${cell.company.compcode}_${String(seq).padStart(2, '0')}`;
const amount = (cents: number) => cents / 100;

/** Group line amounts into documents of 1–3 lines. */
function documentsOf(amounts: number[], rng: Rng): number[][] {
  const docs: number[][] = [];
  for (let i = 0; i < amounts.length; ) {
    const size = Math.min(rng.int(1, 3), amounts.length - i);
    docs.push(amounts.slice(i, i + size));
    i += size;
  }
  return docs;
}

function quantityOf(cell: Cell, amountCents: number): number | null {
  if (!cell.account.hasQuantity) return null;
  const price = cell.company.unitPriceCents * (cell.account.account_type === 'expense' ? 0.6 : 1);
  return Math.max(1, Math.round(Math.abs(amountCents) / price));
}

export function writeFi(db: Database.Database, plan: Plan, seed: number, progress: Progress): FiOutcome {
  const { duplicate: dup, lost: lostAt } = plan.planted;
  const isAt = (cell: Cell, at: { compcode: string; periodIndex: number; gl_acct: string }) =>
    cell.company.compcode === at.compcode && cell.periodIndex === at.periodIndex && cell.account.gl_acct === at.gl_acct;
  const total = plan.cells.reduce((sum, c) => sum + c.lines, 0);
  const acquisition = new BatchInserter(db, 'fi_acquisition', FI_COLUMNS);
  const duplicatedRows: SqlValue[][] = [];
  let duplicate: FiOutcome['duplicate'] | undefined;
  let lost: FiOutcome['lost'] | undefined;
  const icQuantity = new Map<string, number | null>();
  let company = '';
  let docCounter = 0;

  for (const cell of plan.cells) {
    if (cell.actualCents === null || cell.lines === 0) continue;
    if (cell.company.compcode !== company) {
      company = cell.company.compcode;
      docCounter = 0;
    }
    const rng = Rng.forLabel(seed, `fi:${company}:${cell.fiscper}:${cell.account.gl_acct}:${cell.pcompany ?? ''}`);
    const docs = documentsOf(splitCents(cell.actualCents, cell.lines, rng, cell.company.unitCents), rng);
    const request = requestId(cell, 1);

    // (a) the last documents of the cell, up to DUPLICATE_SHARE of its amount, are loaded twice.
    let duplicatedFrom = docs.length;
    if (isAt(cell, dup)) {
      let sum = 0;
      while (duplicatedFrom > 0 && (duplicatedFrom === docs.length || Math.abs(sum) < Math.abs(cell.actualCents) * DUPLICATE_SHARE)) {
        duplicatedFrom -= 1;
        sum += docs[duplicatedFrom]!.reduce((a, b) => a + b, 0);
      }
      if (duplicatedFrom === 0 && docs.length > 1) duplicatedFrom = 1;
      duplicate = { cell, request: requestId(cell, 2), documents: docs.length - duplicatedFrom, lines: [], amountCents: 0 };
    }
    // (b) a few documents at random positions are lost on the way to fi_reporting.
    let lostDocs = new Set<number>();
    if (isAt(cell, lostAt)) {
      const count = Math.max(1, Math.min(lostAt.documents, docs.length - 1));
      lostDocs = new Set(Rng.forLabel(seed, 'lost-documents').distinctIndices(docs.length, count));
      lost = { cell, documents: [], lines: [], amountCents: 0 };
    }

    docs.forEach((docAmounts, docIndex) => {
      docCounter += 1;
      const docnr = cell.company.docPrefix + String(docCounter).padStart(8, '0');
      if (lostDocs.has(docIndex)) lost!.documents.push(docnr);
      docAmounts.forEach((amountCents, lineIndex) => {
        const center = cell.pcompany !== null ? cell.company.profitCenters[0]! : rng.pick(cell.company.profitCenters);
        let quantity = quantityOf(cell, amountCents);
        if (cell.pcompany !== null) {
          // Both sides of an intercompany delivery carry the seller's quantity.
          const key = `${[cell.company.compcode, cell.pcompany].sort().join('-')}:${cell.fiscper}`;
          if (icQuantity.has(key)) quantity = icQuantity.get(key) ?? null;
          else icQuantity.set(key, quantity);
        }
        const row: SqlValue[] = [
          company, cell.fiscper, FISCAL_YEAR_VARIANT, cell.account.gl_acct, cell.account.grpacct, cell.pcompany, docnr,
          lineIndex + 1, center.prof_ctr, center.segment, amount(amountCents), cell.company.currency, quantity, request,
        ];
        acquisition.add(...row);
        const facts = { document: docnr, line: lineIndex + 1, amountCents };
        if (docIndex >= duplicatedFrom && duplicate) {
          duplicatedRows.push([...row.slice(0, -1), duplicate.request]);
          duplicate.lines.push(facts);
          duplicate.amountCents += amountCents;
        }
        if (lostDocs.has(docIndex)) {
          lost!.lines.push(facts);
          lost!.amountCents += amountCents;
        }
        if (acquisition.count % 100_000 === 0) progress(acquisition.count, total);
      });
    });
  }
  acquisition.flush();
  if (acquisition.count % 100_000 !== 0) progress(acquisition.count, total);
  if (!duplicate || !lost) throw new Error('the planted FI cells were not generated');

  // fi_reporting: the acquisition layer without the lost documents, in the same order,
  // then the duplicated delta load.
  const placeholders = lost.documents.map(() => '?').join(', ');
  const copied = db
    .prepare(`INSERT INTO fi_reporting (${FI_COLUMNS.join(', ')}) SELECT ${FI_COLUMNS.join(', ')} FROM fi_acquisition WHERE ac_docnr NOT IN (${placeholders}) ORDER BY rowid`)
    .run(...lost.documents).changes;
  const reporting = new BatchInserter(db, 'fi_reporting', FI_COLUMNS);
  for (const row of duplicatedRows) reporting.add(...row);
  reporting.flush();
  return { acquisitionRows: acquisition.count, reportingRows: copied + reporting.count, duplicate, lost };
}
