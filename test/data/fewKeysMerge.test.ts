/**
 * A merge the catalog calls few-keyed (preAggregate: its dimensions default to low cardinality)
 * is read whole on DuckDB and PostgreSQL, but only up to a bound: a hand-written catalog that
 * leaves `cardinality: high` off a document number must not make the worker hold a million keys.
 * Past the bound the same keys are streamed, with the same totals and the same differing keys.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Connections } from '../../src/data/connections.ts';
import { createDataAccess } from '../../src/data/dataAccess.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { documentCurrencyMerge } from '../support/testReducers.ts';

const directory = temporaryDirectory('few-keys-');
/** One line per key: past the 100,000 keys a few-keys merge reads whole. Amounts carry cents on
 * every line: DuckDB guesses a CSV column's type from a sample of its lines. */
const KEYS = 100_050;

function csv(name: string, amountOf: (index: number) => number): string {
  const lines = ['doc,cur,amount'];
  for (let index = 0; index < KEYS; index += 1) lines.push(`D${String(index).padStart(6, '0')},${index % 2 ? 'USD' : 'EUR'},${amountOf(index)}`);
  const file = path.join(directory, `${name}.csv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

const data = createDataAccess(
  new Connections(
    [{ name: 'default', url: 'duckdb:', files: { a: csv('a', (index) => index + 0.25), b: csv('b', (index) => (index === 77_777 ? index + 0.75 : index + 0.25)) } }],
    { statementTimeoutMs: 30_000 },
  ),
);
afterAll(() => data.close());


describe('a few-keys merge with more keys than it reads whole', () => {
  it('streams them and answers as the merge for many keys does', async () => {
    const streamed = await data.run(documentCurrencyMerge({ preAggregate: true }));
    const reference = await data.run(documentCurrencyMerge());
    expect(streamed.partitions.reduce((sum, partition) => sum + partition.keys, 0)).toBe(KEYS);
    expect(streamed.folded).toEqual({ rows: 1, first: [{ key: ['D077777', 'USD'], a: 77_777.25, b: 77_777.75 }] });
    expect({ partitions: streamed.partitions, folded: streamed.folded }).toEqual({ partitions: reference.partitions, folded: reference.folded });
  }, 60_000);
});
