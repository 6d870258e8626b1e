/**
 * Receipts on real tool results: the results come from the service's own tools on the sample
 * data (POST /tools/{name}, as the agent runs them), and the answers are written from them the
 * ways a model writes figures: copied, rounded, derived, in German, or invented.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { checkAnswer, type CheckedFigure, type Place, type ToolResult } from '../../src/receipts/index.ts';
import { createService, type Service } from '../../src/service.ts';

let service: Service;
const directory = mkdtempSync(path.join(tmpdir(), 'receipts-'));
const december = { company: '1000', period: '2024012' };
/** Company 1000's months of 2024 in fi_reporting, FI vs BPC in December, and FI's December total. */
let months: ToolResult;
let comparison: ToolResult;
let total: ToolResult;

async function call(id: string, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const response = await supertest(service.app).post(`/tools/${name}`).send(args);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return { id, name, result: response.body.result };
}

beforeAll(async () => {
  service = await createService(loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '0', APP_DB: path.join(directory, 'app.db') } as NodeJS.ProcessEnv), silentLogger());
  months = await call('call_months', 'query_source', { source: 'fi_reporting', dimensions: ['period'], filters: { company: '1000' } });
  comparison = await call('call_compare', 'compare_sources', { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: december });
  total = await call('call_total', 'query_source', { source: 'fi_reporting', filters: december });
});
afterAll(async () => {
  await service.close();
  rmSync(directory, { recursive: true, force: true });
});

/** The number at a place of the results ('rows[3].amount'). */
function valueAt(results: ToolResult[], place: Place): number {
  const result = results.find((candidate) => candidate.id === place.call)?.result;
  const value = place.path.split(/\.|(?=\[)/).reduce<any>((node, step) => (step.startsWith('[') ? node?.[JSON.parse(step.slice(1, -1))] : node?.[step]), result);
  expect(typeof value, `${place.call} ${place.path}`).toBe('number');
  return value;
}

const amount = (result: ToolResult, period: string): number => (result.result as any).rows.find((row: any) => row.period === period).amount;
const decemberTotal = (): number => (total.result as any).rows[0].amount;
const money = (value: number, locale = 'en-US') => value.toLocaleString(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const checked = (figures: CheckedFigure[]) => figures.filter((figure) => figure.kind === 'amount' || figure.kind === 'percent');

describe('receiptsFor on real tool results', () => {
  it('traces copied figures to the row and field they came from', () => {
    const answer = `Total amount in fi_reporting for company 1000, period December 2024 (2024012): ${money(decemberTotal())} EUR. In November: ${money(amount(months, '2024011'))} EUR.`;
    const [dec, nov] = checked(checkAnswer(answer, [months, total]).figures);
    expect(dec!.receipt).toEqual({ kind: 'value', call: 'call_months', path: 'rows[11].amount' });
    expect(nov!.receipt).toEqual({ kind: 'value', call: 'call_months', path: 'rows[10].amount' });
    expect(dec!.value).toBe(443_100);
  });

  it('takes a figure from an earlier call with that call id', () => {
    const bpc = (comparison.result as any).summary.totals[0].total_b;
    const { figures } = checkAnswer(`BPC shows ${money(bpc)} EUR.`, [comparison, months, total]);
    expect(checked(figures)[0]!.receipt).toMatchObject({ kind: 'value', call: 'call_compare' });
    expect(valueAt([comparison], checked(figures)[0]!.receipt as Place)).toBe(bpc);
  });

  it('verifies rounded figures within the precision they are written with: 110k, 24.8%', () => {
    const { difference, difference_percent: percent } = (comparison.result as any).summary.totals[0];
    expect(difference).toBe(110_000);
    const answer = `FI is ${Math.round(difference / 1000)}k above BPC, ${percent.toFixed(1)}% of FI, about ${(decemberTotal() / 1e6).toFixed(1)} M in all.`;
    expect(answer).toContain('110k');
    expect(answer).toContain('24.8%');
    const figures = checked(checkAnswer(answer, [comparison, total]).figures);
    expect(figures.map((figure) => figure.receipt.kind)).toEqual(['value', 'value', 'value']);
    expect(figures[1]!.receipt).toMatchObject({ call: 'call_compare', path: expect.stringMatching(/difference_percent$/) });
  });

  it('verifies a difference, a sum of listed rows and a change in percent with the derivation used', () => {
    const [oct, nov, dec] = ['2024010', '2024011', '2024012'].map((period) => amount(months, period)) as [number, number, number];
    const change = ((dec - nov) / Math.abs(nov)) * 100;
    const answer = `December is ${money(dec - nov)} EUR above November (+${change.toFixed(1)}%); Q4 comes to ${money(oct + nov + dec)} EUR.`;
    const [difference, percent, sum] = checked(checkAnswer(answer, [months]).figures);
    const values = (figure: CheckedFigure) => (figure.receipt.kind === 'derived' ? figure.receipt.of.map((place) => valueAt([months], place)) : []);

    expect(difference!.receipt).toMatchObject({ kind: 'derived', op: 'difference' });
    const [x, y] = values(difference!);
    expect(x! - y!).toBeCloseTo(dec - nov, 2);

    expect(percent!.receipt).toMatchObject({ kind: 'derived', op: 'percent_change' });
    const [from, to] = values(percent!);
    expect(Math.abs(((to! - from!) / Math.abs(from!)) * 100 - change)).toBeLessThan(0.05);

    expect(sum!.receipt).toMatchObject({ kind: 'derived', op: 'sum' });
    expect(values(sum!).reduce((a, b) => a + b, 0)).toBeCloseTo(oct + nov + dec, 2);
  });

  it('verifies an exact net of figures from two calls, but pairs a rounded figure only within one field', () => {
    const bpc = (comparison.result as any).summary.totals[0].total_b;
    const nov = amount(months, '2024011');
    const { figures } = checkAnswer(`November FI exceeds the December BPC total by ${money(nov - bpc)} EUR (about ${((nov - bpc) / 1000).toFixed(1)}k).`, [comparison, months]);
    const [exact, rounded] = checked(figures);
    expect(exact!.receipt).toMatchObject({ kind: 'derived', op: 'difference' });
    const [x, y] = (exact!.receipt as { of: Place[] }).of.map((place) => valueAt([comparison, months], place));
    expect(x! - y!).toBeCloseTo(nov - bpc, 2);
    // Any two numbers of any fields are many pairs: a figure rounded to 100 would match one by chance.
    expect(rounded!.receipt).toEqual({ kind: 'unverified' });
  });

  it('leaves an invented figure, or a mis-copied one, unverified', () => {
    const answer = `FI shows 123,456.78 EUR for December, and ${money(decemberTotal() + 100)} EUR in all.`;
    const { figures, unverified } = checkAnswer(answer, [months, comparison, total]);
    expect(unverified.map((figure) => figure.text)).toEqual(['123,456.78', money(443_200)]);
    expect(checked(figures).every((figure) => figure.receipt.kind === 'unverified')).toBe(true);
  });

  it('reads a German answer in its locale', () => {
    const answer = `fi_reporting: ${money(443_100, 'de-DE')} EUR; bpc_reporting: ${money(333_100, 'de-DE')} EUR; Differenz: ${money(110_000, 'de-DE')} EUR (+24,8 %).`;
    expect(answer).toContain('443.100,00');
    const { figures, unverified } = checkAnswer(answer, [comparison], { locale: 'de-DE' });
    expect(unverified).toEqual([]);
    expect(checked(figures).map((figure) => figure.value)).toEqual([443_100, 333_100, 110_000, 24.8]);
  });

  it('traces a figure a knowledge passage states to the passage', async () => {
    const knowledge = await call('call_knowledge', 'search_knowledge', { query: "Why shouldn't I add up USD and EUR amounts?", limit: 2 });
    const { figures, unverified } = checkAnswer('Adding 100 EUR and 100 USD gives neither 200 EUR nor 200 USD, nor 300 EUR.', [knowledge]);
    expect(unverified.map((figure) => figure.text)).toEqual(['300']);
    expect(figures[0]!.receipt).toEqual({ kind: 'quote', call: 'call_knowledge', path: expect.stringMatching(/^results\[\d+\]\.text$/) });
  });

  it('does not treat years, periods, codes and document numbers as amounts', () => {
    const answer = 'For company 1000 in 2024, period 2024012 (2025-03 next year), document 1400000010 on account 400000 of group account G4000000: 3 rows.';
    const { figures, unverified } = checkAnswer(answer, [months, comparison, total]);
    expect(unverified).toEqual([]);
    expect(figures.filter((figure) => figure.kind !== 'count').map((figure) => [figure.text, figure.kind, figure.receipt.kind])).toEqual([
      ['1000', 'code', 'not_a_figure'],
      ['2024', 'year', 'not_a_figure'],
      ['2024012', 'period', 'not_a_figure'],
      ['2025-03', 'period', 'not_a_figure'],
      ['1400000010', 'code', 'not_a_figure'],
      ['400000', 'code', 'not_a_figure'],
      ['G4000000', 'code', 'not_a_figure'],
    ]);
  });

  it('marks a figure whose sign is not the leaf sign', () => {
    const { figures } = checkAnswer(`a gap of -${money(443_100)} EUR`, [total]);
    expect(figures[0]!.receipt).toEqual({ kind: 'value', call: 'call_total', path: 'rows[0].amount', sign_differs: true });
  });

  it('searches a result of 100,000 rows within its bounds: an invented figure is still unverified', () => {
    const rows = Array.from({ length: 100_000 }, (_, index) => ({ period: String(2024001 + (index % 12)), amount: (index * 7919) % 1_000_003 }));
    const { unverified } = checkAnswer('A total of 98,765,432.10 EUR.', [{ id: 'call_big', name: 'query_source', result: { rows } }]);
    expect(unverified.map((figure) => figure.text)).toEqual(['98,765,432.10']);
  });
});
