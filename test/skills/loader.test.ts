import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.ts';
import { ConfigurationError } from '../../src/errors/index.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { parseManifest } from '../../src/skills/manifest.ts';
import { cachedYaml } from '../../src/shared/yamlCache.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const apiPath = path.resolve('src/skills/api.ts');
const moduleWith = (...tools: string[]) =>
  `import { z } from 'zod';\nimport { defineSkill, defineTool } from '${apiPath}';\nexport default defineSkill({ tools: [${tools
    .map((name) => `defineTool({ name: '${name}', description: 'answers pong to anything', input: z.strictObject({}), handler: () => 'pong' })`)
    .join(', ')}] });\n`;
const validModule = moduleWith('ping_tool');
const manifest = (name: string, extra = '') => `---\nname: ${name}\ndescription: A skill used by the loader tests.\nversion: 1.2.3\n${extra}---\nSay pong.\n`;

function skillFolder(root: string, name: string, skillManifest: string | undefined, module: string | undefined) {
  const directory = path.join(root, name);
  mkdirSync(directory, { recursive: true });
  if (skillManifest !== undefined) writeFileSync(path.join(directory, 'SKILL.md'), skillManifest);
  if (module !== undefined) writeFileSync(path.join(directory, 'index.ts'), module);
}

async function loadError(root: string, options?: Parameters<typeof loadSkills>[1]): Promise<Error> {
  const error = await loadSkills(root, options).catch((e: unknown) => e);
  expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
  return error as Error;
}

describe('loadSkills: discovery', () => {
  it('discovers skill folders sorted by name, reads SKILL.md and imports the tools; ignores _ and . folders', async () => {
    const root = temporaryDirectory();
    skillFolder(root, 'pinger', manifest('pinger', 'tags: [network, test]\n'), validModule);
    skillFolder(root, 'alpha', manifest('alpha'), moduleWith('alpha_tool'));
    skillFolder(root, '_template', undefined, undefined);
    skillFolder(root, '.hidden', undefined, undefined);
    const skills = await loadSkills(root);
    expect(skills.map((s) => [s.name, s.version, s.tags, s.enabled, s.instructions, s.tools.map((t) => t.name)])).toEqual([
      ['alpha', '1.2.3', [], true, 'Say pong.', ['alpha_tool']],
      ['pinger', '1.2.3', ['network', 'test'], true, 'Say pong.', ['ping_tool']],
    ]);
  });

  it('stops startup when SKILLS_DIR is not a directory', async () => {
    expect((await loadError(path.join(temporaryDirectory(), 'missing'))).message).toMatch(/SKILLS_DIR: .*missing is not a directory/);
  });
});

describe('loadSkills: invalid skills', () => {
  it.each([
    ['a folder without SKILL.md', undefined, validModule, /SKILL\.md is missing/],
    ['a name that differs from the folder', manifest('other'), validModule, /SKILL\.md:2: frontmatter name 'other' must equal the folder name 'pinger'/],
    ['no frontmatter', 'just text', validModule, /SKILL\.md:1: must start with a '---' YAML frontmatter block/],
    ['an unclosed frontmatter', '---\nname: pinger\n', validModule, /SKILL\.md:1: the frontmatter block is not closed/],
    ['a missing version', '---\nname: pinger\ndescription: A skill used by the loader tests.\n---\n', validModule, /SKILL\.md:1: frontmatter 'version': is required/],
    ['a version YAML reads as a number', '---\nname: pinger\ndescription: A skill used by the loader tests.\nversion: 1.0\n---\n', validModule, /SKILL\.md:4: frontmatter 'version': must be a version such as '1\.0\.0' \(quote it/],
    ['a misspelt key', manifest('pinger', 'enabeld: false\n'), validModule, /SKILL\.md:5: frontmatter 'enabeld': unknown key \(did you mean 'enabled'\?\)/],
    ['enabled that is not a boolean', manifest('pinger', 'enabled: maybe\n'), validModule, /SKILL\.md:5: frontmatter 'enabled': must be true or false/],
    ['a tag with spaces', manifest('pinger', 'tags:\n  - fine\n  - Not Fine\n'), validModule, /SKILL\.md:7: frontmatter 'tags\.1': each tag must be lowercase/],
    ['invalid YAML', '---\nname: pinger\ndescription: [unclosed\n---\n', validModule, /SKILL\.md:\d: frontmatter is not valid YAML/],
    ['a missing index.ts', manifest('pinger'), undefined, /index\.ts is missing/],
    ['a module that does not load', manifest('pinger'), 'import "./missing.ts";', /index\.ts failed to load/],
    ['a module without tools', manifest('pinger'), 'export default { tools: [] };', /must default-export defineSkill/],
    ['a tool name that is not snake_case', manifest('pinger'), moduleWith('PingTool'), /tools\[0\] \(PingTool\): tool name "PingTool" must be snake_case/],
    ['a tool named like the built-in', manifest('pinger'), moduleWith('load_skill'), /tool name 'load_skill' is reserved/],
  ])('stops startup for %s, naming the file and line', async (_case, skillManifest, module, message) => {
    const root = temporaryDirectory();
    skillFolder(root, 'pinger', skillManifest, module);
    expect((await loadError(root)).message).toMatch(message);
  });

  it('reports every frontmatter problem at once, each with its line', () => {
    const result = parseManifest('---\nname: Bad-Name\ndescription: short\nversion: x\ncolour: red\n---\nbody\n', 'SKILL.md');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => `${p.line}: ${p.message}`)).toEqual([
      "2: frontmatter 'name': must be snake_case (a-z, 0-9 and _, starting with a letter)",
      "3: frontmatter 'description': must say in a sentence what the skill does (at least 10 characters)",
      "4: frontmatter 'version': must be a version such as '1.0.0'",
      "5: frontmatter 'colour': unknown key; the keys are name, description, version, tags, enabled",
    ]);
  });
});

describe('parseManifest: the parse cache', () => {
  it('reads a valid manifest back with its key lines, and an edited one afresh with its problems', () => {
    const marker = `${Date.now()}-${Math.random()}`;
    const text = `---\n# read ${marker}\nname: pinger\ndescription: Answers pong to anything it is asked.\nversion: 1.0.0\ntags: [test]\n---\nSay pong.\n`;
    expect(cachedYaml(text.split('---\n')[1]!.trimEnd(), 'skill-manifest')).toBeUndefined();
    const first = parseManifest(text, 'SKILL.md');
    // Kept under its own kind: the plain value of the same text is another entry.
    expect(cachedYaml(text.split('---\n')[1]!.trimEnd(), 'skill-manifest')).toBeDefined();
    const again = parseManifest(text, 'SKILL.md');
    expect(again).toEqual(first);
    expect(again.ok && again.keyLines).toEqual({ name: 3, description: 4, version: 5, tags: 6 });
    const edited = parseManifest(text.replace('version: 1.0.0', 'version: one'), 'SKILL.md');
    expect(!edited.ok && edited.problems.map((problem) => `${problem.line}: ${problem.message}`)).toEqual(["5: frontmatter 'version': must be a version such as '1.0.0'"]);
  });
});

describe('loadSkills: duplicates', () => {
  it('stops startup when two skill folders declare the same tool, naming both', async () => {
    const root = temporaryDirectory();
    skillFolder(root, 'first', manifest('first'), moduleWith('shared_tool'));
    skillFolder(root, 'second', manifest('second'), moduleWith('own_tool', 'shared_tool'));
    const skills = await loadSkills(root);
    expect(() => new SkillRegistry(skills)).toThrow(
      new RegExp(`Duplicate tool name 'shared_tool': declared by skill 'first' \\(${path.join(root, 'first')}\\) and skill 'second' \\(${path.join(root, 'second')}\\)`),
    );
  });
});

describe('loadSkills: disabled skills', () => {
  it("does not import a skill whose SKILL.md says 'enabled: false', and the registry leaves its tools out", async () => {
    const root = temporaryDirectory();
    skillFolder(root, 'pinger', manifest('pinger'), validModule);
    // Its index.ts would not even load: a disabled skill may be work in progress.
    skillFolder(root, 'unfinished', manifest('unfinished', 'enabled: false\n'), 'import "./missing.ts";');
    const skills = await loadSkills(root);
    expect(skills.map((s) => [s.name, s.enabled, s.disabledBy ?? null, s.tools.length])).toEqual([
      ['pinger', true, null, 1],
      ['unfinished', false, 'manifest', 0],
    ]);
    const registry = new SkillRegistry(skills);
    expect(registry.skills.map((s) => s.name)).toEqual(['pinger']);
    expect(registry.disabledSkills.map((s) => s.name)).toEqual(['unfinished']);
    expect(registry.names()).toEqual(['ping_tool', 'load_skill']);
  });

  it('disables the skills SKILLS_DISABLED names, without importing them or requiring a valid SKILL.md', async () => {
    const root = temporaryDirectory();
    skillFolder(root, 'pinger', manifest('pinger'), validModule);
    skillFolder(root, 'broken', '---\nname: broken\ndescription: A skill that is broken today.\nversion: one\n---\n', 'syntax error here(');
    const config = loadConfig({ SKILLS_DIR: root, SKILLS_DISABLED: ' broken , ' } as NodeJS.ProcessEnv);
    expect(config.skillsDisabled).toEqual(['broken']);
    const skills = await loadSkills(config.skillsDirectory, { disabled: config.skillsDisabled });
    expect(skills.find((s) => s.name === 'broken')).toMatchObject({ enabled: false, disabledBy: 'config', description: 'A skill that is broken today.', version: '', tools: [] });
    expect(new SkillRegistry(skills).names()).toEqual(['ping_tool', 'load_skill']);
  });

  it('stops startup when SKILLS_DISABLED names an unknown skill, listing the skills', async () => {
    const root = temporaryDirectory();
    skillFolder(root, 'pinger', manifest('pinger'), validModule);
    skillFolder(root, 'data_analyst', manifest('data_analyst'), moduleWith('other_tool'));
    const error = await loadError(root, { disabled: ['data_analist', 'nothing_like_it'] });
    expect(error.message).toBe(
      `SKILLS_DISABLED names skills that do not exist: 'data_analist', 'nothing_like_it'. Did you mean 'data_analyst'? The skills in ${root} are: data_analyst, pinger.`,
    );
  });

  it('reads SKILLS_RELOAD as a boolean and refuses anything else', () => {
    expect(loadConfig({} as NodeJS.ProcessEnv).skillsReload).toBe(false);
    expect(loadConfig({ SKILLS_RELOAD: 'true' } as NodeJS.ProcessEnv).skillsReload).toBe(true);
    expect(loadConfig({ SKILLS_RELOAD: '0' } as NodeJS.ProcessEnv).skillsReload).toBe(false);
    expect(() => loadConfig({ SKILLS_RELOAD: 'yes' } as NodeJS.ProcessEnv)).toThrow(/SKILLS_RELOAD: must be 'true' or 'false' \(got 'yes'\)/);
  });
});
