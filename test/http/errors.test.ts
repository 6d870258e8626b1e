import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import express from 'express';
import supertest from 'supertest';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { errorHandler } from '../../src/http/problem.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService } from '../../src/service.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

describe('error responses', () => {
  it('turns a 404 raised inside a route into a not-found problem without leaking server paths', async () => {
    const app = express();
    app.get('/file', () => {
      throw Object.assign(new Error("ENOENT: no such file, stat '/srv/secret/openapi.yaml'"), { status: 404, expose: false });
    });
    app.use(errorHandler(silentLogger()));
    const response = await supertest(app).get('/file');
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(response.body.type).toBe('/problems/not-found');
    expect(response.text).not.toContain('/srv/secret');
  });

  it('answers 500 with the tool error shape when a tool crashes, without its message', async () => {
    const skills = temporaryDirectory();
    mkdirSync(path.join(skills, 'crashy'));
    writeFileSync(path.join(skills, 'crashy', 'SKILL.md'), '---\nname: crashy\ndescription: A skill whose tool always crashes.\nversion: 0.0.1\n---\n');
    writeFileSync(
      path.join(skills, 'crashy', 'index.ts'),
      `import { z } from 'zod';\nimport { defineSkill, defineTool } from '${path.resolve('src/skills/api.ts')}';\nexport default defineSkill({ tools: [defineTool({ name: 'crash', description: 'throws a TypeError every time', input: z.strictObject({}), handler: () => { throw new TypeError('internal detail x.y is undefined'); } })] });\n`,
    );
    const service = await createService(loadConfig({ LOG_LEVEL: 'silent', SKILLS_DIR: skills } as NodeJS.ProcessEnv), silentLogger());
    const response = await supertest(service.app).post('/tools/crash').send({});
    await service.close();
    expect(response.status).toBe(500);
    expect(response.body).toMatchObject({ type: '/problems/internal', tool: 'crash', ok: false, error: { code: 'internal_error' } });
    expect(response.text).not.toContain('x.y is undefined');
  });
});
