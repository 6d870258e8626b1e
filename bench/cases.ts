/**
 * The benchmark cases: a reconciliation of fi_acquisition against fi_reporting (both ≈ rows
 * lines) aligned on few keys (company × period) or on about one key per row (document line).
 */
export interface BenchCase {
  name: string;
  rows: number;
  cardinality: 'low' | 'high';
}

export const ALIGNMENTS = {
  low: { alignOn: ['company', 'period'], columns: ['compcode', 'fiscper'] },
  high: { alignOn: ['document', 'document_line'], columns: ['ac_docnr', 'docline'] },
} as const;

export const SOURCE_A = { name: 'fi_acquisition', table: 'fi_acquisition' };
export const SOURCE_B = { name: 'fi_reporting', table: 'fi_reporting' };
export const MEASURE = { name: 'amount', column: 'cs_trn_lc', currencyColumn: 'curkey_lc' };

const sizes: Record<string, number> = { '100k': 100_000, '1m': 1_000_000, '2m': 2_000_000, '10m': 10_000_000 };

/** "1m" → 1,000,000. */
export function parseSize(size: string): number {
  const rows = sizes[size.trim().toLowerCase()];
  if (!rows) throw new Error(`unknown size '${size}': use ${Object.keys(sizes).join(', ')}`);
  return rows;
}

/** "100k,1m" → cases for each size, low and high cardinality. */
export function parseCases(list: string): BenchCase[] {
  return list.split(',').flatMap((size) => {
    const rows = sizes[size.trim().toLowerCase()];
    if (!rows) throw new Error(`unknown size '${size}': use ${Object.keys(sizes).join(', ')}`);
    return (['low', 'high'] as const).map((cardinality) => ({ name: `${size.trim().toLowerCase()}-${cardinality}`, rows, cardinality }));
  });
}
