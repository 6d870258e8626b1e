/**
 * An amount's whole units (dialect.wholeUnits), the amount bisection's checksums carry: the same
 * integer on SQLite, DuckDB and PostgreSQL as the row merge's rounding in JavaScript, halves and
 * binary near-halves included, and on PostgreSQL computed in double precision throughout (a
 * numeric step per key halved the speed of a pass over 10 M keys).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { Connections } from '../../src/data/connections.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { postgresUrls } from '../support/engineServers.ts';
import { withPostgres } from '../support/postgresClient.ts';
import { postgresDialect } from '../../src/data/dialect.ts';

const amounts = [0, 0.005, -0.005, 1.005, -1.005, 1.015, 2.675, -2.675, 0.285, 123_456.785, -99_999_999.995, 1e-17, 42];
/** The row merge's rounding (merges.ts), in whole cents. */
const cents = (value: number) => Math.round((value + Math.sign(value) * Number.EPSILON) * 100);

describe('whole units of an amount', () => {
  it('are the row merge’s rounded cents on every engine', async () => {
    const file = path.join(temporaryDirectory(), 'empty.db');
    new Database(file).close();
    const { adminUrl } = await postgresUrls();
    const connections = new Connections([{ name: 'sqlite', url: `sqlite:${file}` }, { name: 'duckdb', url: 'duckdb:' }, { name: 'postgres', url: adminUrl }], { statementTimeoutMs: 10_000 });
    try {
      for (const name of ['sqlite', 'duckdb', 'postgres']) {
        const engine = await connections.engine(name);
        const literals = amounts.map((amount, at) => `SELECT ${at} AS n, ${engine.dialect.double(String(amount))} AS v`).join(' UNION ALL ');
        const rows = await engine.all(`SELECT ${engine.dialect.keyText(engine.dialect.wholeUnits('v', 2))} FROM (${literals}) AS amounts ORDER BY n`, []);
        expect({ name, units: rows.map((row) => Number(row[0])) }).toEqual({ name, units: amounts.map(cents) });
      }
    } finally {
      await connections.close();
    }
  });

  it('are computed in double precision on PostgreSQL, with no numeric step per row', async () => {
    const { adminUrl } = await postgresUrls();
    const plan = await withPostgres(adminUrl, async (client) => {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (VERBOSE) SELECT ${postgresDialect.wholeUnits('v', 2)} FROM (SELECT CAST(n AS DOUBLE PRECISION) / 7 AS v FROM generate_series(1, 10) AS n) AS amounts`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('floor');
    expect(plan).not.toContain('numeric');
  });
});
