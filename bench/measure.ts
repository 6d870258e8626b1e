/**
 * One measurement in a fresh process (so its peak memory is its own): the service's
 * reconciliation, the floor (the cheapest plain SQL computing both sides' per-key totals),
 * or the naive approach (two GROUP BY queries aligned in JavaScript). Prints one JSON line.
 *
 *   tsx bench/measure.ts <ours|floor|naive> <database> <low|high> <runs>
 */
import path from 'node:path';
import { loadCatalog } from '../src/catalog/loadCatalog.ts';
import { projectRoot } from '../src/config/config.ts';
import { createDataAccess } from '../src/data/dataAccess.ts';
import { openDataDatabase, tableColumns, type DataDatabase } from '../src/data/database.ts';
import { classify } from '../skills/data_analyst/classification.ts';
import { silentLogger } from '../src/logging/logger.ts';
import { compare } from '../skills/data_analyst/compareSources.ts';
import { ALIGNMENTS, MEASURE, SOURCE_A, SOURCE_B } from './cases.ts';

const [approach, databasePath, cardinality, runsText] = process.argv.slice(2) as [string, string, 'low' | 'high', string];
const runs = Number(runsText ?? 1);
const alignment = ALIGNMENTS[cardinality];
const database = openDataDatabase(databasePath);
const thresholds = { match: { absolute: 1000, percent: 1 }, minor: { absolute: 5000, percent: 5 } };

const catalog = loadCatalog(path.join(projectRoot, 'data/sources.yaml'), { columnsOf: (t) => tableColumns(database, t) });

const approaches: Record<string, () => Promise<number>> = {
  ours: async () => {
    const result = await compare(
      { source_a: SOURCE_A.name, source_b: SOURCE_B.name, measure: MEASURE.name, align_on: [...alignment.alignOn] },
      { catalog, data: createDataAccess(database), logger: silentLogger() },
    );
    return result.summary.aligned_rows;
  },
  naive: async () => naive(database),
};

function keys(): string {
  return [...alignment.columns, MEASURE.currencyColumn].map((c) => `"${c}"`).join(', ');
}

/**
 * Candidate floor statements: each computes both sides' totals per key (merged in index order,
 * stacked and grouped, or grouped per side first); the cheapest one is the floor.
 */
function floorStatements(): string[] {
  const k = keys();
  const m = `"${MEASURE.column}"`;
  const currencyFirst = [MEASURE.currencyColumn, ...alignment.columns].map((c) => `"${c}"`).join(', ');
  const merged = (order: string) =>
    `SELECT COUNT(*), SUM(a), SUM(b) FROM (SELECT ${order}, SUM(a) AS a, SUM(b) AS b FROM (SELECT ${order}, ${m} AS a, NULL AS b FROM ${SOURCE_A.table} UNION ALL SELECT ${order}, NULL, ${m} FROM ${SOURCE_B.table} ORDER BY ${order}) GROUP BY ${order})`;
  return [
    merged(k),
    merged(currencyFirst),
    `SELECT COUNT(*), SUM(a), SUM(b) FROM (SELECT ${k}, SUM(a) AS a, SUM(b) AS b FROM (SELECT ${k}, ${m} AS a, NULL AS b FROM ${SOURCE_A.table} UNION ALL SELECT ${k}, NULL, ${m} FROM ${SOURCE_B.table}) GROUP BY ${k})`,
    `WITH a AS (SELECT ${k}, SUM(${m}) AS v FROM ${SOURCE_A.table} GROUP BY ${k}), b AS (SELECT ${k}, SUM(${m}) AS v FROM ${SOURCE_B.table} GROUP BY ${k}) SELECT COUNT(*), SUM(va), SUM(vb) FROM (SELECT ${k}, MAX(va) AS va, MAX(vb) AS vb FROM (SELECT ${k}, v AS va, NULL AS vb FROM a UNION ALL SELECT ${k}, NULL, v FROM b) GROUP BY ${k})`,
  ];
}

/** The straightforward approach: both sides grouped by SQL, aligned and classified in JavaScript. */
function naive(db: DataDatabase): number {
  const k = keys();
  const group = (table: string) => db.prepare(`SELECT ${k}, SUM("${MEASURE.column}") AS total FROM ${table} GROUP BY ${k}`).all() as Record<string, unknown>[];
  const keyOf = (row: Record<string, unknown>) => [...alignment.columns, MEASURE.currencyColumn].map((c) => String(row[c])).join('\u0000');
  const aligned = new Map<string, { a: number | null; b: number | null }>();
  for (const row of group(SOURCE_A.table)) aligned.set(keyOf(row), { a: row.total as number, b: null });
  for (const row of group(SOURCE_B.table)) {
    const entry = aligned.get(keyOf(row));
    if (entry) entry.b = row.total as number;
    else aligned.set(keyOf(row), { a: null, b: row.total as number });
  }
  const counts: Record<string, number> = {};
  const top: { difference: number }[] = [];
  for (const { a, b } of aligned.values()) {
    const row = classify(a === null ? null : Math.round(a * 100) / 100, b === null ? null : Math.round(b * 100) / 100, thresholds);
    counts[row.status] = (counts[row.status] ?? 0) + 1;
    if (row.status !== 'match') top.push(row);
  }
  top.sort((x, y) => Math.abs(y.difference) - Math.abs(x.difference)).splice(10);
  return aligned.size;
}

function timed<T>(work: () => T): { ms: number; value: T } {
  const started = performance.now();
  const value = work();
  return { ms: performance.now() - started, value };
}

async function main() {
  if (approach === 'floor') {
    // Each run times every candidate statement and keeps the cheapest.
    const times: number[] = [];
    let distinctKeys = 0;
    for (let i = 0; i < runs; i += 1) {
      const each = floorStatements().map((sql) => timed(() => database.prepare(sql).raw().get() as unknown[]));
      distinctKeys = Number(each[0]!.value[0]);
      times.push(Math.min(...each.map((t) => t.ms)));
    }
    return report(times, distinctKeys);
  }
  const run = approaches[approach];
  if (!run) throw new Error(`unknown approach ${approach}`);
  const times: number[] = [];
  let keysSeen = 0;
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    keysSeen = await run();
    times.push(performance.now() - started);
  }
  report(times, keysSeen);
}

function report(times: number[], distinctKeys: number) {
  const sorted = [...times].sort((x, y) => x - y);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  const rssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ ms: Math.round(median), distinct_keys: distinctKeys, rss_mb: Math.round(rssMb) })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
