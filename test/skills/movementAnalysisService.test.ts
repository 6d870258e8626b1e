/**
 * movement_analysis through a real service: POST /tools/compare_periods and the offline model
 * answering the skill's three example questions over POST /chat, with figures checked against
 * SQL of their own on data/sample.db.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { formatAmount } from '../../src/shared/format.ts';
import { createService, type Service } from '../../src/service.ts';

const directory = mkdtempSync(path.join(tmpdir(), 'movement-analysis-'));
const samplePath = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../data/sample.db');
let service: Service;
let db: Database.Database;
beforeAll(async () => {
  service = await createService(loadConfig({ LOG_LEVEL: 'silent', APP_DB: path.join(directory, 'app.db') } as NodeJS.ProcessEnv), silentLogger());
  db = new Database(samplePath, { readonly: true, fileMustExist: true });
});
afterAll(async () => {
  db.close();
  await service.close();
  rmSync(directory, { recursive: true, force: true });
});

/** fi_reporting amount for a WHERE clause and a period range, by SQL of its own. */
const fi = (where: string, from: string, to: string) =>
  Math.round((db.prepare(`SELECT SUM(cs_trn_lc) AS v FROM fi_reporting WHERE ${where} AND fiscper BETWEEN ? AND ?`).get(from, to) as { v: number }).v * 100) / 100;
const signed = (value: number, unit: string) => `${value > 0 ? '+' : ''}${formatAmount(value, unit)}`;

async function ask(message: string) {
  const response = await supertest(service.app).post('/chat').send({ message });
  expect(response.status).toBe(200);
  return response.body as { answer: string; tool_calls: { name: string; args: Record<string, any>; presentation?: any }[] };
}

describe('movement_analysis in the service', () => {
  it('runs POST /tools/compare_periods with its presentation', async () => {
    const response = await supertest(service.app)
      .post('/tools/compare_periods')
      .send({ source: 'fi_reporting', period_a: '2024011', period_b: '2024012', group_by: ['group_account'], filters: { company: '1000' } });
    expect(response.status).toBe(200);
    const net = fi("compcode = '1000'", '2024012', '2024012') - fi("compcode = '1000'", '2024011', '2024011');
    expect(response.body).toMatchObject({ tool: 'compare_periods', ok: true, result: { totals: [{ currency: 'EUR', change: Math.round(net * 100) / 100 }] } });
    expect(response.body.result.rows[0]).toMatchObject({ group_account: 'G4000000', role: 'driver' });
    expect(response.body.presentation.views[0].chart).toMatchObject({ kind: 'bar' });
    const refused = await supertest(service.app).post('/tools/compare_periods').send({ source: 'fi_reporting', period_a: '2024011', period_b: '2024012', group_by: ['acount'] });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('unknown_dimension');
  });

  it('answers "what drove the change in revenue from November to December?"', async () => {
    const reply = await ask('What drove the change in revenue from November to December?');
    expect(reply.tool_calls.map((c) => [c.name, c.args])).toEqual([
      ['compare_periods', { source: 'fi_reporting', period_a: '2024011', period_b: '2024012', group_by: ['company'], filters: { group_account: 'G4000000' } }],
    ]);
    for (const [company, currency] of [['1000', 'EUR'], ['2000', 'USD'], ['3000', 'GBP']] as const) {
      const where = `compcode = '${company}' AND grpacct = 'G4000000'`;
      const [nov, dec] = [fi(where, '2024011', '2024011'), fi(where, '2024012', '2024012')];
      expect(reply.answer).toContain(`${formatAmount(nov, currency)} → ${formatAmount(dec, currency)}, change ${signed(Math.round((dec - nov) * 100) / 100, currency)}`);
    }
    expect(reply.answer).toContain('not added');
  });

  it('answers "top movers by account quarter over quarter for company 2000"', async () => {
    const reply = await ask('Top movers by account quarter over quarter for company 2000');
    expect(reply.tool_calls[0]).toMatchObject({
      name: 'compare_periods',
      args: { period_a: { from: '2024007', to: '2024009' }, period_b: { from: '2024010', to: '2024012' }, group_by: ['group_account'], filters: { company: '2000' } },
    });
    const q3 = fi("compcode = '2000'", '2024007', '2024009');
    const q4 = fi("compcode = '2000'", '2024010', '2024012');
    expect(reply.answer).toContain(`${formatAmount(q3, 'USD')} → ${formatAmount(q4, 'USD')}`);
    const revenue = (from: string, to: string) => fi("compcode = '2000' AND grpacct = 'G4000000'", from, to);
    expect(reply.answer).toContain(`group account G4000000: ${formatAmount(revenue('2024007', '2024009'), 'USD')} → ${formatAmount(revenue('2024010', '2024012'), 'USD')}`);
    expect(reply.answer).toContain('the last two quarters of 2024');
    expect(reply.tool_calls[0]!.presentation.views[0].chart.kind).toBe('bar');
  });

  it('answers "month-over-month trend of FI for 3000"', async () => {
    const reply = await ask('Month-over-month trend of FI for 3000');
    expect(reply.tool_calls.map((c) => [c.name, c.args])).toEqual([['period_trend', { source: 'fi_reporting', filters: { company: '3000' } }]]);
    const [nov, dec] = [fi("compcode = '3000'", '2024011', '2024011'), fi("compcode = '3000'", '2024012', '2024012')];
    expect(reply.answer).toContain(`- December 2024: ${formatAmount(dec, 'GBP')}, ${signed(Math.round((dec - nov) * 100) / 100, 'GBP')}`);
    expect(reply.answer).toContain('Largest change (GBP)');
  });

  it('leaves the data_analyst questions to data_analyst', async () => {
    const reply = await ask('monthly amount for company 1000 by period in fi_reporting');
    expect(reply.tool_calls.map((c) => c.name)).toEqual(['query_source']);
  });
});
