/**
 * A skill's durable records through the running service (ToolContext.records): a tool called
 * over POST /tools saves a record, a second service on the same APP_DB (a restart) reads it
 * back, and another skill's tool never sees it. The skill is a temporary folder importing only
 * the SDK, as a newcomer's would.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { temporarySkillsDirectory } from '../../src/skills/testing.ts';
import { projectRoot } from '../../src/config/config.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const sdk = JSON.stringify(path.join(projectRoot, 'src/skills/api.ts'));

/** A skill `name` with a tool saving a note and one reading a note (in its own records). */
function writeNotesSkill(skillsDirectory: string, name: string): void {
  const directory = path.join(skillsDirectory, name);
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, 'SKILL.md'), `---\nname: ${name}\ndescription: Keeps notes between calls, for the records test.\nversion: 0.1.0\n---\nSave a note with ${name}_save, read it with ${name}_read.\n`);
  writeFileSync(
    path.join(directory, 'index.ts'),
    `import { z } from 'zod';
import { defineSkill, defineTool, ToolError } from ${sdk};

const save = defineTool({
  name: '${name}_save',
  description: 'Save a note under an id.',
  writes: true,
  input: z.strictObject({ id: z.string(), text: z.string() }),
  output: z.object({ version: z.number() }),
  async handler({ id, text }, { records }) {
    if (!records) throw new ToolError('internal_error', 'no records in this context');
    return { version: (await records.put('notes', id, { text })).version };
  },
});

const read = defineTool({
  name: '${name}_read',
  description: 'Read the note saved under an id.',
  input: z.strictObject({ id: z.string() }),
  output: z.object({ text: z.string().nullable(), version: z.number().nullable() }),
  async handler({ id }, { records }) {
    const note = await records?.get<{ text: string }>('notes', id);
    return { text: note?.value.text ?? null, version: note?.version ?? null };
  },
});

const saveIfUnchanged = defineTool({
  name: '${name}_save_if',
  description: 'Save a note only if it is still at the version given.',
  writes: true,
  input: z.strictObject({ id: z.string(), text: z.string(), version: z.number() }),
  output: z.object({ version: z.number() }),
  async handler({ id, text, version }, { records }) {
    return { version: (await records!.put('notes', id, { text }, { version })).version };
  },
});

export default defineSkill({ tools: [save, read, saveIfUnchanged] });
`,
  );
}

const services: Service[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

async function start(skillsDirectory: string, appDatabase: string): Promise<Service> {
  const config = loadConfig({ SKILLS_DIR: skillsDirectory, LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: appDatabase } as NodeJS.ProcessEnv);
  const service = await createService(config, silentLogger());
  services.push(service);
  return service;
}

describe("a skill's records in the service", () => {
  it('outlive a restart on the same APP_DB, and stay with the skill that wrote them', async () => {
    const skillsDirectory = temporarySkillsDirectory('records-');
    writeNotesSkill(skillsDirectory, 'close_notes');
    writeNotesSkill(skillsDirectory, 'other_notes');
    const appDatabase = path.join(temporaryDirectory('records-app-'), 'app.db');

    const first = await start(skillsDirectory, appDatabase);
    const saved = await request(first.app).post('/tools/close_notes_save').send({ id: 'fi-vs-bpc', text: 'explained by the December delta load' });
    expect(saved.status).toBe(200);
    expect(saved.body.result).toEqual({ version: 1 });
    expect((await request(first.app).post('/tools/close_notes_save').send({ id: 'fi-vs-bpc', text: 'reversal posted' })).body.result).toEqual({ version: 2 });
    await first.close();
    services.splice(services.indexOf(first), 1);

    const second = await start(skillsDirectory, appDatabase);
    expect((await request(second.app).post('/tools/close_notes_read').send({ id: 'fi-vs-bpc' })).body.result).toEqual({ text: 'reversal posted', version: 2 });
    // Another skill reads its own records: the same collection and id hold nothing there.
    expect((await request(second.app).post('/tools/other_notes_read').send({ id: 'fi-vs-bpc' })).body.result).toEqual({ text: null, version: null });
  }, 60_000);

  it('answers conflict, writing nothing, when a record changed since the version a tool names', async () => {
    const skillsDirectory = temporarySkillsDirectory('records-conflict-');
    writeNotesSkill(skillsDirectory, 'close_notes');
    const service = await start(skillsDirectory, path.join(temporaryDirectory('records-conflict-app-'), 'app.db'));
    await request(service.app).post('/tools/close_notes_save').send({ id: 'fi-vs-bpc', text: 'first' });
    await request(service.app).post('/tools/close_notes_save').send({ id: 'fi-vs-bpc', text: 'second' });
    const stale = await request(service.app).post('/tools/close_notes_save_if').send({ id: 'fi-vs-bpc', text: 'stale', version: 1 });
    expect(stale.status).toBe(422);
    expect(stale.body.error).toMatchObject({ code: 'conflict', collection: 'notes', id: 'fi-vs-bpc', found: 2 });
    expect((await request(service.app).post('/tools/close_notes_read').send({ id: 'fi-vs-bpc' })).body.result).toEqual({ text: 'second', version: 2 });
  }, 60_000);

  it('tells MCP clients that a tool declaring `writes` is not read-only, and that the others are', async () => {
    const skillsDirectory = temporarySkillsDirectory('records-mcp-');
    writeNotesSkill(skillsDirectory, 'close_notes');
    const service = await start(skillsDirectory, path.join(temporaryDirectory('records-mcp-app-'), 'app.db'));
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const listed = await request(service.app)
      .post('/mcp')
      .set({ accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' })
      .send({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } });
    expect(listed.status).toBe(200);
    const annotations = (name: string) => (listed.body.result.tools as { name: string; annotations: Record<string, unknown> }[]).find((tool) => tool.name === name)?.annotations;
    expect(annotations('close_notes_save')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(annotations('close_notes_read')).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
  }, 60_000);
});
