/**
 * FI document lines of the sample: each planned ACTUAL cell split into lines and
 * documents, the duplicated delta load and the data-quality defects.
 */
import { Rng } from './random.ts';
import { FISCAL_YEAR_VARIANT, PLANTED, PROFIT_CENTERS, SEED, UNIT_PRICE, accountByGl } from './model.ts';
import type { Cell } from './plan.ts';
import type { FiLine } from './types.ts';

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

export function generateFi(cells: Cell[]): { lines: FiLine[]; duplicates: FiLine[] } {
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

