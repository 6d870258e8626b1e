/**
 * Issue 22's scenarios: a scripted model behind the real OpenAI client writes answers from the
 * tool results it was sent, honestly (copying, rounding, deriving, in German, quoting an earlier
 * turn) or not (inventing a figure, once or again after the repair turn). Every honest figure
 * must come back verified and every invented one caught: repaired, or flagged unverified.
 * Prints the scenario table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest, type ScriptedStep } from '../support/mockOpenAI.ts';

type Figure = { text: string; kind: string; receipt: { kind: string; op?: string } };

const directory = mkdtempSync(path.join(tmpdir(), 'figure-scenarios-'));
let mock: MockOpenAI;
let service: Service;
const table: { scenario: string; honest: number; verified: number; invented: number; caught: string }[] = [];

beforeAll(async () => {
  mock = await startMockOpenAI();
  service = await createService(loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test-key', OPENAI_MODEL: 'mock-model', MODEL_MAX_RETRIES: '1', APP_DB: path.join(directory, 'app.db') } as NodeJS.ProcessEnv), silentLogger());
});
afterAll(async () => {
  console.log(['scenario | honest figures | verified | invented | caught', ...table.map((r) => `${r.scenario} | ${r.honest} | ${r.verified} | ${r.invented} | ${r.caught}`)].join('\n'));
  await service.close();
  await mock.close();
  rmSync(directory, { recursive: true, force: true });
});

const query = (id: string, args: Record<string, unknown>) => ({ name: 'query_source', id, arguments: { source: 'fi_reporting', measures: ['amount'], ...args } });
const december = { company: '1000', period: '2024012' };
/** The rows of each tool result the model was sent, by call id. */
function results(sent: RecordedRequest): Record<string, any> {
  const tools = (sent.body.messages as { role: string; tool_call_id: string; content: string }[]).filter((m) => m.role === 'tool');
  return Object.fromEntries(tools.map((m) => [m.tool_call_id, JSON.parse(m.content)]));
}
const en = (value: number, digits = 2) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const de = (value: number) => value.toLocaleString('de-DE', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Asks one question of the scripted model and returns the checked amounts and percentages. */
async function ask(steps: ScriptedStep[], body: Record<string, unknown> = {}) {
  mock.reset();
  mock.enqueue(...steps);
  const response = await request(service.app).post('/chat').send({ message: 'question', ...body });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  const figures = (response.body.figures as Figure[]).filter((f) => f.kind === 'amount' || f.kind === 'percent');
  return { body: response.body, figures, kinds: figures.map((f) => f.receipt.kind) };
}

function record(scenario: string, figures: Figure[], invented: string[], caught = '—') {
  const honest = figures.filter((f) => !invented.includes(f.text));
  table.push({ scenario, honest: honest.length, verified: honest.filter((f) => f.receipt.kind !== 'unverified').length, invented: invented.length, caught });
  // No honest figure is flagged.
  expect(honest.filter((f) => f.receipt.kind === 'unverified')).toEqual([]);
}

it('verifies a faithful copy', async () => {
  const { figures } = await ask([{ toolCalls: [query('c1', { filters: december })] }, (s) => ({ content: `FI shows ${en(results(s).c1.rows[0].amount)} EUR for company 1000 in December 2024.` })]);
  expect(figures.map((f) => f.receipt.kind)).toEqual(['value']);
  record('copies a figure', figures, []);
});

it('verifies rounded figures (443k, 110k, 24.8%) and the difference, against the comparison', async () => {
  const compare = { name: 'compare_sources', id: 'c1', arguments: { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: december } };
  const { figures } = await ask([
    { toolCalls: [compare] },
    (s) => {
      const total = results(s).c1.summary.totals[0];
      return { content: `FI is about ${Math.round(total.total_a / 1000)}k EUR, ${Math.round(total.difference / 1000)}k above BPC (${en(total.difference_percent, 1)}%).` };
    },
  ]);
  expect(figures.map((f) => [f.text, f.receipt.kind])).toEqual([['443k', 'value'], ['110k', 'value'], ['24.8%', 'value']]);
  record('rounds (k, %)', figures, []);
});

it('verifies derived figures with the right operation: a difference across calls, a sum of rows, a change in percent', async () => {
  const { figures } = await ask([
    { toolCalls: [query('fi', { filters: december }), { ...query('bpc', { filters: december }), arguments: { source: 'bpc_reporting', measures: ['amount'], filters: december } }, query('acc', { dimensions: ['group_account'], filters: december }), query('months', { dimensions: ['period'], filters: { company: '1000', period: ['2024011', '2024012'] } })] },
    (s) => {
      const r = results(s);
      const gap = r.fi.rows[0].amount - r.bpc.rows[0].amount;
      const revenue = r.acc.rows[0].amount + r.acc.rows[1].amount;
      const [november, decemberRow] = r.months.rows;
      const change = ((decemberRow.amount - november.amount) / Math.abs(november.amount)) * 100;
      return { content: `FI exceeds BPC by ${en(gap)} EUR. Revenue (G4000000 and G4100000) is ${en(revenue)} EUR. The result rose ${en(change, 1)}% from November.` };
    },
  ]);
  expect(figures.map((f) => [f.receipt.kind, f.receipt.op])).toEqual([['derived', 'difference'], ['derived', 'sum'], ['derived', 'percent_change']]);
  record('derives (difference, sum, % change)', figures, []);
});

it('verifies a German answer', async () => {
  const { figures } = await ask([{ toolCalls: [query('c1', { filters: december })] }, (s) => ({ content: `FI zeigt ${de(results(s).c1.rows[0].amount)} EUR für Gesellschaft 1000 im Dezember 2024.` })], { locale: 'de-DE' });
  expect(figures.map((f) => f.receipt.kind)).toEqual(['value']);
  record('German formatting', figures, []);
});

it("verifies a figure quoted from an earlier turn's result", async () => {
  let amount = 0;
  const first = await ask([{ toolCalls: [query('c1', { filters: december })] }, (s) => ((amount = results(s).c1.rows[0].amount), { content: `FI shows ${en(amount)} EUR.` })]);
  const { figures } = await ask([{ content: `As said: ${en(amount)} EUR.` }], { session_id: first.body.session_id });
  expect(figures.map((f) => f.receipt)).toEqual([{ kind: 'value', call: 'c1', path: 'rows[0].amount' }]);
  record("quotes an earlier turn's result", figures, []);
});

it('catches an invented figure: repaired on the repair turn', async () => {
  let amount = 0;
  const { body, figures } = await ask([
    { toolCalls: [query('c1', { filters: december })] },
    (s) => ((amount = results(s).c1.rows[0].amount), { content: `FI shows ${en(amount)} EUR; BPC shows 512,345.67 EUR.` }),
    () => ({ content: `FI shows ${en(amount)} EUR.` }),
  ]);
  expect(body.replaced.unverified).toEqual(['512,345.67']);
  expect(figures.map((f) => f.receipt.kind)).toEqual(['value']);
  record('invents a figure, then corrects it', [...figures, { text: '512,345.67', kind: 'amount', receipt: { kind: 'unverified' } }], ['512,345.67'], 'repaired');
});

it('catches an invented figure: flagged when the model repeats it', async () => {
  const { body, figures } = await ask([{ toolCalls: [query('c1', { filters: december })] }, { content: 'FI shows 1,234,567.89 EUR.' }, { content: 'FI shows 1,234,567.89 EUR, as I said.' }]);
  expect(body.replaced.unverified).toEqual(['1,234,567.89']);
  expect(figures.map((f) => [f.text, f.receipt.kind])).toEqual([['1,234,567.89', 'unverified']]);
  record('invents a figure, repeats it', figures, ['1,234,567.89'], 'flagged');
});
