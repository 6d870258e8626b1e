import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError } from '../../src/errors/index.ts';
import { defineTool } from '../../src/skills/api.ts';
import { loadSkills, type Skill } from '../../src/skills/loader.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { sampleToolbox } from '../support/sampleContext.ts';

const skill = (name: string, tools: Skill['tools']): Skill => ({ name, description: 'a test skill', version: '1.0.0', instructions: '', directory: `/skills/${name}`, tools });
const echo = (name: string) => defineTool({ name, description: 'echoes its input back', input: z.strictObject({ text: z.string() }), handler: ({ text }) => ({ text }) });

describe('SkillRegistry', () => {
  let toolbox: Awaited<ReturnType<typeof sampleToolbox>>;
  beforeAll(async () => {
    toolbox = await sampleToolbox();
  });
  afterAll(() => toolbox.close());

  it('maps each tool of the repo skills to its skill, with a JSON schema', () => {
    expect(toolbox.registry.names()).toEqual(['list_sources', 'query_source', 'compare_sources', 'list_differences', 'explain_difference']);
    const query = toolbox.registry.get('query_source')!;
    expect(query.skill.name).toBe('data_analyst');
    expect(query.inputSchema).toMatchObject({ type: 'object', required: ['source'], additionalProperties: false });
  });

  it('stops startup when two skills declare the same tool', () => {
    expect(() => new SkillRegistry([skill('one', [echo('echo')]), skill('two', [echo('echo')])])).toThrow(
      /Duplicate tool name 'echo': declared by skill 'one' \(\/skills\/one\) and skill 'two' \(\/skills\/two\)/,
    );
  });

  it('answers an unknown tool with the valid names and the closest one', async () => {
    const outcome = await toolbox.registry.execute('list_source', {}, toolbox.context);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'unknown_tool', closest: 'list_sources', choices: ['list_sources', 'query_source', 'compare_sources', 'list_differences', 'explain_difference'] } });
    if (!outcome.ok) expect(outcome.error.hint).toContain("Did you mean 'list_sources'?");
  });

  it('answers malformed JSON arguments without throwing', async () => {
    const outcome = await toolbox.registry.execute('query_source', '{"source": "fi_rep', toolbox.context);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'malformed_arguments', received: '{"source": "fi_rep' } });
  });

  it('lists each validation issue with its argument path and suggests misspelt argument names', async () => {
    const outcome = await toolbox.registry.execute('query_source', { source: 'fi_reporting', limit: 'ten', filter: {} }, toolbox.context);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.code).toBe('invalid_arguments');
    const issues = outcome.error.issues as { path: string; message: string }[];
    expect(issues).toContainEqual({ path: 'limit', message: expect.stringMatching(/number/) });
    expect(issues).toContainEqual({ path: '(arguments)', message: "'filter' is not an argument (did you mean 'filters'?)" });
    expect(outcome.error.hint).toContain('source (required)');
  });

  it('hides unexpected handler failures behind an internal_error without details', async () => {
    const failing = defineTool({
      name: 'explode',
      description: 'always throws a plain error',
      input: z.strictObject({}),
      handler: () => {
        throw new Error('secret internals at /srv/app.ts:12');
      },
    });
    const registry = new SkillRegistry([skill('bad', [failing])]);
    const outcome = await registry.execute('explode', {}, toolbox.context);
    expect(outcome).toEqual({ ok: false, error: expect.objectContaining({ code: 'internal_error' }) });
    expect(JSON.stringify(outcome)).not.toContain('secret');
  });
});

describe('loadSkills', () => {
  function skillFolder(root: string, name: string, manifest: string | undefined, module: string | undefined) {
    const directory = path.join(root, name);
    mkdirSync(directory, { recursive: true });
    if (manifest !== undefined) writeFileSync(path.join(directory, 'SKILL.md'), manifest);
    if (module !== undefined) writeFileSync(path.join(directory, 'index.ts'), module);
  }
  const apiPath = path.resolve('src/skills/api.ts');
  const validModule = `import { z } from 'zod';\nimport { defineSkill, defineTool } from '${apiPath}';\nexport default defineSkill({ tools: [defineTool({ name: 'ping_tool', description: 'answers pong to anything', input: z.strictObject({}), handler: () => 'pong' })] });\n`;
  const manifest = (name: string) => `---\nname: ${name}\ndescription: A skill used by the loader tests.\nversion: 1.2.3\n---\nSay pong.\n`;

  it('discovers skill folders, reads SKILL.md and imports the tools; ignores _ and . folders', async () => {
    const root = temporaryDirectory();
    skillFolder(root, 'pinger', manifest('pinger'), validModule);
    skillFolder(root, '_template', undefined, undefined);
    const skills = await loadSkills(root);
    expect(skills.map((s) => [s.name, s.version, s.instructions, s.tools.map((t) => t.name)])).toEqual([['pinger', '1.2.3', 'Say pong.', ['ping_tool']]]);
  });

  it.each([
    ['a folder without SKILL.md', undefined, validModule, /SKILL\.md is missing/],
    ['a name that differs from the folder', manifest('other'), validModule, /frontmatter name 'other' must equal the folder name 'pinger'/],
    ['no frontmatter', 'just text', validModule, /must start with a '---' YAML frontmatter block/],
    ['a missing version', '---\nname: pinger\ndescription: A skill used by the loader tests.\n---\n', validModule, /frontmatter 'version'/],
    ['a module that does not load', manifest('pinger'), 'import "./missing.ts";', /index\.ts failed to load/],
    ['a module without tools', manifest('pinger'), 'export default { tools: [] };', /must default-export defineSkill/],
  ])('stops startup for %s', async (_case, skillManifest, module, message) => {
    const root = temporaryDirectory();
    skillFolder(root, 'pinger', skillManifest, module);
    const error = await loadSkills(root).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(message);
  });
});
