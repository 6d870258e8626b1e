/**
 * `npm run bench:latency`: the speed figures the tests do not assert (tests assert behaviour;
 * a shared machine makes wall-clock thresholds flaky). Each scenario runs the real code (in
 * process, or the real service on 127.0.0.1), prints its figures next to its target, and the
 * script exits 1 when a figure misses its target. Run it on a quiet machine.
 *
 *   npm run bench:latency -- [--only parse,health,attack,storm,abandon]
 *
 * - parse:   every parser on the adversarial corpus (65 KB strings): slowest ≤ 50 ms; the offline
 *            model's reader on long inputs: slowest ≤ 500 ms.
 * - health:  30 GET /health one after another on an idle service: slowest ≤ 200 ms.
 * - attack:  the corpus in every filter and name slot, four requests at a time, while /health is
 *            probed: slowest refusal ≤ 1 s, /health p99 ≤ 50 ms.
 * - storm:   60 streamed chats that hang up at their first tool, six at a time, while another
 *            client runs a trivial query: its median ≤ 100 ms in the service, ≤ 400 ms end to end.
 * - abandon: 12 comparisons of 1.5 M keys abandoned by their clients on 2 workers: the pool idle
 *            within 4 s, the next trivial query within 3 s.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadCatalog } from '../src/catalog/loadCatalog.ts';
import { projectRoot } from '../src/config/config.ts';
import { understand } from '../src/model/offline/understand.ts';
import { buildVocabulary } from '../src/model/offline/vocabulary.ts';
import { loadSkills } from '../src/skills/loader.ts';
import { temporaryDirectory, twoSourceCatalog, writeCatalog, writeHeavyDatabase } from '../test/support/catalogFixture.ts';
import { listenService, type ListeningService } from '../test/support/listeningService.ts';
import { adversarialStrings } from '../test/security/adversarialCorpus.ts';
import { adversarialParsers, corpusInputs } from '../test/security/adversarialParsers.ts';
import { percentile, pollHealth } from './healthProbe.ts';

interface Figure {
  scenario: string;
  figure: string;
  ms: number;
  target_ms: number;
}

const SCENARIOS = ['parse', 'health', 'attack', 'storm', 'abandon'] as const;
const { values } = parseArgs({ options: { only: { type: 'string', default: SCENARIOS.join(',') } } });
const figures: Figure[] = [];
const record = (scenario: string, figure: string, ms: number, target_ms: number) => figures.push({ scenario, figure, ms: Math.round(ms * 10) / 10, target_ms });
const timed = async (work: () => unknown): Promise<number> => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};
const json = { 'content-type': 'application/json' };
const post = (url: string, tool: string, body: unknown, signal?: AbortSignal) => fetch(`${url}/tools/${tool}`, { method: 'POST', headers: json, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
const baseEnvironment = (name: string): Record<string, string> => ({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(temporaryDirectory(`bench-${name}-`), 'app.db'), RATE_LIMIT_PER_MINUTE: '0' });

async function withService<T>(environment: Record<string, string>, work: (service: ListeningService) => Promise<T>): Promise<T> {
  const service = await listenService(environment);
  try {
    return await work(service);
  } finally {
    await service.close();
  }
}

async function parse(): Promise<void> {
  const catalog = loadCatalog(path.join(projectRoot, 'data/sources.yaml'));
  const source = catalog.sources.get('fi_reporting')!;
  for (const [name, run] of adversarialParsers(() => source)) {
    let slowest = 0;
    for (const [, input] of corpusInputs()) {
      const once = () => {
        try {
          run(input);
        } catch {
          // refusing is an answer
        }
      };
      // Best of three per input (the first pays for compiling), slowest input per parser.
      slowest = Math.max(slowest, Math.min(await timed(once), await timed(once), await timed(once)));
    }
    record('parse', name, slowest, 50);
  }
  const skills = await loadSkills(path.join(projectRoot, 'skills'));
  const vocabulary = buildVocabulary(catalog, skills.flatMap((skill) => skill.questions ?? []));
  const inputs = [`${'what '.repeat(800)}${'data '.repeat(800)}`, `2024${' '.repeat(65_000)}x`, 'q'.repeat(64_000), 'company 1000 and '.repeat(3_000), 'from october to '.repeat(3_000), 'octobr '.repeat(5_000)];
  let slowest = 0;
  for (const input of inputs) slowest = Math.max(slowest, await timed(() => understand(input, vocabulary)));
  record('parse', 'offline model reading a long question', slowest, 500);
}

async function health(): Promise<void> {
  await withService(baseEnvironment('health'), async ({ url }) => {
    const durations: number[] = [];
    for (let probe = 0; probe < 30; probe += 1) durations.push(await timed(async () => (await fetch(`${url}/health`)).arrayBuffer()));
    record('health', 'slowest of 30 GET /health, idle', Math.max(...durations), 200);
  });
}

async function attack(): Promise<void> {
  await withService(baseEnvironment('attack'), async ({ url }) => {
    const probe = pollHealth(url, 10);
    let slowest = 0;
    const bodies = Object.values(adversarialStrings).flatMap((text) => [
      ['query_source', { source: 'fi_reporting', filters: { period: text } }],
      ['query_source', { source: 'fi_reporting', filters: { company: text } }],
      ['compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: text }],
      ['compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { period: { from: text } } }],
      ['find_duplicates', { source: 'fi_reporting', key: [text] }],
      ['search_knowledge', { query: text }],
    ] as [string, unknown][]);
    for (let start = 0; start < bodies.length; start += 4) {
      const batch = bodies.slice(start, start + 4);
      const times = await Promise.all(batch.map(([tool, args]) => timed(async () => (await post(url, tool, args)).arrayBuffer())));
      slowest = Math.max(slowest, ...times);
    }
    const latencies = (await probe.stop()).sort((a, b) => a - b);
    record('attack', `slowest refusal of ${bodies.length} hostile requests`, slowest, 1_000);
    record('attack', `GET /health p99 during the attack (${latencies.length} probes)`, percentile(latencies, 99), 50);
  });
}

async function storm(): Promise<void> {
  const question = 'compare amount between fi_reporting and bpc_reporting for company 1000 in December 2024';
  const trivial = { source: 'fi_reporting', filters: { company: '1000', period: '2024012' } };
  await withService({ ...baseEnvironment('storm'), QUERY_WORKERS: '2' }, async ({ url }) => {
    const hangUp = async () => {
      const controller = new AbortController();
      try {
        const response = await fetch(`${url}/chat`, { method: 'POST', headers: json, body: JSON.stringify({ message: question, stream: true }), signal: controller.signal });
        let text = '';
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          text += Buffer.from(chunk).toString();
          if (text.includes('event: tool_start')) break;
        }
      } catch {
        // the client is gone either way
      } finally {
        controller.abort();
      }
    };
    const samples: { server: number; client: number }[] = [];
    let over = false;
    const prober = (async () => {
      while (!over) {
        const started = performance.now();
        const body = (await (await post(url, 'query_source', trivial)).json()) as { duration_ms: number };
        samples.push({ server: body.duration_ms, client: performance.now() - started });
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    let started = 0;
    await Promise.all(Array.from({ length: 6 }, async () => {
      while (started < 60) {
        started += 1;
        await hangUp();
      }
    }));
    over = true;
    await prober;
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
    record('storm', `trivial query median in the service (${samples.length} during 60 hang-ups)`, median(samples.map((s) => s.server)), 100);
    record('storm', 'trivial query median end to end', median(samples.map((s) => s.client)), 400);
  });
}


async function abandon(): Promise<void> {
  const directory = temporaryDirectory('bench-abandon-');
  process.stderr.write('abandon: building two sources of 1.5 M keys…\n');
  const environment = { ...baseEnvironment('abandon'), DATA_DB: writeHeavyDatabase(directory), CATALOG: writeCatalog(directory, twoSourceCatalog()), QUERY_WORKERS: '2' };
  await withService(environment, async ({ service, url }) => {
    const heavy = { source_a: 'left', source_b: 'right', measure: 'amount', align_on: ['key'] };
    await Promise.all(Array.from({ length: 12 }, () => post(url, 'compare_sources', heavy, AbortSignal.timeout(400)).catch(() => undefined)));
    const idle = await timed(async () => {
      while (service.queries.stats().busy > 0 || service.queries.stats().queued > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    });
    record('abandon', 'pool idle after 12 abandoned comparisons', idle, 4_000);
    record('abandon', 'next trivial query', await timed(async () => (await post(url, 'query_source', { source: 'left', filters: { key: 'K000000001' } })).arrayBuffer()), 3_000);
  });
}

const runners: Record<(typeof SCENARIOS)[number], () => Promise<void>> = { parse, health, attack, storm, abandon };

async function main(): Promise<void> {
  const chosen = values.only!.split(',').map((name) => name.trim());
  for (const name of chosen) if (!(SCENARIOS as readonly string[]).includes(name)) throw new Error(`unknown scenario '${name}': use ${SCENARIOS.join(', ')}`);
  for (const name of chosen) {
    process.stderr.write(`${name}…\n`);
    await runners[name as (typeof SCENARIOS)[number]]();
  }
  const missed = figures.filter((figure) => !(figure.ms <= figure.target_ms));
  const width = Math.max(...figures.map((figure) => figure.figure.length));
  for (const figure of figures) {
    const verdict = figure.ms <= figure.target_ms ? 'ok' : 'MISSED';
    console.log(`${figure.scenario.padEnd(8)} ${figure.figure.padEnd(width)} ${`${figure.ms} ms`.padStart(10)}  target ≤ ${figure.target_ms} ms  ${verdict}`);
  }
  console.log(missed.length === 0 ? `all ${figures.length} figures within target` : `${missed.length} of ${figures.length} figures missed their target`);
  process.exitCode = missed.length === 0 ? 0 : 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
