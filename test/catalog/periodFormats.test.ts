/**
 * A catalog over data whose periods are calendar months as YYYYMM (the second sample's
 * gl_extract, data/sap-sample) in a fiscal year from April, served as it is declared: through
 * POST /tools the fiscal year, a quarter and a month give the sample README's figures, a month
 * typed as the data spells it ("202504") is read as the fiscal period it falls in, answers speak
 * fiscal YYYYPPP periods named by their month, and a bad period is told in the data's notation.
 * On SQLite and on DuckDB over the Parquet files (with a DATA_URL no source uses, never opened).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSapSample, type SapSampleBuild } from '../../data/sap-sample/write.ts';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const directory = temporaryDirectory('period-formats-');

/** The catalog a user writes (or catalog:init drafts) for gl_extract: periods YYYYMM, the year from April. */
const catalog = (connection: string) => `version: 1
fiscal_year_start: 4
comparison:
  thresholds: { match: { absolute: 0.005, percent: 0 }, minor: { absolute: 100, percent: 0.5 } }
${connection}
sources:
  gl_extract:
    description: Posted general-ledger lines of Northwind Traders.
    table: gl_extract
    connection: ${connection ? 'files' : 'default'}
    dimensions:
      company: { column: bukrs, description: Company code, examples: [IN01] }
      period: { column: gjahr_monat, type: period, format: YYYYMM, description: Calendar month of the posting, examples: ["202504"] }
      account: { column: hkont, description: G/L account }
      currency: { column: rwcur, description: Local currency }
    measures:
      amount: { column: hsl, aggregation: sum, description: Amount in local currency, currency_dimension: currency }
`;

let build: SapSampleBuild;
const services: Service[] = [];
const engines: Record<string, () => Promise<Service>> = {
  SQLite: () => serviceOn(`sqlite:${build.sqlite}`, catalog('')),
  // No source lives on the default connection: DATA_URL is never opened, so a file that does not exist is no obstacle.
  'DuckDB over Parquet': () => serviceOn(`sqlite:${path.join(directory, 'no-such.db')}`, catalog(`connections:\n  files:\n    files: { gl_extract: ${path.join(build.parquet, 'gl_extract.parquet')} }`)),
};

async function serviceOn(dataUrl: string, yaml: string): Promise<Service> {
  const file = path.join(directory, `catalog-${services.length}.yaml`);
  writeFileSync(file, yaml);
  const environment = { LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', RATE_LIMIT_PER_MINUTE: '0', QUERY_WORKERS: '1', DATA_URL: dataUrl, CATALOG: file, APP_DB: path.join(directory, `app-${services.length}.db`) };
  const service = await createService(loadConfig(environment as NodeJS.ProcessEnv), silentLogger());
  services.push(service);
  return service;
}

beforeAll(async () => {
  build = await buildSapSample(path.join(directory, 'sample'));
}, 60_000);
afterAll(async () => {
  await Promise.all(services.map((service) => service.close()));
});

const amounts = (body: { rows: Record<string, unknown>[] }) => Object.fromEntries(body.rows.map((row) => [String(row.period ?? 'total'), row.amount]));

describe.each(Object.keys(engines))('periods held as YYYYMM in a fiscal year from April, on %s', (engine) => {
  let api: ReturnType<typeof supertest>;
  beforeAll(async () => {
    api = supertest((await engines[engine]!()).app);
  }, 60_000);

  it("totals a fiscal year as the sample's README does (FY2025 = 202504–202603)", async () => {
    const response = await api.post('/tools/query_source').send({ source: 'gl_extract', filters: { company: 'IN01', period: 'FY2025' } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.result.rows[0].amount).toBeCloseTo(141_916_200, 2);
    expect(response.body.result.filters.period).toEqual({ from: '2025001', to: '2025012' });
  });

  it('reads Q1 as April to June, per fiscal period', async () => {
    const response = await api.post('/tools/query_source').send({ source: 'gl_extract', filters: { company: 'IN01', period: 'Q1 2025' }, dimensions: ['period'] });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const byPeriod = amounts(response.body.result);
    expect(Object.keys(byPeriod)).toEqual(['2025001', '2025002', '2025003']);
    expect(Object.values(byPeriod).reduce((sum: number, value) => sum + Number(value), 0)).toBeCloseTo(34_712_100, 2);
  });

  it('reads a month as the data spells it, or by name, as the fiscal period it falls in', async () => {
    const spelt = await api.post('/tools/query_source').send({ source: 'gl_extract', filters: { company: 'IN01', period: '202504' } });
    const named = await api.post('/tools/query_source').send({ source: 'gl_extract', filters: { company: 'IN01', period: 'April 2025' } });
    expect(spelt.body.result.filters.period).toBe('2025001');
    expect(named.body.result.filters.period).toBe('2025001');
    expect(spelt.body.result.rows[0].amount).toBe(named.body.result.rows[0].amount);
    // March closes the fiscal year that began the April before.
    const march = await api.post('/tools/query_source').send({ source: 'gl_extract', filters: { company: 'IN01', period: '202503' } });
    expect(march.body.result.filters.period).toBe('2024012');
  });

  it("tells a period it cannot read in the data's own notation", async () => {
    const response = await api.post('/tools/query_source').send({ source: 'gl_extract', filters: { period: 'sometime' } });
    expect(response.status).toBe(422);
    expect(response.body.error.hint).toContain("Periods look like '202503' here (March 2025, fiscal period 2024012)");
  });
});
