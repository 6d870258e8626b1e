/**
 * Sources spread across engines: FI in PostgreSQL (a real server started by the test setup),
 * BPC as Parquet exports read by DuckDB, the rest in the SQLite sample. Through /tools and /chat
 * the reconciliation of FI against BPC must give exactly the figures it gives with everything in
 * SQLite, and a connection that is down must fail only its own sources.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { readFileSync } from 'node:fs';
import { projectRoot } from '../../src/config/config.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { engineSampleUrls } from '../support/engineSamples.ts';
import { listeningServices, type ListeningService } from '../support/listeningService.ts';

const urls = await engineSampleUrls();

/** The bundled catalog with FI on `warehouse` and BPC on `exports`, written to a temporary file. */
function spreadCatalog(directory: string, warehouseVariable: string): string {
  const document = parseDocument(readFileSync(path.join(projectRoot, 'data/sources.yaml'), 'utf8'));
  document.set('connections', {
    warehouse: { url: `\${${warehouseVariable}}` },
    exports: { files: { bpc_reporting: path.join(urls.parquet, 'bpc_reporting.parquet'), fi_acquisition: path.join(urls.parquet, 'fi_acquisition.parquet') } },
  });
  document.setIn(['sources', 'fi_reporting', 'connection'], 'warehouse');
  document.setIn(['sources', 'bpc_reporting', 'connection'], 'exports');
  document.setIn(['sources', 'fi_acquisition', 'connection'], 'exports');
  const file = path.join(directory, 'spread.yaml');
  writeFileSync(file, document.toString());
  return file;
}

const post = async (service: ListeningService, route: string, body: unknown) => {
  const response = await fetch(`${service.url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
};
/** A result without what differs by engine: its SQL and how the sides were merged. */
const withoutSql = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, inner: unknown) => (key === 'sql' || key === 'merged_by' ? undefined : typeof inner === 'string' ? inner.replace(/cmp_[A-Za-z0-9_-]+/g, 'cmp_…') : inner)));

const question = { source_a: 'fi_reporting', source_b: 'bpc_reporting', measure: 'amount', filters: { company: '1000', period: '2024012' } };

describe('sources on PostgreSQL, Parquet and SQLite at once', () => {
  const services = listeningServices();
  let spread: ListeningService;
  let local: ListeningService;
  beforeAll(async () => {
    const directory = temporaryDirectory();
    const base = { LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', QUERY_WORKERS: '1' };
    local = await services.start({ ...base, APP_DB: path.join(directory, 'local.db') });
    spread = await services.start({ ...base, APP_DB: path.join(directory, 'spread.db'), CATALOG: spreadCatalog(directory, 'TEST_WAREHOUSE_URL'), TEST_WAREHOUSE_URL: urls.postgres });
  }, 60_000);
  afterAll(() => services.closeAll());

  it('reconciles FI in PostgreSQL against BPC in Parquet with the figures of SQLite, through /tools', async () => {
    const [onSpread, onLocal] = await Promise.all([post(spread, '/tools/compare_sources', question), post(local, '/tools/compare_sources', question)]);
    expect(onSpread.status).toBe(200);
    expect(onSpread.body.result.summary).toMatchObject({ aligned_rows: 1 });
    expect(withoutSql(onSpread.body.result)).toEqual(withoutSql(onLocal.body.result));
    // The follow-ups work on the cross-engine comparison too.
    const explained = await post(spread, '/tools/explain_difference', { comparison_id: onSpread.body.result.comparison_id });
    const explainedLocally = await post(local, '/tools/explain_difference', { comparison_id: onLocal.body.result.comparison_id });
    expect(explained.status).toBe(200);
    expect(withoutSql(explained.body.result)).toEqual(withoutSql(explainedLocally.body.result));
  });

  it('reconciles document lines in Parquet against PostgreSQL by checksum bisection, with the figures of one engine, and says so', async () => {
    const lines = { source_a: 'fi_acquisition', source_b: 'fi_reporting', measure: 'amount', align_on: ['document', 'document_line'], filters: { company: '1000' } };
    const [onSpread, onLocal] = await Promise.all([post(spread, '/tools/compare_sources', lines), post(local, '/tools/compare_sources', lines)]);
    expect(onSpread.status).toBe(200);
    expect(onSpread.body.result.merged_by).toMatchObject({ method: 'checksum_bisection', passes: expect.any(Number), rows_read: expect.any(Number) });
    expect(onSpread.body.result.merged_by.rows_read).toBeLessThan(onSpread.body.result.summary.aligned_rows);
    expect(onLocal.body.result.merged_by).toBeUndefined();
    expect(withoutSql(onSpread.body.result)).toEqual(withoutSql(onLocal.body.result));
  });

  it('answers the same reconciliation question through /chat', async () => {
    const message = { message: 'Why does FI differ from BPC for company 1000 in December 2024?' };
    const [onSpread, onLocal] = await Promise.all([post(spread, '/chat', message), post(local, '/chat', message)]);
    expect(onSpread.status).toBe(200);
    expect(onSpread.body.answer).toMatch(/110,000\.00/);
    expect(onSpread.body.answer).toBe(onLocal.body.answer);
  });

  it.each([
    ['PostgreSQL', () => urls.postgres],
    ['DuckDB', () => urls.duckdb],
  ])('runs the bundled catalog unchanged on the sample in %s (DATA_URL), with the same answers', async (_engine, url) => {
    const directory = temporaryDirectory();
    const moved = await services.start({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', QUERY_WORKERS: '1', APP_DB: path.join(directory, 'app.db'), DATA_URL: url() });
    const message = { message: 'What drove the change in revenue from November to December?' };
    const [there, here] = await Promise.all([post(moved, '/chat', message), post(local, '/chat', message)]);
    expect(there.status).toBe(200);
    expect(there.body.answer).toBe(here.body.answer);
    const health = (await (await fetch(`${moved.url}/health`)).json()) as any;
    expect(health.data.connections[0]).toMatchObject({ name: 'default', status: 'ok' });
  });

  it('reports each connection in /health without secrets', async () => {
    const health = (await (await fetch(`${spread.url}/health`)).json()) as any;
    expect(health.data.connections.map((c: { name: string; engine: string }) => [c.name, c.engine])).toEqual([
      ['default', 'sqlite'],
      ['warehouse', 'postgres'],
      ['exports', 'duckdb'],
    ]);
    expect(JSON.stringify(health)).not.toContain('analyst_reader');
  });

  it('fails only the sources of a connection that is down, with source_unavailable, and reports it', async () => {
    const directory = temporaryDirectory();
    // A port nothing listens on: the warehouse is down from the start.
    const down = await services.start({
      LOG_LEVEL: 'silent',
      MODEL_PROVIDER: 'offline',
      QUERY_WORKERS: '1',
      APP_DB: path.join(directory, 'down.db'),
      CATALOG: spreadCatalog(directory, 'DOWN_WAREHOUSE_URL'),
      DOWN_WAREHOUSE_URL: 'postgres://reader:secret-word@127.0.0.1:1/finance',
    });
    const failed = await post(down, '/tools/query_source', { source: 'fi_reporting' });
    expect(failed.status).toBe(503);
    expect(JSON.stringify(failed.body)).toMatch(/source_unavailable/);
    expect(JSON.stringify(failed.body)).not.toContain('secret-word');
    const working = await post(down, '/tools/query_source', { source: 'consolidation_mart', dimensions: ['version'] });
    expect(working.status).toBe(200);
    const health = (await (await fetch(`${down.url}/health`)).json()) as any;
    expect(health.components.data_database.status).toBe('degraded');
    expect(health.data.connections.find((c: { name: string }) => c.name === 'warehouse')).toMatchObject({ status: 'down', target: 'postgres://127.0.0.1:1/finance' });
    expect(JSON.stringify(health)).not.toContain('secret-word');
  });
});
