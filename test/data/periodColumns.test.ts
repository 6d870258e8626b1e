/**
 * Periods as the data holds them (src/data/periodColumns.ts): a table whose periods are YYYYMM,
 * YYYY-MM, dates or fiscal year and period in two columns is read through a computed fiscal
 * YYYYPPP column, with the same values, filters and totals on SQLite, DuckDB and PostgreSQL,
 * for a fiscal year from January and one from April.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connections, openEngine, type ConnectionSpec } from '../../src/data/connections.ts';
import { runQuery } from '../../src/data/execute.ts';
import type { PeriodColumn } from '../../src/data/periodColumns.ts';
import type { SelectQuery } from '../../src/data/query.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { postgresUrls } from '../support/engineServers.ts';
import { withPostgres } from '../support/postgresClient.ts';

/** One posting per calendar month: March 2025, April 2025, March 2026 (amounts 1, 10, 100). */
const rows = [
  { ym: 202503, dash: '2025-03', day: '2025-03-31', fiscalYear: 2024, fiscalPeriod: 12, amount: 1 },
  { ym: 202504, dash: '2025-04', day: '2025-04-01', fiscalYear: 2025, fiscalPeriod: 1, amount: 10 },
  { ym: 202603, dash: '2026-03', day: '2026-03-15', fiscalYear: 2025, fiscalPeriod: 12, amount: 100 },
];
const createTable = (dateType: string) => `CREATE TABLE ledger (ym INTEGER, dash TEXT, day ${dateType}, gjahr INTEGER, poper INTEGER, amount DOUBLE PRECISION)`;
const insertRows = rows.map((r) => `INSERT INTO ledger VALUES (${r.ym}, '${r.dash}', '${r.day}', ${r.fiscalYear}, ${r.fiscalPeriod}, ${r.amount})`);

const formats: Record<string, Omit<PeriodColumn, 'fiscalYearStart'>> = {
  YYYYMM: { format: 'YYYYMM', column: 'ym' },
  'YYYY-MM': { format: 'YYYY-MM', column: 'dash' },
  date: { format: 'date', column: 'day' },
};

const directory = temporaryDirectory('period-columns-');
const engines: Record<string, () => Promise<string>> = {
  sqlite: async () => {
    const file = path.join(directory, 'ledger.db');
    const db = new Database(file);
    db.exec([createTable('TEXT'), ...insertRows].join(';'));
    db.close();
    return `sqlite:${file}`;
  },
  duckdb: async () => {
    const file = path.join(directory, 'ledger.duckdb');
    const instance = await DuckDBInstance.create(file);
    const connection = await instance.connect();
    for (const statement of [createTable('DATE'), ...insertRows]) await connection.run(statement);
    connection.closeSync();
    instance.closeSync();
    return `duckdb:${file}`;
  },
  postgres: async () => {
    const { adminUrl } = await postgresUrls();
    const database = `periods_${randomBytes(4).toString('hex')}`;
    await withPostgres(adminUrl, (client) => client.query(`CREATE DATABASE ${database}`));
    const url = adminUrl.replace(/\/[^/?]+(\?|$)/, `/${database}$1`);
    await withPostgres(url, async (client) => {
      for (const statement of [createTable('DATE'), ...insertRows]) await client.query(statement);
    });
    return url;
  },
};

const urls = new Map<string, string>();
beforeAll(async () => {
  for (const [engine, create] of Object.entries(engines)) urls.set(engine, await create());
}, 120_000);

const opened: Connections[] = [];
afterAll(async () => {
  await Promise.all(opened.map((connections) => connections.close()));
});

async function totalsByPeriod(engine: string, period: PeriodColumn, where: SelectQuery['where'] = []): Promise<Record<string, number>> {
  const spec: ConnectionSpec = { name: 'default', url: urls.get(engine)!, computed: { ledger: { __period_yyyyppp: period } } };
  const connections = Connections.of({ default: await openEngine(spec, { statementTimeoutMs: 30_000 }) });
  opened.push(connections);
  const result = await runQuery(connections, {
    kind: 'select',
    table: 'ledger',
    columns: [{ name: 'period', column: '__period_yyyyppp' }],
    aggregates: [{ name: 'amount', function: 'sum', column: 'amount' }],
    where,
  });
  return Object.fromEntries(result.rows.map((row) => [String(row.period), Number(row.amount)]));
}

describe.each(Object.keys(engines))('computed period columns on %s', (engine) => {
  it.each(Object.keys(formats))('reads %s as calendar months of a January fiscal year', async (format) => {
    expect(await totalsByPeriod(engine, { ...formats[format]!, fiscalYearStart: 1 })).toEqual({ '2025003': 1, '2025004': 10, '2026003': 100 });
  });

  it.each(Object.keys(formats))('reads %s in a fiscal year from April: March closes the year before', async (format) => {
    expect(await totalsByPeriod(engine, { ...formats[format]!, fiscalYearStart: 4 })).toEqual({ '2024012': 1, '2025001': 10, '2025012': 100 });
  });

  it('reads fiscal year and period held in two columns as they stand', async () => {
    expect(await totalsByPeriod(engine, { format: 'year_period', column: 'poper', yearColumn: 'gjahr', fiscalYearStart: 4 })).toEqual({ '2024012': 1, '2025001': 10, '2025012': 100 });
  });

  it('finds repeated rows of such a table (the duplicate scan qualifies columns by the table name)', async () => {
    const spec: ConnectionSpec = { name: 'default', url: urls.get(engine)!, computed: { ledger: { __period_yyyyppp: { format: 'YYYYMM', column: 'ym', fiscalYearStart: 4 } } } };
    const connections = Connections.of({ default: await openEngine(spec, { statementTimeoutMs: 30_000 }) });
    opened.push(connections);
    const result = await runQuery(connections, { kind: 'select', table: 'ledger', columns: [{ name: 'period', column: '__period_yyyyppp' }], repeated: { columns: ['gjahr'], atLeast: 2 }, orderBy: [{ name: 'period', direction: 'asc' }] });
    expect(result.rows.map((row) => row.period)).toEqual(['2025001', '2025012']);
  });

  it('filters a fiscal year as a range of computed periods', async () => {
    const fiscal2025 = [{ column: '__period_yyyyppp', kind: 'range' as const, from: '2025001', to: '2025012' }];
    expect(await totalsByPeriod(engine, { format: 'YYYYMM', column: 'ym', fiscalYearStart: 4 }, fiscal2025)).toEqual({ '2025001': 10, '2025012': 100 });
  });
});
