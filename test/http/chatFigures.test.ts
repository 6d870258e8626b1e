/**
 * Receipts in POST /chat (issue 22): every figure an answer states comes back in `figures` with
 * where it came from. Driven through the real OpenAI client against the scripted mock (a model
 * that copies a figure, one that invents one, one that quotes an earlier turn's figure) and
 * through the offline model, in English and German.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../support/mockOpenAI.ts';

interface Figure {
  text: string;
  kind: string;
  value: number;
  receipt: { kind: string; call?: string; path?: string };
}

const directory = mkdtempSync(path.join(tmpdir(), 'chat-figures-'));
let mock: MockOpenAI;
let modelService: Service;
let repairService: Service;
let offlineService: Service;

beforeAll(async () => {
  mock = await startMockOpenAI();
  const common = { LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0' };
  const model = { OPENAI_BASE_URL: mock.url, OPENAI_API_KEY: 'test-key', OPENAI_MODEL: 'mock-model', MODEL_MAX_RETRIES: '1' };
  // Flag only: these tests read the first answer's figures as the model wrote them.
  modelService = await createService(loadConfig({ ...common, ...model, ANSWER_CHECK: 'flag', APP_DB: path.join(directory, 'model.db') } as NodeJS.ProcessEnv), silentLogger());
  repairService = await createService(loadConfig({ ...common, ...model, APP_DB: path.join(directory, 'repair.db') } as NodeJS.ProcessEnv), silentLogger());
  offlineService = await createService(loadConfig({ ...common, APP_DB: path.join(directory, 'offline.db') } as NodeJS.ProcessEnv), silentLogger());
});
afterAll(async () => {
  await modelService.close();
  await repairService.close();
  await offlineService.close();
  await mock.close();
  rmSync(directory, { recursive: true, force: true });
});
beforeEach(() => mock.reset());

const decemberTotal = { name: 'query_source', arguments: { source: 'fi_reporting', measures: ['amount'], filters: { company: '1000', period: '2024012' } }, id: 'call_total' };

/** The amount the latest query_source call returned, read from the last tool message the model was sent. */
function returnedAmount(sent: RecordedRequest): number {
  const tool = (sent.body.messages as { role: string; content: string }[]).findLast((message) => message.role === 'tool')!;
  return JSON.parse(tool.content).rows[0].amount;
}
const money = (value: number) => value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const amounts = (figures: Figure[]) => figures.filter((figure) => figure.kind === 'amount' || figure.kind === 'percent');

describe('a real model through the OpenAI wire format', () => {
  it('traces a copied figure to the tool call and the place in its result; codes and periods are not amounts', async () => {
    mock.enqueue({ toolCalls: [decemberTotal] }, (sent) => ({ content: `FI shows ${money(returnedAmount(sent))} EUR for company 1000 in December 2024 (2024012).` }));
    const response = await request(modelService.app).post('/chat').send({ message: 'FI total for 1000 in December 2024?' });
    expect(response.status).toBe(200);
    const figures = response.body.figures as Figure[];
    const [amount] = amounts(figures);
    expect(amount).toMatchObject({ kind: 'amount', receipt: { kind: 'value', call: 'call_total', path: 'rows[0].amount' } });
    expect(amount!.value).toBe(response.body.tool_calls[0].result.rows[0].amount);
    expect(figures.filter((figure) => figure.text === '1000' || figure.text === '2024012').map((figure) => figure.receipt.kind)).toEqual(['not_a_figure', 'not_a_figure']);
    // The stored turn keeps them: the history shows the same receipts.
    const stored = await request(modelService.app).get(`/sessions/${response.body.session_id}`);
    expect(stored.body.turns[0].figures).toEqual(response.body.figures);
  });

  it('marks an invented figure unverified, beside a faithful one', async () => {
    mock.enqueue({ toolCalls: [decemberTotal] }, (sent) => ({ content: `FI shows ${money(returnedAmount(sent))} EUR; BPC shows 512,345.67 EUR.` }));
    const response = await request(modelService.app).post('/chat').send({ message: 'FI vs BPC for 1000 in December 2024?' });
    const figures = amounts(response.body.figures);
    expect(figures.map((figure) => [figure.text, figure.receipt.kind])).toEqual([
      [money(response.body.tool_calls[0].result.rows[0].amount), 'value'],
      ['512,345.67', 'unverified'],
    ]);
  });

  it("verifies a figure quoted from an earlier turn's result with that turn's call", async () => {
    let total = 0;
    mock.enqueue({ toolCalls: [decemberTotal] }, (sent) => ((total = returnedAmount(sent)), { content: `FI shows ${money(total)} EUR.` }));
    const first = await request(modelService.app).post('/chat').send({ message: 'FI total for 1000 in December 2024?' });
    mock.enqueue(() => ({ content: `As said, ${money(total)} EUR, about ${Math.round(total / 1000)}k.` }));
    const second = await request(modelService.app).post('/chat').send({ message: 'say it again', session_id: first.body.session_id });
    expect(second.body.tool_calls).toEqual([]);
    expect(amounts(second.body.figures).map((figure) => figure.receipt)).toEqual([
      { kind: 'value', call: 'call_total', path: 'rows[0].amount' },
      { kind: 'value', call: 'call_total', path: 'rows[0].amount' },
    ]);
  });
});

describe('ANSWER_CHECK=repair (the default)', () => {
  it('sends an answer with an invented figure back once; the corrected one is returned, the first kept as replaced', async () => {
    let total = 0;
    mock.enqueue(
      { toolCalls: [decemberTotal] },
      (sent) => ((total = returnedAmount(sent)), { content: `FI shows ${money(total)} EUR; BPC shows 512,345.67 EUR.` }),
      () => ({ content: `FI shows ${money(total)} EUR; I have no BPC figure.` }),
    );
    const response = await request(repairService.app).post('/chat').send({ message: 'FI vs BPC for 1000 in December 2024?' });
    expect(response.status).toBe(200);
    expect(response.body.answer).toBe(`FI shows ${money(total)} EUR; I have no BPC figure.`);
    expect(response.body.replaced).toEqual({ answer: `FI shows ${money(total)} EUR; BPC shows 512,345.67 EUR.`, unverified: ['512,345.67'] });
    expect(amounts(response.body.figures).map((figure) => figure.receipt.kind)).toEqual(['value']);
    // The model was told which figure no tool result backs, in one more call within the cap.
    expect(response.body.iterations).toBe(3);
    const request3 = mock.requests[2]!.body.messages as { role: string; content: string }[];
    expect(request3.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('appear in no tool result of this conversation: 512,345.67') });
    // The stored conversation keeps the corrected answer only: the next call sees no rejected answer.
    mock.enqueue({ content: 'Nothing else.' });
    await request(repairService.app).post('/chat').send({ message: 'anything else?', session_id: response.body.session_id });
    const history = JSON.stringify(mock.requests[3]!.body.messages);
    expect(history).not.toContain('512,345.67');
    expect(history).toContain('I have no BPC figure.');
    const metrics = await request(repairService.app).get('/metrics');
    expect(metrics.text).toMatch(/^answer_repairs_total 1$/m);
  });

  it('flags a figure the model repeats after the repair turn, and streams the replacement as an event', async () => {
    mock.enqueue({ toolCalls: [decemberTotal] }, { content: 'BPC shows 512,345.67 EUR.' }, { content: 'BPC really shows 512,345.67 EUR.' });
    const response = await request(repairService.app).post('/chat').send({ message: 'BPC for 1000 in December 2024?', stream: true }).buffer(true).parse((res, done) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => done(null, text));
    });
    const events = String(response.body).split('\n\n').filter(Boolean).map((block) => ({ name: /^event: (.*)$/m.exec(block)?.[1], data: /^data: (.*)$/m.exec(block)?.[1] }));
    const replaced = events.find((event) => event.name === 'answer_replaced');
    expect(JSON.parse(replaced!.data!)).toEqual({ answer: 'BPC shows 512,345.67 EUR.', unverified: ['512,345.67'] });
    const final = JSON.parse(events.find((event) => event.name === 'final')!.data!);
    expect(final.answer).toBe('BPC really shows 512,345.67 EUR.');
    expect(amounts(final.figures).map((figure) => [figure.text, figure.receipt.kind])).toEqual([['512,345.67', 'unverified']]);
    const metrics = await request(repairService.app).get('/metrics');
    expect(metrics.text).toMatch(/^unverified_figures_total 1$/m);
  });
});

describe('receipts across turns and failures', () => {
  it("names this turn's call when an earlier turn's result holds the same number", async () => {
    const byPeriod = { name: 'query_source', id: 'call_months', arguments: { source: 'fi_reporting', measures: ['amount'], dimensions: ['period'], filters: { company: '1000' } } };
    mock.enqueue({ toolCalls: [byPeriod] }, { content: 'Here are the months.' });
    const first = await request(modelService.app).post('/chat').send({ message: 'FI by month for 1000?' });
    mock.enqueue({ toolCalls: [{ ...decemberTotal, id: 'call_now' }] }, (sent) => ({ content: `December: ${money(returnedAmount(sent))} EUR.` }));
    const second = await request(modelService.app).post('/chat').send({ message: 'and December alone?', session_id: first.body.session_id });
    expect(amounts(second.body.figures).map((figure) => figure.receipt.call)).toEqual(['call_now']);
  });

  it('stores no rejected answer nor repair request when the provider fails during the repair turn', async () => {
    mock.enqueue({ toolCalls: [decemberTotal] }, { content: 'BPC shows 512,345.67 EUR.' }, { status: 500, body: { error: { message: 'down' } } }, { status: 500, body: { error: { message: 'down' } } });
    const failed = await request(repairService.app).post('/chat').send({ message: 'BPC for 1000 in December 2024?' });
    expect(failed.status).toBeGreaterThanOrEqual(500);
    mock.reset();
    mock.enqueue({ content: 'Nothing else.' });
    const next = await request(repairService.app).post('/chat').send({ message: 'anything else?', session_id: failed.body.session_id });
    expect(next.status).toBe(200);
    const history = JSON.stringify(mock.requests[0]!.body.messages);
    // The question and its tool result are kept; the rejected answer and the request to repair it are not.
    expect(history).toContain('BPC for 1000 in December 2024?');
    expect(history).not.toContain('512,345.67');
    expect(history).not.toContain('Before your answer is shown');
  });
});

describe('the offline model', () => {
  it.each([
    ['en-US', 'Why does FI differ from BPC for company 1000 in December 2024?'],
    ['de-DE', 'revenue of company 1000 by account in December 2024'],
    ['en-US', 'revenue by month for company 3000 in Q4 2024'],
  ])('states only figures with a receipt (%s: %s)', async (locale, message) => {
    const response = await request(offlineService.app).post('/chat').send({ message, locale });
    expect(response.status).toBe(200);
    const figures = amounts(response.body.figures);
    expect(figures.length).toBeGreaterThan(0);
    expect(figures.filter((figure) => figure.receipt.kind === 'unverified')).toEqual([]);
    const ids = new Set((response.body.tool_calls as { id: string }[]).map((call) => call.id));
    for (const figure of figures) if (figure.receipt.call) expect(ids).toContain(figure.receipt.call);
  });
});
