import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

let service: Service;
beforeAll(async () => {
  const environment = { LOG_LEVEL: 'silent', APP_DB: `${temporaryDirectory()}/app.db`, CORS_ORIGINS: 'https://dashboards.example.com, http://localhost:8080/' };
  service = await createService(loadConfig(environment as NodeJS.ProcessEnv), silentLogger());
});
afterAll(async () => {
  await service.close();
});

describe('CORS', () => {
  it('lets an allowed dashboard origin call the API, with the request id readable', async () => {
    const preflight = await supertest(service.app)
      .options('/chat')
      .set('Origin', 'https://dashboards.example.com')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type, authorization');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://dashboards.example.com');
    expect(preflight.headers['access-control-allow-headers']).toMatch(/authorization/);
    const call = await supertest(service.app).post('/tools/list_sources').set('Origin', 'http://localhost:8080').send({});
    expect(call.headers['access-control-allow-origin']).toBe('http://localhost:8080');
    expect(call.headers['access-control-expose-headers']).toMatch(/x-request-id/);
  });

  it('gives other origins no access header, so browsers refuse the response', async () => {
    const call = await supertest(service.app).post('/tools/list_sources').set('Origin', 'https://evil.example.net').send({});
    expect(call.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses an origin that is not a URL at startup', () => {
    expect(() => loadConfig({ CORS_ORIGINS: 'dashboards.example.com' } as NodeJS.ProcessEnv)).toThrow(/CORS_ORIGINS: each origin must be an http\(s\) origin/);
  });
});
