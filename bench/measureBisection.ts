/**
 * One measurement of a comparison across engines, in a fresh process (so its peak memory is its
 * own): fi_acquisition on one engine against a copy of it with planted differences on another,
 * aligned per document line and currency, by checksum bisection (`bisect`), by the row merge
 * (`merge`), or each side's own full scan with hashing alone (`floor`: checksums of the whole
 * side, every row's key hashed and summed ungrouped, the least any checksum comparison reads).
 * Prints one JSON line.
 *
 *   BENCH_SETUP='{"connections": […], "a": "warehouse", "b": "exports"}' tsx bench/measureBisection.ts <bisect|merge|floor> <runs>
 */
import { reconcile } from '../skills/data_analyst/classification.ts';
import { BoundParameters } from '../src/data/compile.ts';
import { compileSegments } from '../src/data/compileBisection.ts';
import { Connections } from '../src/data/connections.ts';
import { createDataAccess } from '../src/data/dataAccess.ts';
import type { MergeQuery } from '../src/data/query.ts';
import type { EngineSetup } from './engines.ts';

const [approach, runsText] = process.argv.slice(2) as ['bisect' | 'merge' | 'floor', string];
const runs = Number(runsText ?? 1);
const setup = JSON.parse(process.env.BENCH_SETUP ?? '{}') as EngineSetup & { tableB: string };
const connections = new Connections(setup.connections, { statementTimeoutMs: 0 });
const keys = [{ column: 'ac_docnr' }, { column: 'docline' }, { column: 'curkey_lc' }];
const side = (connection: string, table: string) => ({ table, connection, measure: { function: 'sum' as const, column: 'cs_trn_lc' }, keys, where: [] });
const thresholds = { match: { absolute: 1000, percent: 1 }, minor: { absolute: 5000, percent: 5 } };

async function compare(strategy: 'bisect' | 'merge') {
  const outcome = await reconcile(createDataAccess(connections), {
    keyNames: ['document', 'document_line', 'currency'],
    a: side(setup.a, 'fi_acquisition'),
    b: side(setup.b, setup.tableB),
    thresholds,
    top: 10,
    currencyKeyIndex: 2,
    strategy,
  });
  return { keys: outcome.alignedRows, method: outcome.method };
}

/** One side's checksums over the whole side, rows ungrouped (one segment per currency). */
async function floorOf(connection: string, table: string): Promise<number> {
  const engine = await connections.engine(connection);
  const parameters = new BoundParameters(engine.dialect);
  const query = { kind: 'merge', keyNames: ['document', 'document_line', 'currency'], a: side(connection, table), b: side(connection, table), partitionKey: 2, decimals: 2 } as unknown as MergeQuery;
  const sql = compileSegments(query, 'a', engine.dialect, parameters, { bits: 0, ungrouped: ['a'] });
  const started = performance.now();
  await engine.all(sql, parameters.values);
  return performance.now() - started;
}

async function main() {
  const times: number[] = [];
  let last: Awaited<ReturnType<typeof compare>> | undefined;
  if (approach === 'floor') {
    for (let run = 0; run < runs; run += 1) times.push(Math.max(await floorOf(setup.a, 'fi_acquisition'), await floorOf(setup.b, setup.tableB)));
  } else {
    // Connections open before the clock starts, as the service keeps them (the floor's too).
    await connections.engine(setup.a);
    await connections.engine(setup.b);
    for (let run = 0; run < runs; run += 1) {
      const started = performance.now();
      last = await compare(approach);
      times.push(performance.now() - started);
    }
  }
  await connections.close();
  const sorted = [...times].sort((x, y) => x - y);
  const rssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(`${JSON.stringify({ ms: Math.round(sorted[Math.floor(sorted.length / 2)]!), keys: last?.keys, method: last?.method, rss_mb: Math.round(rssMb) })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
