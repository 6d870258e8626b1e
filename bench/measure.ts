/**
 * One measurement in a fresh process (so its peak memory is its own): the service's
 * reconciliation, the floor (the cheapest plain SQL computing both sides' per-key totals),
 * or the naive approach (two GROUP BY queries aligned in JavaScript). Prints one JSON line.
 *
 *   BENCH_SETUP='{"connections": […], "a": "default", "b": "default"}' tsx bench/measure.ts <ours|floor|naive> <low|high> <runs>
 */
import path from 'node:path';
import { loadCatalog } from '../src/catalog/loadCatalog.ts';
import { projectRoot } from '../src/config/config.ts';
import { Connections } from '../src/data/connections.ts';
import { createDataAccess } from '../src/data/dataAccess.ts';
import { openDataDatabase, type DataDatabase } from '../src/data/database.ts';
import { silentLogger } from '../src/logging/logger.ts';
import { classify } from '../skills/data_analyst/classification.ts';
import { compare } from '../skills/data_analyst/compareSources.ts';
import { ALIGNMENTS, MEASURE, SOURCE_A, SOURCE_B } from './cases.ts';
import type { EngineSetup } from './engines.ts';

const [approach, cardinality, runsText] = process.argv.slice(2) as [string, 'low' | 'high', string];
const runs = Number(runsText ?? 1);
const alignment = ALIGNMENTS[cardinality];
// The connections come in the environment: a PostgreSQL URL must not show in a process list.
const setup = JSON.parse(process.env.BENCH_SETUP ?? '{}') as EngineSetup;
const connections = new Connections(setup.connections, { statementTimeoutMs: 0 });
const thresholds = { match: { absolute: 1000, percent: 1 }, minor: { absolute: 5000, percent: 5 } };

const catalog = loadCatalog(path.join(projectRoot, 'data/sources.yaml'));
catalog.sources.get(SOURCE_A.name)!.connection = setup.a;
catalog.sources.get(SOURCE_B.name)!.connection = setup.b;

const approaches: Record<string, () => Promise<number>> = {
  ours: async () => {
    const result = await compare(
      { source_a: SOURCE_A.name, source_b: SOURCE_B.name, measure: MEASURE.name, align_on: [...alignment.alignOn] },
      { catalog, data: createDataAccess(connections), logger: silentLogger() },
    );
    return result.summary.aligned_rows;
  },
  naive: async () => {
    const file = setup.connections.find((c) => c.name === 'default')!.url.replace(/^sqlite:/, '');
    return naive(openDataDatabase(file));
  },
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
    `SELECT COUNT(*), SUM(a), SUM(b) FROM (SELECT ${order}, SUM(a) AS a, SUM(b) AS b FROM (SELECT ${order}, ${m} AS a, NULL AS b FROM ${SOURCE_A.table} UNION ALL SELECT ${order}, NULL, ${m} FROM ${SOURCE_B.table} ORDER BY ${order}) AS stacked GROUP BY ${order}) AS aligned`;
  return [
    merged(k),
    merged(currencyFirst),
    `SELECT COUNT(*), SUM(a), SUM(b) FROM (SELECT ${k}, SUM(a) AS a, SUM(b) AS b FROM (SELECT ${k}, ${m} AS a, NULL AS b FROM ${SOURCE_A.table} UNION ALL SELECT ${k}, NULL, ${m} FROM ${SOURCE_B.table}) AS stacked GROUP BY ${k}) AS aligned`,
    `WITH a AS (SELECT ${k}, SUM(${m}) AS v FROM ${SOURCE_A.table} GROUP BY ${k}), b AS (SELECT ${k}, SUM(${m}) AS v FROM ${SOURCE_B.table} GROUP BY ${k}) SELECT COUNT(*), SUM(va), SUM(vb) FROM (SELECT ${k}, MAX(va) AS va, MAX(vb) AS vb FROM (SELECT ${k}, v AS va, NULL AS vb FROM a UNION ALL SELECT ${k}, NULL, v FROM b) AS stacked GROUP BY ${k}) AS aligned`,
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

async function main() {
  if (approach === 'floor') {
    // Every candidate runs `runs` times and the floor is the cheapest candidate's median: the
    // same statistic as ours (a median), not the minimum of several noisy timings per run.
    const times = new Map<number, number[]>();
    let distinctKeys = 0;
    for (let i = 0; i < runs; i += 1) {
      const candidates = setup.a === setup.b ? await floorOnOneEngine() : [await floorAcrossEngines()];
      for (const [index, candidate] of candidates.entries()) {
        times.set(index, [...(times.get(index) ?? []), candidate.ms]);
        distinctKeys = candidate.keys;
      }
    }
    await connections.close();
    const cheapest = [...times.values()].reduce((best, candidate) => (median(candidate) < median(best) ? candidate : best));
    return report(cheapest, distinctKeys);
  }
  const run = approaches[approach];
  if (!run) throw new Error(`unknown approach ${approach}`);
  // One untimed run first: connections open and the reducer module loads once per process.
  await run();
  const times: number[] = [];
  let keysSeen = 0;
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    keysSeen = await run();
    times.push(performance.now() - started);
  }
  await connections.close();
  report(times, keysSeen);
}

/** One timing of each candidate floor statement, in the order of floorStatements(). */
async function floorOnOneEngine(): Promise<{ ms: number; keys: number }[]> {
  const engine = await connections.engine(setup.a);
  const timings: { ms: number; keys: number }[] = [];
  for (const sql of floorStatements()) {
    const started = performance.now();
    const [row] = await engine.all(sql, []);
    timings.push({ ms: performance.now() - started, keys: Number(row![0]) });
  }
  return timings;
}

async function floorAcrossEngines(): Promise<{ ms: number; keys: number }> {
  const side = async (connection: string, table: string) => {
    const engine = await connections.engine(connection);
    const columns = [MEASURE.currencyColumn, ...alignment.columns].map((c) => engine.dialect.text(`"${c}"`));
    const sql = `SELECT ${columns.join(', ')}, SUM("${MEASURE.column}") FROM ${table} GROUP BY ${columns.map((_, i) => i + 1).join(', ')} ORDER BY ${columns.map((c) => engine.dialect.binaryAscending(c)).join(', ')}`;
    const started = performance.now();
    let rows = 0;
    for await (const chunk of engine.chunks(sql, [])) rows += chunk.length;
    return { ms: performance.now() - started, rows };
  };
  const a = await side(setup.a, SOURCE_A.table);
  const b = await side(setup.b, SOURCE_B.table);
  return { ms: Math.max(a.ms, b.ms), keys: Math.max(a.rows, b.rows) };
}

function median(times: number[]): number {
  const sorted = [...times].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function report(times: number[], distinctKeys: number) {
  const rssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ ms: Math.round(median(times)), distinct_keys: distinctKeys, rss_mb: Math.round(rssMb) })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
