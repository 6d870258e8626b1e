import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/skills/api.ts';
import type { Skill } from '../../src/skills/loader.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';
import { sampleToolbox } from '../support/sampleContext.ts';

const skill = (name: string, tools: Skill['tools']): Skill => ({ name, description: 'a test skill', version: '1.0.0', instructions: '', directory: `/skills/${name}`, tools });
const echo = (name: string) => defineTool({ name, description: 'echoes its input back', input: z.strictObject({ text: z.string() }), handler: ({ text }) => ({ text }) });

describe('SkillRegistry', () => {
  let toolbox: Awaited<ReturnType<typeof sampleToolbox>>;
  beforeAll(async () => {
    toolbox = await sampleToolbox();
  });
  afterAll(() => toolbox.close());

  it('maps each tool of the repo skills to its skill, with a JSON schema, then the built-in load_skill', () => {
    const names = toolbox.registry.names();
    expect(names.slice(0, 5)).toEqual(['list_sources', 'query_source', 'compare_sources', 'list_differences', 'explain_difference']);
    expect(names.at(-1)).toBe('load_skill');
    expect(toolbox.registry.get('load_skill')).toMatchObject({ builtin: true, skill: { name: 'builtin' } });
    expect(toolbox.registry.skills.map((s) => s.name)).not.toContain('builtin');
    const query = toolbox.registry.get('query_source')!;
    expect(query.skill.name).toBe('data_analyst');
    expect(query.inputSchema).toMatchObject({ type: 'object', required: ['source'], additionalProperties: false });
  });

  it('stops startup when two skills declare the same tool', () => {
    expect(() => new SkillRegistry([skill('one', [echo('echo')]), skill('two', [echo('echo')])])).toThrow(
      /Duplicate tool name 'echo': declared by skill 'one' \(\/skills\/one\) and skill 'two' \(\/skills\/two\)/,
    );
  });

  it("refuses a skill tool named 'load_skill'", () => {
    expect(() => new SkillRegistry([skill('one', [echo('load_skill')])])).toThrow(/declares the tool 'load_skill', a name reserved/);
  });

  it('ignores the tools of disabled skills, so their names may even clash', () => {
    const registry = new SkillRegistry([skill('one', [echo('echo')]), { ...skill('two', [echo('echo')]), enabled: false }]);
    expect(registry.names()).toEqual(['echo', 'load_skill']);
    expect(registry.get('echo')!.skill.name).toBe('one');
  });

  it('answers an unknown tool with the valid names and the closest one', async () => {
    const outcome = await toolbox.registry.execute('list_source', {}, toolbox.context);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'unknown_tool', closest: 'list_sources', choices: toolbox.registry.names() } });
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

describe('load_skill', () => {
  const instructions = 'Always answer with the echo.\nNever shout.';
  const registry = new SkillRegistry([
    { ...skill('echoes', [echo('echo'), echo('echo_twice')]), instructions, version: '2.0.0', description: 'Repeats what it is told.' },
    { ...skill('sleeping', []), enabled: false },
  ]);
  const context = { logger: { error: () => undefined } } as never;

  it("returns a skill's instructions and its tools' descriptions", async () => {
    expect(await registry.execute('load_skill', { name: 'echoes' }, context)).toEqual({
      ok: true,
      result: {
        skill: 'echoes',
        version: '2.0.0',
        description: 'Repeats what it is told.',
        instructions,
        tools: [
          { name: 'echo', description: 'echoes its input back' },
          { name: 'echo_twice', description: 'echoes its input back' },
        ],
      },
    });
  });

  it('answers an unknown skill with the enabled skills and the closest name', async () => {
    expect(await registry.execute('load_skill', { name: 'echo' }, context)).toMatchObject({
      ok: false,
      error: { code: 'invalid_value', message: "There is no skill named 'echo'.", choices: ['echoes'], closest: 'echoes' },
    });
  });

  it('says when a skill is disabled', async () => {
    expect(await registry.execute('load_skill', { name: 'sleeping' }, context)).toMatchObject({
      ok: false,
      error: { code: 'invalid_value', message: "The skill 'sleeping' is disabled on this service.", choices: ['echoes'] },
    });
  });

  it('validates its arguments like any tool', async () => {
    expect(await registry.execute('load_skill', {}, context)).toMatchObject({ ok: false, error: { code: 'invalid_arguments', hint: "Arguments of 'load_skill': name (required)." } });
  });
});
