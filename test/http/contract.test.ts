import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import express from 'express';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { validateAgainstSpec } from '../../src/http/contract.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

/** An app that answers 200 to anything the spec lets through. */
function appWith(specPath: string) {
  const app = express();
  app.use(express.json());
  app.use(validateAgainstSpec(specPath));
  app.use((_request, response) => response.json({ passed: true }));
  return app;
}
const spec = path.join(projectRoot, 'openapi.yaml');

describe('requests are validated against openapi.yaml', () => {
  it('rejects bodies and query strings the spec does not allow, naming each issue', async () => {
    const api = supertest(appWith(spec));
    const unknown = await api.post('/chat').send({ message: 'hi', foo: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ type: '/problems/invalid-request', errors: [{ path: '(body)', message: "unknown property 'foo'" }] });
    const missing = await api.post('/chat').send({ session_id: 'x' });
    expect(missing.body.errors).toEqual(expect.arrayContaining([{ path: 'message', message: 'is required' }]));
    const query = await api.get('/sessions?limit=abc');
    expect(query.status).toBe(400);
    expect(query.body.errors[0].path).toBe('limit');
    expect((await api.post('/chat').send({ message: 'a fine question' })).body).toEqual({ passed: true });
    expect((await api.get('/sessions?limit=5')).body).toEqual({ passed: true });
  });

  it('follows the spec when the spec changes: it is the one source of truth', async () => {
    const edited = path.join(temporaryDirectory(), 'openapi.yaml');
    writeFileSync(edited, readFileSync(spec, 'utf8').replace('maxLength: 8000', 'maxLength: 10'));
    const api = supertest(appWith(edited));
    const response = await api.post('/chat').send({ message: 'a question longer than ten characters' });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: 'message', message: 'must NOT have more than 10 characters' }]);
  });
});
