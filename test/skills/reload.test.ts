import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { createService, type Service } from '../../src/service.ts';
import { watchSkills } from '../../src/skills/reload.ts';
import { scaffoldSkill } from '../../src/skills/scaffold.ts';
import { temporarySkillsDirectory } from '../../src/skills/testing.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { startMockOpenAI, type MockOpenAI } from '../support/mockOpenAI.ts';

/** A logger whose JSON lines the test can read. */
function recordingLogger() {
  const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

const edit = (file: string, from: string | RegExp, to: string) => {
  const text = readFileSync(file, 'utf8');
  const changed = text.replace(from, to);
  expect(changed, `edit of ${file}`).not.toBe(text);
  writeFileSync(file, changed);
};

describe('watchSkills', () => {
  it('reloads once after a burst of edits, and keeps going after a failed reload', async () => {
    const directory = temporaryDirectory();
    const { logger, lines } = recordingLogger();
    let calls = 0;
    let fail = false;
    const watcher = watchSkills({
      directory,
      logger,
      debounceMs: 100,
      reload: async () => {
        calls += 1;
        if (fail) throw new Error('index.ts: Unexpected "}"');
        return { skills: ['a'] };
      },
    });
    try {
      for (let index = 0; index < 5; index += 1) writeFileSync(path.join(directory, `file${index}.ts`), 'x');
      await vi.waitFor(() => expect(watcher.attempts).toBe(1), { timeout: 20_000 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(calls).toBe(1);
      expect(lines.find((l) => l.msg === 'skills reloaded')).toMatchObject({ skills: ['a'] });

      fail = true;
      writeFileSync(path.join(directory, 'file0.ts'), 'y');
      await vi.waitFor(() => expect(watcher.attempts).toBe(2), { timeout: 20_000 });
      expect(watcher.reloads).toBe(1);
      expect(lines.find((l) => l.level === 50)?.msg).toBe('skills reload failed; the previous skills stay in use: index.ts: Unexpected "}"');

      fail = false;
      writeFileSync(path.join(directory, 'file0.ts'), 'z');
      await vi.waitFor(() => expect(watcher.reloads).toBe(2), { timeout: 20_000 });
      // Editor backup and swap files do not trigger a reload.
      writeFileSync(path.join(directory, 'file0.ts~'), 'backup');
      writeFileSync(path.join(directory, '.file0.ts.swp'), 'swap');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(watcher.attempts).toBe(3);
    } finally {
      watcher.close();
    }
  }, 90_000);
});

describe('SKILLS_RELOAD=true', () => {
  const skillsDirectory = temporarySkillsDirectory('reload-');
  const ledger = path.join(skillsDirectory, 'ledger');
  let mock: MockOpenAI;
  let service: Service;
  const recorded = recordingLogger();

  beforeAll(async () => {
    scaffoldSkill({ name: 'ledger', skillsDirectory });
    mock = await startMockOpenAI();
    const config = loadConfig({
      SKILLS_DIR: skillsDirectory,
      SKILLS_RELOAD: 'true',
      LOG_LEVEL: 'silent',
      OPENAI_BASE_URL: mock.url,
      OPENAI_API_KEY: 'test-key',
      OPENAI_MODEL: 'mock-model',
      MODEL_MAX_RETRIES: '0',
      APP_DB: path.join(temporaryDirectory(), 'app.db'),
    } as NodeJS.ProcessEnv);
    service = await createService(config, recorded.logger);
  });
  afterAll(async () => {
    await service.close();
    await mock.close();
  });

  const skillsNow = async () => (await request(service.app).get('/skills')).body.skills as { name: string; description: string; version: string; tools: { name: string; description: string }[] }[];
  /** One chat through the mock model; returns the system prompt and tool names it was sent. */
  const modelSees = async () => {
    mock.reset();
    mock.enqueue({ content: 'ok' });
    const response = await request(service.app).post('/chat').send({ message: 'hello' });
    expect(response.status).toBe(200);
    const body = mock.requests[0]!.body as { messages: { content: string }[]; tools: { function: { name: string } }[] };
    // Tools are bound on demand: the first call has load_skill only; the registry lists every tool.
    return { prompt: body.messages[0]!.content, tools: body.tools.map((t) => t.function.name), registered: service.registry.names() };
  };

  it('applies edits to SKILL.md, to files index.ts imports, and new skills without a restart', async () => {
    expect(await modelSees()).toMatchObject({ tools: ['load_skill'], registered: ['ledger_dimension_values', 'load_skill'] });

    edit(path.join(ledger, 'SKILL.md'), /^description: .*$/m, 'description: Answers questions about the general ledger.');
    edit(path.join(ledger, 'dimensionValues.ts'), 'List the distinct values', 'RELOADED: list the distinct values');
    scaffoldSkill({ name: 'payables', skillsDirectory });
    await vi.waitFor(
      async () => {
        const skills = await skillsNow();
        expect(skills.map((s) => s.name)).toEqual(['ledger', 'payables']);
        expect(skills[0]!.description).toBe('Answers questions about the general ledger.');
        expect(skills[0]!.tools[0]!.description).toMatch(/^RELOADED: /);
      },
      { timeout: 45_000, interval: 100 },
    );
    const sees = await modelSees();
    expect(sees.prompt).toContain('- ledger: Answers questions about the general ledger. Tools: ledger_dimension_values.');
    expect(sees.prompt).toContain('- payables: ');
    expect(sees).toMatchObject({ tools: ['load_skill'], registered: ['ledger_dimension_values', 'payables_dimension_values', 'load_skill'] });
    const run = await request(service.app).post('/tools/payables_dimension_values').send({ source: 'fi_reporting', dimension: 'company', limit: 1 });
    expect(run.body).toMatchObject({ ok: true, result: { values: ['1000'], truncated: true } });
  }, 120_000);

  it('logs a broken edit and keeps serving the previous skills until it is fixed', async () => {
    const before = await skillsNow();
    const failures = () => recorded.lines.filter((l) => l.msg.startsWith('skills reload failed')).length;
    const failed = failures();
    const index = path.join(ledger, 'index.ts');
    const good = readFileSync(index, 'utf8');
    writeFileSync(index, `${good}\nexport const broken = ;\n`);
    await vi.waitFor(() => expect(failures()).toBe(failed + 1), { timeout: 45_000, interval: 50 });
    expect(recorded.lines.filter((l) => l.msg.startsWith('skills reload failed')).at(-1)!.msg).toMatch(/Skill ledger: .*index\.ts failed to load/);
    expect(await skillsNow()).toEqual(before);
    expect((await request(service.app).post('/tools/ledger_dimension_values').send({ source: 'fi_reporting', dimension: 'company' })).status).toBe(200);

    writeFileSync(index, good.replace('tools: [dimensionValues]', 'tools: [dimensionValues],\n  // fixed'));
    edit(path.join(ledger, 'SKILL.md'), 'version: 0.1.0', 'version: 0.2.0');
    await vi.waitFor(async () => expect((await skillsNow())[0]!.version).toBe('0.2.0'), { timeout: 45_000, interval: 100 });
  }, 120_000);
});
