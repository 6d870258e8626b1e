/**
 * GET /health over real HTTP: the status of each dependency (data database, application
 * database, query workers) and the overall status, public and never a secret: the
 * model URL is shown without credentials or query string.
 */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { listeningServices } from '../support/listeningService.ts';

const services = listeningServices();
afterEach(() => services.closeAll());

async function start(environment: Record<string, string> = {}): Promise<string> {
  const { url } = await services.start({ LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(temporaryDirectory('health-'), 'app.db'), ...environment });
  return url;
}

describe('GET /health', () => {
  it('reports every dependency ok, to every probe', async () => {
    const url = await start();
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({
      status: 'ok',
      components: { data_database: { status: 'ok' }, app_database: { status: 'ok' }, query_workers: { status: 'ok' } },
      data: { database: 'sample.db', queries: { workers: 2, ready: 2, busy: 0, queued: 0, queue_max: 32 } },
    });
    // A monitor probes often: /health is never rate limited nor queued behind anything.
    // (Its latency, idle and under load, is `npm run bench:latency`'s figure.)
    const probes = await Promise.all(Array.from({ length: 30 }, async () => {
      const probe = await fetch(`${url}/health`);
      return { status: probe.status, body: (await probe.json()) as { status: string } };
    }));
    expect(probes.map((probe) => `${probe.status} ${probe.body.status}`)).toEqual(new Array(30).fill('200 ok'));
  });

  it('shows the model URL without credentials or query string, even to callers without a key', async () => {
    const url = await start({
      OPENAI_BASE_URL: 'http://analyst:secret-password@127.0.0.1:9/v1?token=abc123&api-version=2024#frag',
      OPENAI_API_KEY: 'sk-live-0123456789abcdef',
      API_KEYS: 'k'.repeat(32),
      MODEL_PROVIDER: 'auto',
    });
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(JSON.parse(text).model).toEqual({ provider: 'openai', name: 'gpt-4o-mini', base_url: 'http://127.0.0.1:9/v1' });
    for (const secret of ['secret', 'token', 'abc123', 'analyst:', 'api-version', 'frag', 'sk-live', 'kkkk']) expect(text).not.toContain(secret);
  });
});
