/**
 * POST /tools under load and faults, over real HTTP (a service listening on 127.0.0.1) with real
 * query worker processes: clients that hang up free the pool, a full queue answers 503 with
 * Retry-After, and a data database that vanishes at run time is reported and refused without
 * a restart loop until it is back. How fast is `npm run bench:latency`'s question.
 */
import { copyFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../../src/service.ts';
import { temporaryDirectory, twoSourceCatalog, writeCatalog, writeHeavyDatabase } from '../support/catalogFixture.ts';
import { listeningServices } from '../support/listeningService.ts';
import { until } from '../support/until.ts';


let directory: string;
let dataDb: string;
let catalog: string;
beforeAll(() => {
  directory = temporaryDirectory('tools-load-');
  dataDb = writeHeavyDatabase(directory);
  catalog = writeCatalog(directory, twoSourceCatalog());
}, 60_000);

const services = listeningServices();
afterEach(() => services.closeAll());

function start(environment: Record<string, string> = {}): Promise<{ service: Service; url: string }> {
  return services.start({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', DATA_DB: dataDb, CATALOG: catalog, APP_DB: path.join(temporaryDirectory(), 'app.db'), RATE_LIMIT_PER_MINUTE: '0', ...environment });
}

const heavy = { source_a: 'left', source_b: 'right', measure: 'amount', align_on: ['key'] };
const trivial = { source: 'left', filters: { key: 'K000000001' } };
const post = (url: string, tool: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${url}/tools/${tool}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
const health = async (url: string) => (await fetch(`${url}/health`)).json() as Promise<any>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('POST /tools with clients that hang up', () => {
  it('frees the pool: queued queries leave, running ones stop, the next query is answered', async () => {
    const { service, url } = await start({ QUERY_WORKERS: '2', QUERY_QUEUE_WAIT_MS: '600000' });
    const controller = new AbortController();
    const abandoned = Array.from({ length: 12 }, () => post(url, 'compare_sources', heavy, controller.signal).catch(() => 'aborted'));
    await until(async () => {
      const { queries } = (await health(url)).data;
      return queries.busy === 2 && queries.queued === 10;
    }, 20_000, 'two comparisons running and ten waiting');
    controller.abort();
    expect(await Promise.all(abandoned)).toEqual(new Array(12).fill('aborted'));
    await until(async () => {
      const { queries } = (await health(url)).data;
      return queries.busy === 0 && queries.queued === 0;
    }, 20_000, 'an idle pool');
    // Cancelled, not run to the end: the ten waiting left the queue, the two running were
    // stopped (finished within the grace period or killed after it).
    const { cancelled } = service.queries.counters();
    expect(cancelled.queued).toBe(10);
    expect(cancelled.finished + cancelled.killed).toBe(2);
    const response = await post(url, 'query_source', trivial);
    expect(response.status).toBe(200);
  }, 60_000);

  it('answers 503 /problems/busy with Retry-After when the queue is full', async () => {
    // A queue wait longer than the test's timeout: only a refusal for a full queue answers in time.
    const { url } = await start({ QUERY_WORKERS: '1', QUERY_QUEUE_MAX: '1', QUERY_QUEUE_WAIT_MS: '600000' });
    const controller = new AbortController();
    const first = post(url, 'compare_sources', heavy, controller.signal).catch(() => undefined);
    await until(async () => (await health(url)).data.queries.busy === 1, 20_000, 'the first comparison to run');
    const second = post(url, 'compare_sources', heavy, controller.signal).catch(() => undefined);
    await until(async () => (await health(url)).data.queries.queued === 1, 20_000, 'the second to wait');
    const refused = await post(url, 'query_source', trivial);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await refused.json()) as any;
    expect(problem).toMatchObject({ type: '/problems/busy', status: 503, tool: 'query_source', ok: false, retry_after: Number(refused.headers.get('retry-after')) });
    expect(problem.error).toMatchObject({ code: 'busy', reason: 'queue_full', hint: expect.stringMatching(/^Retry in/) });
    const { components } = await health(url);
    expect(components.query_workers).toMatchObject({ status: 'degraded', reason: expect.stringMatching(/queue is full/) });
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^query_pool_rejected_total\{reason="queue_full"\} 1$/m);
    expect(metrics).toMatch(/^query_pool_queued 1$/m);
    expect(metrics).toMatch(/^dependency_status\{component="query_workers",status="degraded"\} 1$/m);
    controller.abort();
    await Promise.all([first, second]);
  }, 30_000);
});

describe('a data database that disappears at run time', () => {
  it('is reported down, refused with 503 data_unavailable, not restarted in a loop, and back when restored', async () => {
    const file = path.join(temporaryDirectory('data-vanish-'), 'data.db');
    copyFileSync(dataDb, file);
    // A query timeout longer than the test's: a query that tried the missing file would not answer in time.
    const { service, url } = await start({ DATA_DB: file, QUERY_WORKERS: '2', QUERY_TIMEOUT_MS: '600000' });
    expect(await health(url)).toMatchObject({ status: 'ok', components: { data_database: { status: 'ok' }, query_workers: { status: 'ok' } } });
    rmSync(file);
    await until(async () => (await fetch(`${url}/health`)).status === 503, 20_000, '/health to say down');
    const report = await health(url);
    expect(report).toMatchObject({ status: 'down', components: { data_database: { status: 'down', reason: 'the data database data.db (DATA_DB) is missing' } } });
    expect(JSON.stringify(report)).not.toContain(directory);

    // Refused as unavailable, not run into a worker that cannot open the file.
    const refused = await post(url, 'query_source', trivial);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(await refused.json()).toMatchObject({ type: '/problems/data-unavailable', error: { code: 'data_unavailable' } });

    // A worker that dies meanwhile leaves its place empty: nothing is restarted in a loop while the file is missing.
    const restarts = report.data.queries.restarts;
    process.kill(service.queries.workerPids().find((pid) => pid !== undefined)!, 'SIGKILL');
    await sleep(3_000);
    expect((await health(url)).data.queries.restarts - restarts).toBeLessThanOrEqual(1);

    copyFileSync(dataDb, file);
    await until(async () => (await health(url)).status === 'ok', 20_000, '/health to say ok');
    expect((await post(url, 'query_source', trivial)).status).toBe(200);
  }, 90_000);
});
