/**
 * POST /tools with two API keys over real HTTP and real query workers: a key over its share of
 * the query queue is answered 503 /problems/busy (reason key_share) with Retry-After, while the
 * other key's query is answered. Proves each key's identity reaches the pool from the tool context.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { temporaryDirectory, twoSourceCatalog, writeCatalog, writeHeavyDatabase } from '../support/catalogFixture.ts';
import { listeningServices } from '../support/listeningService.ts';
import { until } from '../support/until.ts';

const KEY_A = 'fairness-key-a-5e0c7d1b9a2f';
const KEY_B = 'fairness-key-b-3f8a6c2e1d47';


let directory: string;
let dataDb: string;
let catalog: string;
let keysFile: string;
beforeAll(() => {
  directory = temporaryDirectory('tools-fairness-');
  dataDb = writeHeavyDatabase(directory);
  catalog = writeCatalog(directory, twoSourceCatalog());
  keysFile = path.join(directory, 'keys.yaml');
  writeFileSync(keysFile, 'keys:\n  - name: flood-a\n    key_env: FAIR_KEY_A\n  - name: other-b\n    key_env: FAIR_KEY_B\n');
}, 60_000);

const services = listeningServices();
afterEach(() => services.closeAll());

const heavy = { source_a: 'left', source_b: 'right', measure: 'amount', align_on: ['key'] };
const trivial = { source: 'left', filters: { key: 'K000000001' } };
const post = (url: string, key: string, tool: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${url}/tools/${tool}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
const queries = async (url: string) => ((await (await fetch(`${url}/health`)).json()) as { data: { queries: { busy: number; queued: number } } }).data.queries;

describe('POST /tools with two keys', () => {
  it("answers the key over its share of the queue 503 busy (key_share) and still serves the other key's query", async () => {
    // One worker and a queue of 2: each key may have one query waiting.
    const { url } = await services.start({
      LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', DATA_DB: dataDb, CATALOG: catalog, APP_DB: path.join(temporaryDirectory(), 'app.db'),
      RATE_LIMIT_PER_MINUTE: '0', QUERY_WORKERS: '1', QUERY_QUEUE_MAX: '2', QUERY_QUEUE_WAIT_MS: '60000', API_KEYS_FILE: keysFile, FAIR_KEY_A: KEY_A, FAIR_KEY_B: KEY_B,
    });
    const controller = new AbortController();
    const running = post(url, KEY_A, 'compare_sources', heavy, controller.signal).catch(() => undefined);
    await until(async () => (await queries(url)).busy === 1, 10_000, "A's first comparison to run");
    const waiting = post(url, KEY_A, 'compare_sources', heavy, controller.signal).catch(() => undefined);
    await until(async () => (await queries(url)).queued === 1, 10_000, "A's second comparison to wait");
    const refused = await post(url, KEY_A, 'compare_sources', heavy);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    const problem = (await refused.json()) as { type: string; error: { code: string; reason: string; message: string } };
    expect(problem).toMatchObject({ type: '/problems/busy', error: { code: 'busy', reason: 'key_share' } });
    expect(problem.error.message).toMatch(/this API key already has 1 queries waiting/);
    // B is not refused: it waits its turn, ahead of A's waiting comparison, and is answered.
    const other = post(url, KEY_B, 'query_source', trivial);
    await until(async () => (await queries(url)).queued === 2, 10_000, "B's query to wait beside A's");
    // A's comparisons are abandoned: B's query is answered.
    controller.abort();
    const answer = await other;
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { ok: boolean }).ok).toBe(true);
    const metrics = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${KEY_B}` } })).text();
    expect(metrics).toMatch(/^query_pool_rejected_total\{reason="key_share"\} 1$/m);
    await Promise.all([running, waiting]);
  }, 60_000);
});
