import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { checkSkills, formatProblems } from '../../src/skills/check.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { scaffoldSkill } from '../../src/skills/scaffold.ts';
import { temporarySkillsDirectory } from '../../src/skills/testing.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const apiPath = path.join(projectRoot, 'src/skills/api.ts');
const manifest = (name: string, extra = '', body = 'Use the tools.') => `---\nname: ${name}\ndescription: A skill used by the checker tests.\nversion: 1.0.0\n${extra}---\n${body}\n`;
const tool = (name: string, options: { description?: string; input?: string } = {}) =>
  `defineTool({\n  name: '${name}',\n  description: ${JSON.stringify(options.description ?? 'answers pong to anything')},\n  input: ${options.input ?? 'z.strictObject({})'},\n  handler: () => 'pong',\n})`;
const toolFile = (variable: string, definition: string) => `import { z } from 'zod';\nimport { defineTool } from '${apiPath}';\n\nexport const ${variable} = ${definition};\n`;
const indexFile = (variables: string[]) =>
  `import { defineSkill } from '${apiPath}';\n${variables.map((v) => `import { ${v} } from './${v}.ts';`).join('\n')}\n\nexport default defineSkill({ tools: [${variables.join(', ')}] });\n`;

/** Writes a skill folder: SKILL.md, one file per tool, index.ts, and optionally a test naming tools. */
function writeSkill(root: string, name: string, options: { manifest?: string; tools?: Record<string, string>; tested?: string[]; index?: string }) {
  const directory = path.join(root, name);
  mkdirSync(path.join(directory, 'test'), { recursive: true });
  if (options.manifest !== undefined) writeFileSync(path.join(directory, 'SKILL.md'), options.manifest);
  const tools = options.tools ?? {};
  for (const [variable, definition] of Object.entries(tools)) writeFileSync(path.join(directory, `${variable}.ts`), toolFile(variable, definition));
  writeFileSync(path.join(directory, 'index.ts'), options.index ?? indexFile(Object.keys(tools)));
  if (options.tested) writeFileSync(path.join(directory, 'test', `${name}.test.ts`), `// ${options.tested.map((t) => `'${t}'`).join(', ')}\n`);
  return directory;
}

const check = (root: string) => checkSkills(root, { testDirectories: [] });
const lines = (problems: Awaited<ReturnType<typeof check>>['problems'], root: string) =>
  problems.map((p) => `${path.relative(root, p.file)}:${p.line}: ${p.message}`);

describe('skill:check on the repository', () => {
  it('passes the data_analyst skill: every tool is declared well and tested', async () => {
    const report = await checkSkills(path.join(projectRoot, 'skills'));
    expect(report.skills.find((s) => s.name === 'data_analyst')?.tools).toEqual(['list_sources', 'query_source', 'compare_sources', 'list_differences', 'explain_difference']);
    expect(formatProblems(report.problems.filter((p) => p.file.includes(`${path.sep}data_analyst${path.sep}`)))).toEqual([]);
  });

  it('passes every skill in skills/, each tool definition within its token budget', async () => {
    const report = await checkSkills(path.join(projectRoot, 'skills'));
    expect(formatProblems(report.problems)).toEqual([]);
    expect(formatProblems(report.warnings)).toEqual([]);
  });
});

describe('skill:check', () => {
  it('accepts a well-formed skill whose tools are named in a test of its folder', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'pinger', { manifest: manifest('pinger'), tools: { ping: tool('ping_tool') }, tested: ['ping_tool'] });
    expect(await check(root)).toEqual({ skills: [{ name: 'pinger', directory: path.join(root, 'pinger'), enabled: true, tools: ['ping_tool'] }], problems: [], warnings: [] });
  });

  it('requires a test for each tool, at the line declaring it; tests under the given folders count too', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'pinger', { manifest: manifest('pinger'), tools: { ping: tool('ping_tool'), pong: tool('pong_tool') }, tested: ['ping_tool'] });
    expect(lines((await check(root)).problems, root)).toEqual([
      `pinger/pong.ts:5: tool 'pong_tool' has no test: no *.test.ts in ${path.join(root, 'pinger')}/ mentions 'pong_tool'`,
    ]);
    const shared = temporaryDirectory();
    writeFileSync(path.join(shared, 'pong.test.ts'), "await api.post('/tools/pong_tool');\n");
    expect((await checkSkills(root, { testDirectories: [shared] })).problems).toEqual([]);
  });

  it('reports frontmatter problems and missing instructions at their lines in SKILL.md', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'pinger', { manifest: '---\nname: pinger\ndescription: short\nversion: 1.0.0\ntags: [ok, Not OK]\nenable: true\n---\n\n', tools: { ping: tool('ping_tool') }, tested: ['ping_tool'] });
    writeSkill(root, 'quiet', { manifest: manifest('quiet', '', ''), tools: { hush: tool('hush_tool') }, tested: ['hush_tool'] });
    writeSkill(root, 'renamed', { manifest: manifest('other_name'), tools: { x: tool('renamed_tool') }, tested: ['renamed_tool'] });
    expect(lines((await check(root)).problems, root)).toEqual([
      "pinger/SKILL.md:3: frontmatter 'description': must say in a sentence what the skill does (at least 10 characters)",
      "pinger/SKILL.md:5: frontmatter 'tags.1': each tag must be lowercase letters, digits, - or _",
      "pinger/SKILL.md:6: frontmatter 'enable': unknown key (did you mean 'enabled'?); the keys are name, description, version, tags, enabled",
      'quiet/SKILL.md:6: SKILL.md has no instructions after the frontmatter: write what the model must know to use the tools (load_skill returns it)',
      "renamed/SKILL.md:2: frontmatter name 'other_name' must equal the folder name 'renamed'",
    ]);
  });

  it("refuses the placeholder description 'npm run skill:new' writes, at its line", async () => {
    const root = temporaryDirectory();
    const { directory } = scaffoldSkill({ name: 'cash_notes', skillsDirectory: root });
    const problems = lines((await checkSkills(root, { testDirectories: [] })).problems, root);
    expect(problems).toEqual([
      "cash_notes/SKILL.md:3: frontmatter 'description' is still the placeholder 'npm run skill:new' wrote: say in one line what cash_notes does (it is the skill's line in the system prompt)",
    ]);
    expect(path.basename(directory)).toBe('cash_notes');
  });

  it('reports what the loader refuses at startup in the same words: a question form without plan()', async () => {
    const root = temporaryDirectory();
    const index = `import { defineSkill } from '${apiPath}';\nimport { ping } from './ping.ts';\n\nexport default defineSkill({ tools: [ping], questions: [{ name: 'q' }] as never });\n`;
    writeSkill(root, 'pinger', { manifest: manifest('pinger'), tools: { ping: tool('ping_tool') }, tested: ['ping_tool'], index });
    expect(lines((await check(root)).problems, root)).toEqual([
      'pinger/index.ts:4: questions[0]: a question form needs a name, examples, score() and plan() (see defineQuestionForm)',
    ]);
    await expect(loadSkills(root)).rejects.toThrow(/questions\[0\]: a question form needs a name, examples, score\(\) and plan\(\)/);
  });

  it("reports tool problems at the line of the tool's name, in the file declaring it", async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'tools', {
      manifest: manifest('tools'),
      tools: {
        camel: tool('CamelTool'),
        terse: tool('terse_tool', { description: 'short' }),
        wordy: tool('wordy_tool', { description: 'x'.repeat(1100) }),
        scalar: tool('scalar_tool', { input: 'z.string()' }),
        plain: tool('plain_tool', { input: '{ type: "object" } as never' }),
        reserved: tool('load_skill'),
      },
      tested: ['CamelTool', 'terse_tool', 'wordy_tool', 'scalar_tool', 'plain_tool', 'load_skill'],
    });
    expect(lines((await check(root)).problems, root)).toEqual([
      'tools/camel.ts:5: tool \'CamelTool\': tool name "CamelTool" must be snake_case (a-z, 0-9 and _, starting with a letter), at most 64 characters',
      "tools/terse.ts:5: tool 'terse_tool': description must tell the model what the tool does (at least 10 characters)",
      "tools/wordy.ts:5: tool 'wordy_tool': description is 1100 characters; models accept at most 1024 (move details to SKILL.md)",
      'tools/scalar.ts:5: tool \'scalar_tool\': input must be an object schema (z.strictObject({ ... })): models send tool arguments as a JSON object, got "string"',
      "tools/plain.ts:5: tool 'plain_tool': input must be a zod schema, e.g. z.strictObject({ ... })",
      "tools/reserved.ts:5: tool 'load_skill': tool name 'load_skill' is reserved for the service's built-in tool; choose another name",
    ]);
  });

  it('warns, without failing, when a tool definition is over its token budget, at the line of its name', async () => {
    const root = temporaryDirectory();
    const longWinded = 'Answers pong. '.repeat(72);
    const documented = 'z.strictObject({ target: z.string().describe(' + JSON.stringify('the host to ping; '.repeat(60)) + ') })';
    writeSkill(root, 'chatty', {
      manifest: manifest('chatty'),
      tools: { lean: tool('lean_tool'), wordy: tool('wordy_tool', { description: longWinded }), schema: tool('schema_tool', { input: documented }) },
      tested: ['lean_tool', 'wordy_tool', 'schema_tool'],
    });
    const report = await check(root);
    expect(report.problems).toEqual([]);
    const warnings = lines(report.warnings, root);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^chatty\/wordy\.ts:5: tool 'wordy_tool': its definition takes \d+ tokens, over the budget of 250 .*move details and examples to SKILL\.md$/);
    expect(warnings[1]).toMatch(/^chatty\/schema\.ts:5: tool 'schema_tool': its definition takes \d+ tokens/);
  });

  it('reports a tool name declared by two skills at both declarations', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'first', { manifest: manifest('first'), tools: { shared: tool('shared_tool') }, tested: ['shared_tool'] });
    writeSkill(root, 'second', { manifest: manifest('second'), tools: { own: tool('own_tool'), shared: tool('shared_tool') }, tested: ['own_tool', 'shared_tool'] });
    expect(lines((await check(root)).problems, root)).toEqual([
      `first/shared.ts:5: tool name 'shared_tool' is also declared by skill 'second' (${path.join(root, 'second/shared.ts')}:5); tool names must be unique across skills`,
      `second/shared.ts:5: tool name 'shared_tool' is also declared by skill 'first' (${path.join(root, 'first/shared.ts')}:5); tool names must be unique across skills`,
    ]);
  });

  it('warns, without failing, when a tool name is shared with a disabled skill, which startup does not load', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'first', { manifest: manifest('first'), tools: { shared: tool('shared_tool') }, tested: ['shared_tool'] });
    writeSkill(root, 'resting', { manifest: manifest('resting', 'enabled: false\n'), tools: { shared: tool('shared_tool') }, tested: ['shared_tool'] });
    const report = await check(root);
    expect(report.problems).toEqual([]);
    expect(lines(report.warnings, root)).toEqual([
      `first/shared.ts:5: tool name 'shared_tool' is also declared by skill 'resting' (disabled) (${path.join(root, 'resting/shared.ts')}:5); tool names must be unique across skills; skill 'resting' is disabled, so startup skips it: enabling it would fail startup`,
      `resting/shared.ts:5: tool name 'shared_tool' is also declared by skill 'first' (${path.join(root, 'first/shared.ts')}:5); tool names must be unique across skills; skill 'resting' is disabled, so startup skips it: enabling it would fail startup`,
    ]);
    // A third, enabled skill with the name: the two enabled declarations are problems, the disabled one stays a warning.
    writeSkill(root, 'third', { manifest: manifest('third'), tools: { shared: tool('shared_tool') }, tested: ['shared_tool'] });
    const three = await check(root);
    expect(lines(three.problems, root).map((line) => line.split(':')[0])).toEqual(['first/shared.ts', 'third/shared.ts']);
    expect(lines(three.warnings, root).map((line) => line.split(':')[0])).toEqual(['resting/shared.ts']);
    // Enabling it turns the warning into the problem startup would have.
    writeFileSync(path.join(root, 'resting', 'SKILL.md'), manifest('resting'));
    expect(lines((await check(root)).problems, root)).toHaveLength(3);
  });

  it('warns that two disabled skills declaring one tool name cannot both be enabled', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'dormant', { manifest: manifest('dormant', 'enabled: false\n'), tools: { shared: tool('shared_tool') }, tested: ['shared_tool'] });
    writeSkill(root, 'resting', { manifest: manifest('resting', 'enabled: false\n'), tools: { shared: tool('shared_tool') }, tested: ['shared_tool'] });
    const report = await check(root);
    expect(report.problems).toEqual([]);
    expect(lines(report.warnings, root)).toEqual([
      expect.stringMatching(/^dormant\/shared\.ts:5: .*; skills 'dormant', 'resting' are disabled, so startup skips them: enabling two of them would fail startup$/),
      expect.stringMatching(/^resting\/shared\.ts:5: .*; skills 'dormant', 'resting' are disabled, so startup skips them: enabling two of them would fail startup$/),
    ]);
  });

  it('fails a disabled skill that declares one tool name twice: it could never be enabled', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'twice', { manifest: manifest('twice', 'enabled: false\n'), tools: { one: tool('same_tool'), two: tool('same_tool') }, tested: ['same_tool'] });
    const report = await check(root);
    expect(lines(report.problems, root)).toHaveLength(2);
    expect(report.warnings).toEqual([]);
  });

  it('reports a tool name declared twice in one skill at each declaration', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'twice', { manifest: manifest('twice'), tools: { one: tool('same_tool'), two: tool('same_tool') }, tested: ['same_tool'] });
    expect(lines((await check(root)).problems, root)).toEqual([
      `twice/one.ts:5: tool name 'same_tool' is also declared by skill 'twice' (${path.join(root, 'twice/two.ts')}:5); tool names must be unique across skills`,
      `twice/two.ts:5: tool name 'same_tool' is also declared by skill 'twice' (${path.join(root, 'twice/one.ts')}:5); tool names must be unique across skills`,
    ]);
  });

  it('reports modules that are missing, do not load or export no tools, and keeps checking the other skills', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'a_syntax', { manifest: manifest('a_syntax'), index: "import { z } from 'zod';\n\nexport default {\n  tools: [ { name: 'x', description:\n};\n" });
    writeSkill(root, 'b_throws', { manifest: manifest('b_throws'), index: "const ready = false;\nif (!ready) throw new Error('not ready');\nexport default { tools: [] };\n" });
    writeSkill(root, 'c_empty', { manifest: manifest('c_empty'), index: '// nothing yet\nexport default { tools: [] };\n' });
    mkdirSync(path.join(root, 'd_bare'));
    writeSkill(root, 'e_fine', { manifest: manifest('e_fine'), tools: { fine: tool('fine_tool') }, tested: ['fine_tool'] });
    const report = await check(root);
    expect(lines(report.problems, root)).toEqual([
      expect.stringMatching(/^a_syntax\/index\.ts:5: failed to load: .+/),
      'b_throws/index.ts:2: failed to load: not ready',
      'c_empty/index.ts:2: must default-export defineSkill({ tools: [...] }) with at least one tool',
      'd_bare/SKILL.md:1: SKILL.md is missing: every skill folder needs one (frontmatter name, description, version; then the instructions)',
      'd_bare/index.ts:1: index.ts is missing: it must default-export defineSkill({ tools: [...] })',
    ]);
    expect(report.skills.map((s) => [s.name, s.tools])).toEqual([['a_syntax', []], ['b_throws', []], ['c_empty', []], ['d_bare', []], ['e_fine', ['fine_tool']]]);
  });

  it('checks disabled skills too', async () => {
    const root = temporaryDirectory();
    writeSkill(root, 'asleep', { manifest: manifest('asleep', 'enabled: false\n'), tools: { nap: tool('nap_tool') } });
    const report = await check(root);
    expect(report.skills).toMatchObject([{ name: 'asleep', enabled: false, tools: ['nap_tool'] }]);
    expect(lines(report.problems, root)).toEqual([expect.stringMatching(/^asleep\/nap\.ts:5: tool 'nap_tool' has no test/)]);
  });

  it('as a command, prints file:line: problem lines and exits 1', () => {
    // Outside vitest, a skill outside the project needs the project's node_modules within reach.
    const root = temporarySkillsDirectory();
    writeSkill(root, 'pinger', { manifest: manifest('pinger', 'version2: 1\n'), tools: { ping: tool('ping_tool') }, tested: ['ping_tool'] });
    const run = spawnSync(process.execPath, [path.join(projectRoot, 'node_modules/tsx/dist/cli.mjs'), 'scripts/skillCheck.ts', '--dir', root, '--tests', root], {
      cwd: projectRoot,
      encoding: 'utf8',
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${path.join(root, 'pinger/SKILL.md')}:5: frontmatter 'version2': unknown key (did you mean 'version'?)`);
    expect(run.stderr).toContain('skill:check found 1 problem: 1 skill (pinger), 1 tool');
  });
});
