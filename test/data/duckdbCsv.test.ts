/**
 * CSV files read by DuckDB keep every amount exact: DuckDB guesses a CSV column's type from a
 * sample of its lines, and an export whose first lines hold whole numbers would otherwise be read
 * as integers, rounding a later 77777.5 to 77778 without a word.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Connections } from '../../src/data/connections.ts';
import { createDataAccess } from '../../src/data/dataAccess.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const file = path.join(temporaryDirectory('duckdb-csv-'), 'postings.csv');
const LINES = 60_000;
// Whole numbers for the first 59,999 lines, cents on the last one only.
writeFileSync(file, `doc,amount\n${Array.from({ length: LINES }, (_, index) => `D${index},${index === LINES - 1 ? '0.5' : '1'}`).join('\n')}\n`);
const data = createDataAccess(new Connections([{ name: 'default', url: 'duckdb:', files: { postings: file } }], { statementTimeoutMs: 30_000 }));
afterAll(() => data.close());

describe('a CSV file as a source', () => {
  it('sums amounts whose cents appear only on its last line exactly', async () => {
    const { rows } = await data.run({ kind: 'select', table: 'postings', aggregates: [{ name: 'total', function: 'sum', column: 'amount' }, { name: 'lines', function: 'count' }] });
    expect(rows).toEqual([{ total: LINES - 1 + 0.5, lines: LINES }]);
  });
});
