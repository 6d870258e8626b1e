/**
 * Checksum bisection against the row merge on every engine pair: random sides with planted
 * differences (amounts changed, keys dropped and added, amounts moved between keys, rows split,
 * NULL keys and amounts, accented keys), copied onto SQLite, DuckDB, Parquet and PostgreSQL.
 * Bisection must give the same partition totals and the same differing keys in the same order,
 * split one level at a time (tiny segments, so every level and the row merge of leaves run)
 * and with the service's own tuning.
 *
 * The datasets come from fast-check with a fixed seed; FC_SEED=<n> tries others.
 */
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bisect } from '../../src/data/bisection.ts';
import { DEFAULT_TUNING, type BisectionTuning } from '../../src/data/bisectionTuning.ts';
import { Connections, type ConnectionSpec } from '../../src/data/connections.ts';
import { runQuery } from '../../src/data/execute.ts';
import { mergeAcrossEngines, mergeOnEngine } from '../../src/data/merges.ts';
import type { MergeQuery } from '../../src/data/query.ts';
import type { Engine, MergeTotals } from '../../src/data/engines/engine.ts';
import { Folding, loadReducer } from '../../src/data/reducer.ts';
import { loadData } from '../../src/data/load/index.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { postgresUrls } from '../support/engineServers.ts';
import { withPostgres } from '../support/postgresClient.ts';
import { engineFixture, type EngineFixture, type FixtureEngine } from '../support/engineFixture.ts';
import { collectMerged } from '../support/testReducers.ts';
import { hashParts } from '../../src/data/keyHash.ts';
import { guessKey, withoutRows } from '../../src/data/segmentRecovery.ts';

interface Line {
  doc: string | null;
  line: number | null;
  cur: string | null;
  /** Integer cents, or null for a NULL amount. */
  cents: number | null;
  /** Half a cent more (amounts with three decimals round at the comparison's two). */
  half?: boolean;
}

const SCENARIOS = 8;
const documents = ['D1', 'D2', 'D3', 'D10', 'D11', 'Köln', 'é', '', 'x y', '0400015593'];
const keyOf = fc.record({
  doc: fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...documents) }, { weight: 1, arbitrary: fc.constant(null) }),
  line: fc.oneof({ weight: 9, arbitrary: fc.integer({ min: 1, max: 30 }) }, { weight: 1, arbitrary: fc.constant(null) }),
  cur: fc.constantFrom('EUR', 'USD', 'JPY', null),
});
const cents = fc.oneof({ weight: 9, arbitrary: fc.integer({ min: -2_000_000, max: 2_000_000 }) }, { weight: 1, arbitrary: fc.constant(null) });
const lineOf = fc.record({ key: keyOf, cents, half: fc.integer({ min: 0, max: 9 }).map((draw) => draw === 0) }).map(({ key, cents: amount, half }): Line => ({ ...key, cents: amount, half }));

/** Side b from side a: each line kept, dropped, changed, split in two, or doubled; new lines; an amount moved. */
const scenario = fc
  .array(lineOf, { minLength: 0, maxLength: 400 })
  .chain((a) =>
    fc
      .tuple(
        fc.array(fc.constantFrom('keep', 'keep', 'keep', 'keep', 'drop', 'change', 'split', 'double'), { minLength: a.length, maxLength: a.length }),
        fc.array(fc.integer({ min: -50_000, max: 50_000 }).filter((change) => change !== 0), { minLength: a.length, maxLength: a.length }),
        fc.array(lineOf, { maxLength: 30 }),
        fc.option(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 100_000 }))),
      )
      .map(([fates, changes, added, moved]) => {
        const b: Line[] = [];
        a.forEach((line, index) => {
          const fate = fates[index];
          if (fate === 'drop') return;
          if (fate === 'change') b.push({ ...line, cents: (line.cents ?? 0) + changes[index]! });
          else if (fate === 'split') b.push({ ...line, cents: changes[index]! }, { ...line, cents: (line.cents ?? 0) - changes[index]! });
          else if (fate === 'double') b.push(line, { ...line, cents: 0 });
          else b.push(line);
        });
        // The same amount taken from one key and given to another: totals stay, two keys differ.
        if (moved && b.length > 1) {
          const [from, to, amount] = moved;
          const x = b[from % b.length]!;
          const y = b[to % b.length]!;
          b[from % b.length] = { ...x, cents: (x.cents ?? 0) - amount };
          b[to % b.length] = { ...y, cents: (y.cents ?? 0) + amount };
        }
        return { a, b: [...b, ...added] };
      }),
  );

const seed = Number(process.env.FC_SEED ?? 20261126);
const datasets = fc.sample(scenario, { seed, numRuns: SCENARIOS });

function database(): string {
  const file = path.join(temporaryDirectory(), 'bisection.db');
  const db = new Database(file);
  datasets.forEach((dataset, index) => {
    for (const side of ['a', 'b'] as const) {
      db.exec(`CREATE TABLE ${side}${index} (doc TEXT, line INTEGER, cur TEXT, amount REAL)`);
      const insert = db.prepare(`INSERT INTO ${side}${index} VALUES (?, ?, ?, ?)`);
      for (const row of dataset[side]) insert.run(row.doc, row.line, row.cur, row.cents === null ? null : row.cents / 100 + (row.half ? 0.005 : 0));
    }
  });
  // 3,000 keys, three amounts changed on b: some keys repeated alike on both sides (`few_a`,
  // `few_b`), or every key three times (`all_…`); a unique index on a (`unique_a`) against a b
  // repeating some keys; a unique index over a NULL-able currency holding NULLs twice (`nulls_…`).
  const sides = [
    { name: 'few', repeats: (key: number) => (key % 75 === 0 ? 2 : 1), index: '' },
    { name: 'all', repeats: () => 3, index: '' },
    { name: 'unique', repeats: (key: number, side: string) => (side === 'b' && key % 75 === 0 ? 2 : 1), index: 'a' },
    { name: 'nulls', repeats: (key: number) => (key % 75 === 0 ? 2 : 1), index: 'ab' },
  ];
  for (const { name, repeats, index } of sides) {
    for (const side of ['a', 'b'] as const) {
      const notNull = name === 'unique' ? ' NOT NULL' : '';
      db.exec(`CREATE TABLE ${name}_${side} (doc TEXT${notNull}, line INTEGER${notNull}, cur TEXT${notNull}, amount REAL)`);
      const insert = db.prepare(`INSERT INTO ${name}_${side} VALUES (?, ?, ?, ?)`);
      for (let key = 0; key < 3_000; key += 1) {
        const cur = name === 'nulls' && key % 75 === 0 ? null : key % 3 ? 'EUR' : 'USD';
        for (let row = 0; row < repeats(key, side); row += 1) insert.run(`D${Math.floor(key / 10)}`, key % 10, cur, (key * 7 + row) / 4 + (side === 'b' && row === 0 && key % 1_000 === 500 ? 1 : 0));
      }
      if (index.includes(side)) db.exec(`CREATE UNIQUE INDEX ix_${name}_${side} ON ${name}_${side} (doc, line, cur)`);
    }
  }
  // 3,000 keys of one currency, 24 of them raised by the same 1.00 on b (as a systematic difference
  // raises them): segments with two of them look, by their checksums, like one key at their mean hash.
  for (const side of ['a', 'b'] as const) {
    db.exec(`CREATE TABLE alike_${side} (doc TEXT, line INTEGER, cur TEXT, amount REAL)`);
    const insert = db.prepare(`INSERT INTO alike_${side} VALUES (?, ?, ?, ?)`);
    for (let key = 0; key < 3_000; key += 1) insert.run(`D${Math.floor(key / 10)}`, key % 10, 'EUR', (key * 7) / 4 + (side === 'b' && key % 125 === 0 ? 1 : 0));
  }
  const low = (parts: string[]) => hashParts(parts) >>> 0;
  // 3,000 keys, NOT NULL, with a unique index on b: b raises 24 amounts alike and lacks 5 keys
  // (`keyed_…`); `swapped_…` also holds one key on a and another on b, in the same segment of 3
  // hash bits, with the same amount (no key guessed: a whole segment, whose keys b does not hold);
  // `extra_…` differ by one key, on b alone.
  const swapped = Array.from({ length: 64 }, (_, index) => `S${index}`).filter((doc) => low(['EUR', doc, '1']) % 8 === low(['EUR', 'S0', '1']) % 8).slice(0, 2);
  for (const name of ['keyed', 'swapped', 'extra']) {
    for (const side of ['a', 'b'] as const) {
      db.exec(`CREATE TABLE ${name}_${side} (doc TEXT NOT NULL, line INTEGER NOT NULL, cur TEXT NOT NULL, amount REAL)`);
      const insert = db.prepare(`INSERT INTO ${name}_${side} VALUES (?, ?, ?, ?)`);
      const differs = side === 'b' && name !== 'extra';
      for (let key = 0; key < 3_000; key += 1) {
        if (differs && key % 600 === 7) continue;
        insert.run(`D${Math.floor(key / 10)}`, key % 10, key % 3 ? 'EUR' : 'USD', (key * 7) / 4 + (differs && key % 125 === 0 ? 1 : 0));
      }
      if (name === 'swapped') insert.run(swapped[side === 'a' ? 0 : 1]!, 1, 'EUR', 12.5);
      if (name === 'extra' && side === 'b') insert.run('X1', 1, 'EUR', 12.5);
      if (side === 'b') db.exec(`CREATE UNIQUE INDEX ix_${name}_b ON ${name}_b (doc, line, cur)`);
    }
  }
  // A key of EUR and one of USD with the same low hash (searched for: about 2^16 keys of each),
  // in segment s of one hash bit; the EUR key raised on b, and two USD keys of s raised alike
  // whose mean hash (their guess) has s's bit too: the USD segment holds a key with the EUR
  // key's guessed hash, but not its own guess's.
  const eur = new Map<number, string>();
  for (let index = 0; index < 100_000; index += 1) eur.set(low(['EUR', `E${index}`, '1']), `E${index}`);
  let same: { eur: string; usd: string; hash: number } | undefined;
  for (let index = 0; !same; index += 1) {
    const hash = low(['USD', `U${index}`, '1']);
    if (eur.has(hash)) same = { eur: eur.get(hash)!, usd: `U${index}`, hash };
  }
  const segment = same.hash % 2;
  const usd = Array.from({ length: 40 }, (_, index) => `V${index}`).filter((doc) => low(['USD', doc, '1']) % 2 === segment);
  const raisedOf = (doc: string) => ({ hash: low(['USD', doc, '1']), otherHash: 0, units: 100n });
  const alike = usd.flatMap((first, at) => usd.slice(at + 1).map((second) => [first, second] as const)).find(([first, second]) => {
    const before = { keys: 2, keySum: 0, otherKeySum: 0, weightedSum: 0, amountSum: 0 };
    const raised = withoutRows(before, [raisedOf(first), raisedOf(second)]);
    return guessKey(before, { ...raised, keys: 2, keySum: 0, otherKeySum: 0 }, 1, segment) !== undefined;
  })!;
  for (const side of ['a', 'b'] as const) {
    db.exec(`CREATE TABLE collide_${side} (doc TEXT, line INTEGER, cur TEXT, amount REAL)`);
    const insert = db.prepare(`INSERT INTO collide_${side} VALUES (?, ?, ?, ?)`);
    const raise = side === 'b' ? 1 : 0;
    insert.run(same.eur, 1, 'EUR', 10 + raise);
    insert.run(same.usd, 1, 'USD', 20);
    for (const doc of alike) insert.run(doc, 1, 'USD', 30 + raise);
    for (let index = 0; index < 20; index += 1) insert.run(`W${index}`, 1, index % 2 ? 'EUR' : 'USD', index);
  }
  db.close();
  return file;
}

/** The largest dataset: with a side without rows a bisection would never call the hash at all. */
const largest = datasets.reduce((best, dataset, at) => (dataset.a.length > datasets[best]!.a.length ? at : best), 0);
const tables = [...datasets.flatMap((_, index) => [`a${index}`, `b${index}`]), ...['few', 'all', 'unique', 'nulls', 'alike', 'collide', 'keyed', 'swapped', 'extra'].flatMap((name) => [`${name}_a`, `${name}_b`])];
let fixture: EngineFixture;
let fixtureFile: string;
beforeAll(async () => {
  fixtureFile = database();
  fixture = await engineFixture(fixtureFile, tables);
}, 120_000);
afterAll(() => fixture?.drop());

/**
 * The merge of dataset `index`: keyed by document, line and currency (the partition), or with
 * the currency one constant on both sides (a fixed-currency measure, rows filtered to EUR), or a
 * constant on side a only (a filter binds its markers before the segment lists).
 */
const mergeOf = (index: number, connections: { a: string; b: string }, shape: 'columns' | 'constant' | 'one constant' = 'columns'): MergeQuery => {
  const base = columnMerge(index, connections);
  const eur = { column: 'cur', kind: 'in' as const, values: ['EUR'] };
  if (shape === 'constant') return { ...base, a: { ...base.a, keys: [{ column: 'doc' }, { column: 'line' }, { literal: 'EUR' }], where: [eur] }, b: { ...base.b, keys: [{ column: 'doc' }, { column: 'line' }, { literal: 'EUR' }], where: [eur] } };
  if (shape === 'one constant') return { ...base, a: { ...base.a, keys: [{ column: 'doc' }, { column: 'line' }, { literal: 'EUR' }], where: [eur] } };
  return base;
};

const columnMerge = (index: number, connections: { a: string; b: string }): MergeQuery => ({
  kind: 'merge',
  keyNames: ['document', 'line', 'currency'],
  a: { table: `a${index}`, connection: connections.a, measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'doc' }, { column: 'line' }, { column: 'cur' }], where: [] },
  b: { table: `b${index}`, connection: connections.b, measure: { function: 'sum', column: 'amount' }, keys: [{ column: 'doc' }, { column: 'line' }, { column: 'cur' }], where: [] },
  partitionKey: 2,
  decimals: 2,
  fold: collectMerged.with({ keep: 100_000 }),
});

/** columnMerge's keys and measure over two other tables, on connections `one` and `two`. */
const tablesMerge = (tableA: string, tableB: string): MergeQuery => {
  const base = columnMerge(0, { a: 'one', b: 'two' });
  return { ...base, a: { ...base.a, table: tableA }, b: { ...base.b, table: tableB } };
};

/** The statements of a comparison that read `table` after the first pass (its checksums left out). */
const readsOf = (sql: string, table: string) => sql.split('\n').filter((statement) => statement.includes(table) && !statement.includes(' AS key_sum'));

/** Partition totals to the cent (sums of the same amounts in another order differ in the last bits) and every differing key. */
async function outcome(run: (folding: Folding) => Promise<{ partitions: { partition: string | null; keys: number; a: number; b: number }[] }>, query: MergeQuery) {
  const folding = new Folding(await loadReducer(query.fold), query.fold.options);
  const totals = await run(folding);
  const partitions = [...totals.partitions]
    .filter((partition) => partition.keys > 0)
    .sort((x, y) => String(x.partition).localeCompare(String(y.partition)))
    .map((partition) => ({ ...partition, a: Math.round(partition.a * 100), b: Math.round(partition.b * 100) }));
  return { partitions, folded: folding.finish() };
}

/**
 * The keys that differ and the keys per partition, in no order. Amounts are left out: an engine's
 * own merge rounds with SQL's ROUND, which takes another side of some half cents than the row
 * merge's (and bisection's) rounding in double precision.
 */
/** Runs `work` on connections `one` and `two` to two engines' copies of the fixture, then closes them. */
async function onConnections(first: FixtureEngine, second: FixtureEngine, work: (connections: Connections) => Promise<void>): Promise<void> {
  const connections = new Connections([{ ...fixture.specs[first], name: 'one' }, { ...fixture.specs[second], name: 'two' }], { statementTimeoutMs: 30_000 });
  try {
    await work(connections);
  } finally {
    await connections.close();
  }
}

const unordered = (result: Awaited<ReturnType<typeof outcome>>) => ({
  partitions: result.partitions.map((partition) => [partition.partition, partition.keys]),
  folded: (result.folded as { first: { key: unknown }[] }).first.map((row) => JSON.stringify(row.key)).sort(),
});

// Streams the rows of differing segments (wholeRows 0), where the service's tuning reads these few whole.
// Lookups need `ungrouped: 'auto'` (which finds unique indexes) and notes guessed keys: both stay
// off here, and notes come into the tunings below that guess keys with rows of a (a Parquet side).
const deep: BisectionTuning = { firstBits: 1, leafKeys: 1, directRows: 0, handOver: false, wholeRows: 0, ungrouped: 'none', guessKeys: false, lookUpKeys: true, noteRows: true };
// One side checksums its rows ungrouped (the service does so on PostgreSQL): every dialect writes it.
const rowsOfA: BisectionTuning = { ...deep, ungrouped: 'a' };
const rowsOfB: BisectionTuning = { ...deep, ungrouped: 'b' };
// Keys guessed from few, crowded segments: many guesses are wrong (two keys or more differ there),
// and the rows read must show it before anything is merged.
const guessing: BisectionTuning = { ...deep, firstBits: 3, wholeRows: 100_000, guessKeys: true };
const guessingRowsOfA: BisectionTuning = { ...guessing, ungrouped: 'a' };
const pairs: [FixtureEngine, FixtureEngine][] = [
  ['sqlite', 'duckdb'],
  ['sqlite', 'postgres'],
  ['parquet', 'postgres'],
  ['duckdb', 'postgres'],
  ['sqlite', 'sqlite'],
  ['duckdb', 'duckdb'],
  ['postgres', 'postgres'],
];

describe.each(pairs)('checksum bisection with side a on %s and side b on %s', (first, second) => {
  it('gives the row merge’s totals and differing keys, level by level and with the service’s tuning', async () => {
    await onConnections(first, second, async (connections) => {
      const one = await connections.engine('one');
      const two = await connections.engine('two');
      for (const [index, shape] of datasets.flatMap((_, at) => (['columns', 'constant', 'one constant'] as const).map((form) => [at, form] as const))) {
        const query = mergeOf(index, { a: 'one', b: 'two' }, shape);
        const expected = await outcome((folding) => mergeAcrossEngines(one, two, query, folding), query);
        // The row merge itself finds the keys the engine's own merge finds (which orders keys by
        // their own types, an INTEGER column by number: the same keys, maybe in another order).
        const onOneEngine = await outcome((folding) => (one.merge ? one.merge(query, folding) : mergeOnEngine(one, query, folding)), query);
        expect(unordered(expected), `dataset ${index}, keys ${shape}: row merge against one engine`).toEqual(unordered(onOneEngine));
        for (const tuning of [deep, rowsOfA, rowsOfB, guessing, guessingRowsOfA, DEFAULT_TUNING]) {
          const context = `dataset ${index} (seed ${seed}), keys ${shape}, ${tuning === DEFAULT_TUNING ? 'service tuning' : `${tuning.guessKeys ? 'keys guessed' : 'one level at a time'}, rows of ${tuning.ungrouped}`}`;
          expect(await outcome((folding) => bisect(one, two, query, folding, tuning), query), context).toEqual(expected);
        }
        // Both sides on one connection (every engine holds the same tables): one statement after the other.
        expect(await outcome((folding) => bisect(one, one, query, folding, deep), query), `dataset ${index} on one connection`).toEqual(expected);
      }
    });
  });
});

describe.each(pairs)('keys repeated on a side, a on %s and b on %s', (first, second) => {
  it('are counted once each, whichever side checksums its rows; a side that repeats every key is grouped after one pass', async () => {
    await onConnections(first, second, async (connections) => {
      const one = await connections.engine('one');
      const two = await connections.engine('two');
      const tables = [['few_a', 'few_b'], ['all_a', 'all_b'], ['unique_a', 'unique_b'], ['unique_b', 'unique_a'], ['unique_a', 'all_b'], ['nulls_a', 'nulls_b'], ['nulls_b', 'nulls_a']];
      for (const [tableA, tableB] of tables) {
        const query = tablesMerge(tableA!, tableB!);
        const expected = await outcome((folding) => mergeAcrossEngines(one, two, query, folding), query);
        expect(expected.partitions.reduce((sum, partition) => sum + partition.keys, 0)).toBe(3_000);
        for (const ungrouped of ['a', 'b', 'auto', 'none'] as const) {
          const context = `${tableA} against ${tableB}, ungrouped ${ungrouped}`;
          let method: unknown;
          let statements = '';
          const bisected = await outcome(async (folding) => {
            const totals = await bisect(one, two, query, folding, { ...DEFAULT_TUNING, ungrouped });
            method = totals.method;
            statements = totals.sql;
            return totals;
          }, query);
          expect(bisected, context).toEqual(expected);
          // Keys repeated alike, both sides grouped: the three changed keys are found from their
          // segments' checksums, and their rows alone are read (one a side).
          if (tableA === 'few_a' && ungrouped === 'none') expect(method, context).toMatchObject({ passes: 1, rows: 6 });
          if (tableA !== 'all_a') continue;
          // Every key repeated: the first pass of the ungrouped side is taken again, grouped (the
          // other side's stands: three segment statements in two passes), and the segments of
          // the three changed keys are all that is read row by row (not every key).
          expect(method, context).toMatchObject({ name: 'checksum_bisection', rows: expect.any(Number) });
          expect((method as { rows: number }).rows, context).toBeLessThan(30);
          if (ungrouped === 'a' || ungrouped === 'b') {
            expect((method as { passes: number }).passes, context).toBe(2);
            expect(statements.match(/ AS key_sum/g), context).toHaveLength(3);
          }
        }
      }
    });
  });
});

describe.each(pairs)('keys guessed from their segments’ checksums, a on %s and b on %s', (first, second) => {
  it('are read alone, or with their whole segment where no key has the guessed hash, in one read after one pass', async () => {
    await onConnections(first, second, async (connections) => {
      const one = await connections.engine('one');
      const two = await connections.engine('two');
      const query = tablesMerge('alike_a', 'alike_b');
      const expected = await outcome((folding) => mergeAcrossEngines(one, two, query, folding), query);
      expect(unordered(expected).folded).toHaveLength(24);
      // 8 to 32 segments for 24 changed keys: alone in some, two or more in others.
      for (const firstBits of [3, 4, 5]) {
        let totals: MergeTotals | undefined;
        const bisected = await outcome(async (folding) => (totals = await bisect(one, two, query, folding, { ...DEFAULT_TUNING, firstBits, handOver: false })), query);
        expect(bisected, `first bits ${firstBits}`).toEqual(expected);
        // A pass and a read, each a statement a side: no guess read again.
        expect(totals!.method, `first bits ${firstBits}`).toMatchObject({ name: 'checksum_bisection', passes: 1 });
        expect(totals!.sql.split('\n'), `first bits ${firstBits}`).toHaveLength(4);
      }
    });
  });

  it('are read again whole where a segment holds another segment’s guessed hash but not its own', async () => {
    await onConnections(first, second, async (connections) => {
      const one = await connections.engine('one');
      const two = await connections.engine('two');
      const query = tablesMerge('collide_a', 'collide_b');
      const expected = await outcome((folding) => mergeAcrossEngines(one, two, query, folding), query);
      expect(unordered(expected).folded).toHaveLength(3);
      let totals: MergeTotals | undefined;
      const bisected = await outcome(async (folding) => (totals = await bisect(one, two, query, folding, { ...DEFAULT_TUNING, firstBits: 1, handOver: false, ungrouped: 'none' })), query);
      expect(bisected).toEqual(expected);
      // The pass, the read of both guesses, and the read again without the one the rows did not bear out.
      expect(totals!.sql.split('\n')).toHaveLength(6);
    });
  });
});

describe.each(pairs)('keys looked up through a unique index on PostgreSQL, a on %s and b on %s', (first, second) => {
  // b's unique index is on PostgreSQL only (no other engine has one to vouch for its keys).
  const looksUp = second === 'postgres';
  it('are the keys the other side’s read brings: the row merge’s totals and keys, one lookup instead of a second scan', async () => {
    await onConnections(first, second, async (connections) => {
      const one = await connections.engine('one');
      const two = await connections.engine('two');
      const query = tablesMerge('keyed_a', 'keyed_b');
      const expected = await outcome((folding) => mergeAcrossEngines(one, two, query, folding), query);
      expect(unordered(expected).folded).toHaveLength(29);
      for (const firstBits of [3, 5, 7]) {
        let totals: MergeTotals | undefined;
        const bisected = await outcome(async (folding) => (totals = await bisect(one, two, query, folding, { ...DEFAULT_TUNING, noteRows: true, firstBits, handOver: false })), query);
        expect(bisected, `first bits ${firstBits}`).toEqual(expected);
        const statements = totals!.sql.split('\n');
        // The pass, then a's rows read and b's looked up by their keys: no statement hashes b's every row again.
        expect(statements.filter((sql) => sql.includes('unnest(')).length > 0, `first bits ${firstBits}`).toBe(looksUp);
        if (looksUp) expect(readsOf(totals!.sql, 'keyed_b').filter((sql) => !sql.includes('unnest(')), `first bits ${firstBits}`).toEqual([]);
        // A Parquet file's rows noted in the first pass: a's rows are taken by number, never hashed again.
        const readsOfA = readsOf(totals!.sql, 'keyed_a');
        if (first === 'parquet' && looksUp) expect(readsOfA.length > 0 && readsOfA.every((sql) => sql.includes('row_chosen(')), `first bits ${firstBits}: ${readsOfA.join('\n')}`).toBe(true);
        const unlooked = await outcome((folding) => bisect(one, two, query, folding, { ...DEFAULT_TUNING, firstBits, handOver: false, lookUpKeys: false }), query);
        expect(unlooked, `first bits ${firstBits}, no lookup`).toEqual(expected);
        // The service's tuning notes rows only where the tables are large (notesPay): not these 3,000.
        let service: MergeTotals | undefined;
        expect(await outcome(async (folding) => (service = await bisect(one, two, query, folding, { ...DEFAULT_TUNING, firstBits, handOver: false })), query), `first bits ${firstBits}, service tuning`).toEqual(expected);
        expect(service!.sql, `first bits ${firstBits}, service tuning`).not.toContain('note_row(');
      }
    });
  });

  it('are read again by scanning where the keys looked up do not make up a segment read whole', async () => {
    await onConnections(first, second, async (connections) => {
      const one = await connections.engine('one');
      const two = await connections.engine('two');
      const query = tablesMerge('swapped_a', 'swapped_b');
      const expected = await outcome((folding) => mergeAcrossEngines(one, two, query, folding), query);
      expect(unordered(expected).folded).toHaveLength(31);
      let totals: MergeTotals | undefined;
      const bisected = await outcome(async (folding) => (totals = await bisect(one, two, query, folding, { ...DEFAULT_TUNING, noteRows: true, firstBits: 3, handOver: false })), query);
      expect(bisected).toEqual(expected);
      // b's segment holding the other swapped key: its lookup falls short of its checksums, so
      // the read is taken again from both tables.
      if (looksUp) expect(readsOf(totals!.sql, 'swapped_b').map((sql) => sql.includes('unnest('))).toEqual([true, false]);
    });
  });

  it('are not looked up when a key is guessed to be on the indexed side alone', async () => {
    await onConnections(first, second, async (connections) => {
      const one = await connections.engine('one');
      const two = await connections.engine('two');
      const query = tablesMerge('extra_a', 'extra_b');
      const expected = await outcome((folding) => mergeAcrossEngines(one, two, query, folding), query);
      expect(unordered(expected).folded).toEqual([JSON.stringify(['X1', '1', 'EUR'])]);
      let totals: MergeTotals | undefined;
      const bisected = await outcome(async (folding) => (totals = await bisect(one, two, query, folding, { ...DEFAULT_TUNING, noteRows: true, handOver: false })), query);
      expect(bisected).toEqual(expected);
      // Its rows are b's alone: b reads its table again (a lookup by a's keys would never ask for it).
      expect(totals!.sql.includes('unnest(')).toBe(false);
      expect(totals!.method).toMatchObject({ passes: 1, rows: 1 });
    });
  });
});

/** Writes a query's rows to a Parquet file, from an in-memory DuckDB closed whatever happens. */
async function writeParquet(select: string, file: string): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const writer = await instance.connect();
  try {
    await writer.run(`COPY (${select}) TO '${file}' (FORMAT parquet)`);
  } finally {
    writer.closeSync();
    instance.closeSync();
  }
}

/**
 * A Parquet table (`files`, on connection one) against keyed_b on PostgreSQL (`postgres`, the
 * fixture's by default), by the row merge and by bisection noting rows and looking keys up;
 * `through` stands for the Parquet engine during bisection.
 */
async function parquetAgainstKeyedB(files: Record<string, string>, options: { postgres?: ConnectionSpec; firstBits?: number; through?: (parquet: Engine) => Engine } = {}) {
  const connections = new Connections([{ name: 'one', url: 'duckdb:', files }, { ...(options.postgres ?? fixture.specs.postgres), name: 'two' }], { statementTimeoutMs: 30_000 });
  try {
    const [parquet, postgres] = [await connections.engine('one'), await connections.engine('two')];
    const query = tablesMerge(Object.keys(files)[0]!, 'keyed_b');
    const expected = await outcome((folding) => mergeAcrossEngines(parquet, postgres, query, folding), query);
    const tuning: BisectionTuning = { ...DEFAULT_TUNING, noteRows: true, handOver: false, firstBits: options.firstBits ?? DEFAULT_TUNING.firstBits };
    let sql = '';
    const bisected = await outcome(async (folding) => {
      const totals = await bisect(options.through?.(parquet) ?? parquet, postgres, query, folding, tuning);
      sql = totals.sql;
      return totals;
    }, query);
    return { expected, bisected, sql };
  } finally {
    await connections.close();
  }
}

describe('a Parquet file against PostgreSQL with a unique index', () => {
  it('asks PostgreSQL for no key it cannot hold: a key with a NUL character, on the Parquet side alone', async () => {
    const file = path.join(temporaryDirectory(), 'nul_a.parquet');
    await writeParquet(`SELECT * FROM read_parquet('${fixture.specs.parquet.files!.keyed_a!}') UNION ALL SELECT 'N' || chr(0) || 'UL', 1, 'EUR', 12.5`, file);
    const { expected, bisected, sql } = await parquetAgainstKeyedB({ nul_a: file });
    expect(unordered(expected).folded).toContain(JSON.stringify(['N\u0000UL', '1', 'EUR']));
    expect(bisected).toEqual(expected);
    // The other keys looked up, that one left out: PostgreSQL's table is never hashed again.
    const readsOfB = readsOf(sql, 'keyed_b');
    expect(readsOfB.length > 0 && readsOfB.every((statement) => statement.includes('unnest('))).toBe(true);
  });

  it('reads both sides by hashing when PostgreSQL refuses a key’s text (a character its encoding lacks)', async () => {
    const { adminUrl } = await postgresUrls();
    const name = `latin_${Math.random().toString(36).slice(2, 10)}`;
    await withPostgres(adminUrl, (client) => client.query(`CREATE DATABASE ${name} ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`));
    const url = adminUrl.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
    const file = path.join(temporaryDirectory(), 'greek_a.parquet');
    try {
      await writeParquet(`SELECT * FROM read_parquet('${fixture.specs.parquet.files!.keyed_a!}') UNION ALL SELECT 'Ω1', 1, 'EUR', 12.5`, file);
      await loadData({ from: fixtureFile, to: url, tables: ['keyed_b'] });
      const { expected, bisected, sql } = await parquetAgainstKeyedB({ greek_a: file }, { postgres: { name: 'two', url } });
      expect(unordered(expected).folded).toContain(JSON.stringify(['Ω1', '1', 'EUR']));
      expect(bisected).toEqual(expected);
      // The lookup refused, then b's table read by hashing.
      expect(readsOf(sql, 'keyed_b').map((statement) => statement.includes('unnest('))).toEqual([true, false]);
    } finally {
      await withPostgres(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  });

  it('has its rows noted in the first pass read again by hashing when the file is rewritten in another order before the read', async () => {
    const directory = temporaryDirectory();
    const [file, reordered] = [path.join(directory, 'keyed_a.parquet'), path.join(directory, 'reordered.parquet')];
    copyFileSync(fixture.specs.parquet.files!.keyed_a!, file);
    await writeParquet(`SELECT * FROM read_parquet('${file}') ORDER BY doc DESC, line DESC, cur DESC`, reordered);
    // The same rows in another order once the first pass has noted them: the row numbers noted now number other rows.
    let rewritten = false;
    const rewriting = (parquet: Engine): Engine => ({
      ...parquet,
      all: async (statement, params) => {
        const rows = await parquet.all(statement, params);
        if (!rewritten && statement.includes(' AS key_sum')) {
          copyFileSync(reordered, file);
          rewritten = true;
        }
        return rows;
      },
    });
    const { expected, bisected, sql } = await parquetAgainstKeyedB({ keyed_a: file }, { firstBits: 5, through: rewriting });
    expect(bisected).toEqual(expected);
    // Taken by number, a's rows do not make up their segments' checksums: a is read again by hashing every row.
    const byNumber = readsOf(sql, 'keyed_a').map((statement) => statement.includes('row_chosen('));
    expect(byNumber[0]).toBe(true);
    expect(byNumber.at(-1)).toBe(false);
  });
});

describe('the planner', () => {
  it('bisects sides on two engines and says how it ran; asked to merge, it streams every key', async () => {
    await onConnections('postgres', 'duckdb', async (connections) => {
      const query = mergeOf(largest, { a: 'one', b: 'two' });
      const bisected = await runQuery(connections, query);
      const merged = await runQuery(connections, { ...query, strategy: 'merge' });
      expect(bisected.method).toMatchObject({ name: 'checksum_bisection', passes: expect.any(Number), segments: expect.any(Number), rows: expect.any(Number) });
      expect(merged.method).toMatchObject({ name: 'row_merge', passes: 1, segments: 0 });
      expect(bisected.folded).toEqual(merged.folded);
      // Differences nearly everywhere among few keys (another dataset's side b): after one pass, the row merge.
      const other = (largest + 1) % SCENARIOS;
      const unlike = { ...query, b: { ...query.b, table: `b${other}` } };
      const handedOver = await runQuery(connections, unlike);
      expect(handedOver.method).toMatchObject({ name: 'row_merge', passes: 2 });
      expect(handedOver.folded).toEqual((await runQuery(connections, { ...unlike, strategy: 'merge' })).folded);
      // Few keys (the catalog calls them few): the row merge, whatever the engines.
      expect((await runQuery(connections, { ...query, preAggregate: true })).method?.name).toBe('row_merge');
    });
  });

  it('merges row by row when a side is on SQLite (unless asked to bisect), where each key is hashed through JavaScript', async () => {
    await onConnections('sqlite', 'duckdb', async (connections) => {
      const query = mergeOf(largest, { a: 'one', b: 'two' });
      const merged = await runQuery(connections, query);
      const bisected = await runQuery(connections, { ...query, strategy: 'bisect' });
      expect(merged.method?.name).toBe('row_merge');
      expect(bisected.method!.segments).toBeGreaterThan(0);
      expect(bisected.folded).toEqual(merged.folded);
    });
  });

  it('merges row by row on a server that speaks PostgreSQL without its hashtextextended', async () => {
    const { adminUrl } = await postgresUrls();
    const name = `nohash_${Math.random().toString(36).slice(2, 10)}`;
    await withPostgres(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
    const url = adminUrl.replace(/\/[^/?]+(\?|$)/, `/${name}$1`);
    try {
      const index = largest;
      await loadData({ from: fixtureFile, to: url, tables: [`a${index}`, `b${index}`] });
      // A hashtextextended found before PostgreSQL's own, failing as a server without one does.
      await withPostgres(url, async (client) => {
        await client.query('CREATE SCHEMA shadow');
        await client.query("CREATE FUNCTION shadow.hashtextextended(text, bigint) RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'function hashtextextended(text, bigint) does not exist'; END $$");
        await client.query(`ALTER DATABASE ${name} SET search_path = shadow, pg_catalog, public`);
      });
      const connections = new Connections([{ name: 'one', url }, { ...fixture.specs.duckdb, name: 'two' }], { statementTimeoutMs: 30_000 });
      try {
        const query = mergeOf(index, { a: 'one', b: 'two' });
        const result = await runQuery(connections, query);
        expect(result.method?.name).toBe('row_merge');
        expect(result.folded).toEqual((await runQuery(connections, { ...query, strategy: 'merge' })).folded);
      } finally {
        await connections.close();
      }
    } finally {
      await withPostgres(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  });
});
