/**
 * A data file overwritten or truncated in place (same inode, so the identity check alone sees
 * nothing) while the service runs: GET /health says down naming the file (never its path), tool
 * calls are refused with 503 data_unavailable, and everything is back by itself once a whole file
 * is there again, for SQLite (DATA_DB) and DuckDB (DATA_URL=duckdb:…). A query that meets the
 * damaged file before the watch does answers data_unavailable too, never query_failed.
 */
import { copyFileSync, openSync, closeSync, statSync, truncateSync, writeSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { valueExists } from '../../src/data/lookups.ts';
import { QueryPool } from '../../src/data/queryPool.ts';
import { ToolError } from '../../src/errors/index.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { fileSamples } from '../support/engineServers.ts';
import { listeningServices } from '../support/listeningService.ts';
import { until } from '../support/until.ts';

const services = listeningServices();
const pools: QueryPool[] = [];
afterEach(async () => {
  await services.closeAll();
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

const SAMPLE_DB = path.join(projectRoot, 'data/sample.db');
const query = { source: 'fi_reporting', filters: { company: '1000' } };
const post = (url: string) => fetch(`${url}/tools/query_source`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(query) });
const health = async (url: string) => (await fetch(`${url}/health`)).json() as Promise<any>;

/** Overwrites the whole file with `byte`, in place (same inode, same size). */
function overwrite(file: string, byte: number): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(statSync(file).size, byte), 0, statSync(file).size, 0);
  closeSync(fd);
}

/** A copy of `original` in a directory of its own, and how to put it back in place. */
function copyOf(original: string, name: string) {
  const directory = temporaryDirectory('data-in-place-');
  const file = path.join(directory, name);
  copyFileSync(original, file);
  const inode = statSync(file).ino;
  return {
    directory,
    file,
    restore: () => {
      copyFileSync(original, file);
      // Still the same file: only a content check can have noticed.
      expect(statSync(file).ino).toBe(inode);
    },
  };
}

async function expectDownAndRefused(url: string, directory: string, reason: RegExp): Promise<void> {
  // A worker failing to open the file may say 'down' a moment before the file check names the damage.
  await until(async () => reason.test((await health(url)).components.data_database?.reason ?? ''), 20_000, '/health to say down, naming the damage');
  const report = await health(url);
  expect(report.components.data_database).toMatchObject({ status: 'down', reason: expect.stringMatching(reason) });
  expect(JSON.stringify(report)).not.toContain(directory);
  const refused = await post(url);
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  const problem = (await refused.json()) as any;
  expect(problem).toMatchObject({ type: '/problems/data-unavailable', error: { code: 'data_unavailable' } });
  expect(JSON.stringify(problem)).not.toContain(directory);
}

async function expectBack(url: string): Promise<void> {
  await until(async () => (await health(url)).status === 'ok', 30_000, '/health to say ok again');
  expect((await post(url)).status).toBe(200);
}

const environment = (extra: Record<string, string>) => ({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(temporaryDirectory(), 'app.db'), RATE_LIMIT_PER_MINUTE: '0', QUERY_WORKERS: '2', ...extra });

describe('a SQLite DATA_DB changed in place while the service runs', () => {
  it('truncated to nothing: down and data_unavailable, then back when the file is whole again', async () => {
    const data = copyOf(SAMPLE_DB, 'finance.db');
    const { url } = await services.start(environment({ DATA_DB: data.file }));
    expect((await post(url)).status).toBe(200);
    truncateSync(data.file, 0);
    await expectDownAndRefused(url, data.directory, /^the data database finance\.db \(DATA_DB\) cannot be opened as a SQLite database: it was overwritten or truncated/);
    data.restore();
    await expectBack(url);
  }, 60_000);

  it('overwritten with other bytes, or cut short behind an intact header: down each time, back each time', async () => {
    const data = copyOf(SAMPLE_DB, 'finance.db');
    const { url } = await services.start(environment({ DATA_DB: data.file }));
    expect((await post(url)).status).toBe(200);
    overwrite(data.file, 0xde);
    await expectDownAndRefused(url, data.directory, /cannot be opened as a SQLite database: it was overwritten or truncated/);
    data.restore();
    await expectBack(url);

    truncateSync(data.file, statSync(data.file).size / 2);
    await expectDownAndRefused(url, data.directory, /finance\.db \(DATA_DB\) was truncated in place/);
    data.restore();
    await expectBack(url);
  }, 90_000);
});

describe('a DuckDB file (DATA_URL=duckdb:…) overwritten in place', () => {
  it('is down and refused with data_unavailable, and back when the file is whole again', async () => {
    const data = copyOf((await fileSamples()).duckdbPath, 'finance.duckdb');
    const { url } = await services.start(environment({ DATA_URL: `duckdb:${data.file}` }));
    expect((await post(url)).status).toBe(200);
    overwrite(data.file, 0);
    await expectDownAndRefused(url, data.directory, /cannot be opened as a DuckDB database/);
    data.restore();
    await expectBack(url);
  }, 60_000);
});

describe('a query that meets a file overwritten in place before the watch does', () => {
  it('answers data_unavailable, not query_failed', async () => {
    const data = copyOf(SAMPLE_DB, 'finance.db');
    // A watch that would not look for ten minutes by itself: the query finds the damage first.
    const pool = await QueryPool.start({ databasePath: data.file, workers: 1, spare: false, timeoutMs: 60_000, monitorIntervalMs: 600_000, logger: silentLogger() });
    pools.push(pool);
    expect(await valueExists(pool, { table: 'fi_reporting' }, 'compcode', '1000')).toBe(true);
    overwrite(data.file, 0xde);
    const failure = await valueExists(pool, { table: 'fi_reporting' }, 'compcode', '1000').catch((error: unknown) => error);
    expect(ToolError.isInstance(failure) && failure.code).toBe('data_unavailable');
    expect((failure as ToolError).message).not.toContain(data.directory);
    // …and the pool looked at the file at once: the data database is down.
    await until(() => pool.componentHealth().data.status === 'down', 10_000, 'the pool to see the damaged file');
  }, 30_000);
});
