/**
 * Issue 21's measure: the second sample (data/sap-sample, Northwind Traders: SAP column names,
 * YYYYMM periods, a budget in its own table, a fiscal year from April) is built here, drafted by
 * `catalog:init` with no hand edit, and the service started on each draft answers the question
 * set written from the sample's README (evaluation/questions-sap.yaml) through POST /chat, on
 * SQLite, on DuckDB over the Parquet files, and on PostgreSQL. Fails on any wrong answer or
 * fewer than 85% of the in-scope questions correct, per engine, and prints the tally.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSapSample, type SapSampleBuild } from '../../data/sap-sample/write.ts';
import { parseCommandLine, runCatalogInit } from '../../scripts/catalogInit.ts';
import { loadData } from '../../src/data/load/index.ts';
import { outcomeOf, type Outcome } from '../../src/evaluation/answerOutcome.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { postgresUrls } from '../support/engineServers.ts';
import { listenService, type ListeningService } from '../support/listeningService.ts';
import { withPostgres } from '../support/postgresClient.ts';
import { sapQuestions } from '../fixtures/sapQuestions.ts';

const MIN_CORRECT_SHARE = 0.85;
const { adminUrl } = await postgresUrls();
const directory = temporaryDirectory('sap-questions-');
const database = `sap_questions_${randomBytes(4).toString('hex')}`;
const databaseUrl = () => Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();
let build: SapSampleBuild;

/** Where catalog:init drafts from, and the DATA_URL the service then reads (files need none). */
const engines: Record<string, { from: () => string; data?: () => string }> = {
  SQLite: { from: () => `sqlite:${build.sqlite}`, data: () => `sqlite:${build.sqlite}` },
  'DuckDB over Parquet files': { from: () => build.parquet },
  PostgreSQL: { from: databaseUrl, data: databaseUrl },
};

beforeAll(async () => {
  build = await buildSapSample(path.join(directory, 'sample'));
  await withPostgres(adminUrl, (client) => client.query(`CREATE DATABASE ${database}`));
  await loadData({ from: build.sqlite, to: databaseUrl() });
}, 120_000);
afterAll(async () => {
  await withPostgres(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  rmSync(directory, { recursive: true, force: true });
});

describe.each(Object.keys(engines))('the offline model on the second sample, drafted from %s', (engine) => {
  let running: ListeningService;
  const outcomes = new Map<string, Outcome>();
  beforeAll(async () => {
    const folder = path.join(directory, engine.replace(/\W+/g, '-'));
    mkdirSync(folder, { recursive: true });
    const catalog = path.join(folder, 'catalog.yaml');
    const parsed = parseCommandLine(['--from', engines[engine]!.from(), '--out', catalog]);
    if (!parsed.ok) throw new Error(parsed.message);
    const report: string[] = [];
    const code = await runCatalogInit(parsed.input, { stdout: { write: (text: string) => report.push(text) }, stderr: { write: (text: string) => report.push(text) } });
    expect(code, report.join('')).toBe(0);
    const data = engines[engine]!.data;
    running = await listenService({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', RATE_LIMIT_PER_MINUTE: '0', CATALOG: catalog, APP_DB: path.join(folder, 'app.db'), ...(data ? { DATA_URL: data() } : {}) });
  }, 120_000);
  afterAll(async () => {
    await running?.close();
    const counts = { correct: 0, clarified: 0, declined: 0, wrong: 0 };
    for (const outcome of outcomes.values()) counts[outcome] += 1;
    console.log(`second sample on ${engine}: ${outcomes.size} asked; correct ${counts.correct}, clarified ${counts.clarified}, declined ${counts.declined}, wrong ${counts.wrong}`);
  });

  let session: string | undefined;
  it.each(sapQuestions.map((q) => [q.id, q] as const))('%s', async (_id, item) => {
    const response = await fetch(`${running.url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: item.question, ...(item.followUp && session ? { session_id: session } : {}) }) });
    const body = (await response.json()) as { answer: string; session_id: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    session = body.session_id;
    const outcome = outcomeOf(body.answer, item.expect);
    outcomes.set(item.id, outcome);
    expect(outcome, `${item.question}\n→ ${body.answer}`).not.toBe('wrong');
  });

  it(`answers at least ${MIN_CORRECT_SHARE * 100}% of the in-scope questions correctly`, () => {
    const inScope = sapQuestions.filter((q) => q.expect.kind === 'answer' || q.expect.kind === 'knowledge');
    const correct = inScope.filter((q) => outcomes.get(q.id) === 'correct').length;
    console.log(`second sample on ${engine}: ${correct} of ${inScope.length} in-scope questions correct (${((correct / inScope.length) * 100).toFixed(1)}%)`);
    expect(inScope.length).toBeGreaterThanOrEqual(60);
    expect(correct / inScope.length).toBeGreaterThanOrEqual(MIN_CORRECT_SHARE);
  });
});
