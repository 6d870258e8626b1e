/**
 * Reducers for data-layer tests: generic folds that prove a reducer runs next to the data
 * (in process or in a query worker) without depending on any skill.
 */
import { defineReducer } from '../../src/data/reducer.ts';
import type { MergedRow, MergeQuery, Row } from '../../src/data/query.ts';

/** Counts merged rows and keeps the first `keep` of them, in arrival (key) order. */
export const collectMerged = defineReducer(import.meta.url, 'collectMerged', {
  start: (options: { keep: number }) => ({ keep: options.keep, rows: 0, first: [] as MergedRow[] }),
  step: (state, row: MergedRow) => {
    state.rows += 1;
    if (state.first.length < state.keep) state.first.push(row);
  },
  finish: (state) => ({ rows: state.rows, first: state.first }),
});

/** Sums a numeric field of selected rows. */
export const sumField = defineReducer(import.meta.url, 'sumField', {
  start: (options: { field: string }) => ({ field: options.field, total: 0, rows: 0 }),
  step: (state, row: Row) => {
    state.total += Number(row[state.field] ?? 0);
    state.rows += 1;
  },
  finish: (state) => ({ total: state.total, rows: state.rows }),
});

/**
 * The merge the data-layer tests run: tables `a` and `b` summed per document (`doc`) and
 * currency (`cur`, the partition), the differing keys collected (the first ten kept).
 */
export function documentCurrencyMerge(options: Partial<Pick<MergeQuery, 'preAggregate'>> = {}): MergeQuery {
  return {
    kind: 'merge',
    keyNames: ['document', 'currency'],
    a: { table: 'a', measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'doc' }, { column: 'cur' }], where: [] },
    b: { table: 'b', measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'doc' }, { column: 'cur' }], where: [] },
    partitionKey: 1,
    decimals: 2,
    ...options,
    fold: collectMerged.with({ keep: 10 }),
  };
}
