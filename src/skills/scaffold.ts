/**
 * `npm run skill:new -- <name>`: writes a working skill — SKILL.md, index.ts, one example tool
 * that reads the catalog and runs a tiny query, and its test — that the service loads as is.
 * `npm run skill:check` passes once the placeholder description says what the skill does.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../config/config.ts';
import { SKILL_NAME_PATTERN } from './manifest.ts';

/** Marks the description the scaffold writes; skill:check refuses a description that still has it. */
const PLACEHOLDER_DESCRIPTION_MARK = "(the scaffold's example; say here in one line what";

/**
 * True when a SKILL.md description is still the scaffold's placeholder.
 * @example
 * isScaffoldDescription("Looks up … (the scaffold's example; say here in one line what cash does)."); // true
 */
export function isScaffoldDescription(description: string): boolean {
  return description.includes(PLACEHOLDER_DESCRIPTION_MARK);
}

/** Longest skill name: the example tool `<name>_dimension_values` must stay within 64 characters. */
export const MAX_SKILL_NAME_LENGTH = 40;

export interface ScaffoldOptions {
  name: string;
  /** The skills directory to create the skill in (SKILLS_DIR, default skills/). */
  skillsDirectory: string;
}

export interface ScaffoldResult {
  directory: string;
  /** Absolute paths of the files written, in the order listed to the user. */
  files: string[];
  toolName: string;
}

/** Why `name` cannot be a new skill in `skillsDirectory`, or undefined when it can. */
export function skillNameProblem(name: string, skillsDirectory: string): string | undefined {
  if (!name) return 'give the skill a name, e.g. npm run skill:new -- cash_flow';
  if (name.startsWith('_') || name.startsWith('.')) return `'${name}': folders starting with '_' or '.' are ignored by the loader; start with a letter`;
  if (!SKILL_NAME_PATTERN.test(name)) {
    const suggestion = name.trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').replace(/^[0-9_]+/, '');
    return `'${name}' is not snake_case (a-z, 0-9 and _, starting with a letter)${suggestion && SKILL_NAME_PATTERN.test(suggestion) ? `; try '${suggestion}'` : ''}`;
  }
  if (name.length > MAX_SKILL_NAME_LENGTH) return `'${name}' is longer than ${MAX_SKILL_NAME_LENGTH} characters`;
  if (name === 'builtin') return "'builtin' is reserved for the service's own tools";
  if (existsSync(path.join(skillsDirectory, name))) return `a skill folder '${name}' already exists in ${skillsDirectory}`;
  return undefined;
}

/** Writes the skill. @throws Error when the name is invalid or taken. */
export function scaffoldSkill(options: ScaffoldOptions): ScaffoldResult {
  const { name, skillsDirectory } = options;
  const problem = skillNameProblem(name, skillsDirectory);
  if (problem) throw new Error(problem);
  const directory = path.join(skillsDirectory, name);
  const toolName = `${name}_dimension_values`;
  // Imports of the service's modules, relative to where each file lives.
  const fromSkill = importPath(directory);
  const fromTest = importPath(path.join(directory, 'test'));
  const files: [string, string][] = [
    ['SKILL.md', skillManifest(name, toolName)],
    ['index.ts', indexModule(name, fromSkill)],
    ['dimensionValues.ts', toolModule(toolName, fromSkill)],
    [path.join('test', `${name}.test.ts`), testModule(name, toolName, fromTest)],
  ];
  mkdirSync(path.join(directory, 'test'), { recursive: true });
  const written = files.map(([file, text]) => {
    const target = path.join(directory, file);
    writeFileSync(target, text, { flag: 'wx' });
    return target;
  });
  return { directory, files: written, toolName };
}

/** The project root as a relative import prefix from `directory`, with forward slashes. */
function importPath(directory: string): string {
  const relative = path.relative(directory, projectRoot).split(path.sep).join('/');
  return relative === '' ? '.' : relative;
}

function skillManifest(name: string, toolName: string): string {
  return `---
name: ${name}
description: Looks up the values of a source's dimensions ${PLACEHOLDER_DESCRIPTION_MARK} ${name} does).
version: 0.1.0
tags: [example]
enabled: true
---
These instructions reach the model when it calls \`load_skill\` with "${name}", before it first
uses this skill's tools. Say what the skill is for, which tool answers which question, the
naming and unit conventions, and how to present the answer. Keep it short and concrete.

How to work:
- Use source and dimension names exactly as the catalog spells them (the data_analyst skill's catalog tool lists them when that skill is enabled).
- Call \`${toolName}\` to see how a dimension's values are spelled before filtering on one.
- When a tool returns \`{"error": ...}\`, read \`hint\`, \`choices\` and \`closest\`, then call it again corrected.

How to answer: list the values you found, say when the list was cut (\`truncated\`), and never invent values.
`;
}

function indexModule(name: string, root: string): string {
  return `/**
 * The ${name} skill: its tools. SKILL.md holds its description and instructions; see docs/skills.md.
 */
import { defineSkill } from '${root}/src/skills/api.ts';
import { dimensionValues } from './dimensionValues.ts';

export default defineSkill({
  tools: [dimensionValues],
});
`;
}

function toolModule(toolName: string, root: string): string {
  return `/**
 * ${toolName}: the distinct values of one dimension of a source, read from the data with a
 * tiny query. An example to adapt: the catalog resolves names, context.data runs the query.
 */
import { z } from 'zod';
// Everything a skill uses comes from the skill SDK (src/skills/api.ts): skill:check refuses other imports from src/.
import { defineTool, distinctValues, findDimension, findSource, nameArgument, ToolError } from '${root}/src/skills/api.ts';

const MAX_VALUES = 100;

export const dimensionValues = defineTool({
  name: '${toolName}',
  description:
    "List the distinct values of one dimension of a source (sorted, at most 'limit'), with the dimension's description. Use it to check how a value is spelled before filtering on it.",
  input: z.strictObject({
    // nameArgument(): a non-empty string with a length cap, so no argument can be megabytes long.
    source: nameArgument().describe('source name from the catalog, e.g. fi_reporting'),
    dimension: nameArgument().describe('a dimension of that source, e.g. company'),
    limit: z.number().int().positive().default(20).describe(\`values to return (default 20, at most \${MAX_VALUES})\`),
  }),
  // What the handler returns: GET /skills publishes it, and the handler's return type is checked against it.
  output: z.object({
    source: z.string(),
    dimension: z.string(),
    description: z.string(),
    values: z.array(z.string().nullable()),
    truncated: z.boolean(),
  }),
  handler: async (input, { catalog, data, signal }) => {
    // Unknown names throw a ToolError (unknown_source, unknown_dimension) with choices and the closest name.
    const source = findSource(catalog, input.source);
    const dimension = findDimension(source, input.dimension);
    if (input.limit > MAX_VALUES) {
      // A failure the model can fix: a code, a message, and a hint saying how.
      throw new ToolError('invalid_value', \`limit \${input.limit} is more than \${MAX_VALUES}.\`, {
        hint: \`Ask for at most \${MAX_VALUES} values.\`,
        details: { limit: input.limit, max: MAX_VALUES },
      });
    }
    // One more than asked, to know whether the list was cut.
    const values = await distinctValues(data, source, dimension.column, input.limit + 1, signal);
    return {
      source: source.name,
      dimension: dimension.name,
      description: dimension.description,
      values: values.slice(0, input.limit),
      truncated: values.length > input.limit,
    };
  },
  // One line for the agent's memory of an older turn (and for a run cut off at its step limit).
  summarize: (result) => \`${toolName} \${result.source}.\${result.dimension}: \${result.values.length}\${result.truncated ? '+' : ''} values\`,
  // How the web chat shows the result: one table of the values.
  present: (result) => ({
    caption: \`\${result.source} · \${result.dimension}\`,
    views: [
      {
        title: \`Values of \${result.dimension}\`,
        rows: result.values.map((value) => ({ value })),
        columns: [{ key: 'value', label: result.dimension, role: 'dimension', dimension: result.dimension }],
        notes: result.truncated ? ['Only the first values are listed.'] : [],
        csvName: ['values', result.source, result.dimension],
      },
    ],
  }),
});
`;
}

function testModule(name: string, toolName: string, root: string): string {
  return `/**
 * Tests of the ${name} skill, run by \`npx vitest run skills/${name}\` (and \`npm test\`) over the
 * bundled sample data. skill:check requires every tool's name to appear in a test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skillTestKit, type SkillTestKit } from '${root}/src/skills/api.ts';
import skill from '../index.ts';

let kit: SkillTestKit;
beforeAll(async () => {
  kit = await skillTestKit(skill);
});
afterAll(() => kit.close());

describe('${toolName}', () => {
  it('lists the values of a dimension, sorted and capped', async () => {
    const outcome = await kit.run('${toolName}', { source: 'fi_reporting', dimension: 'company', limit: 2 });
    expect(outcome).toEqual({
      ok: true,
      result: { source: 'fi_reporting', dimension: 'company', description: expect.any(String), values: ['1000', '2000'], truncated: true },
      presentation: expect.objectContaining({ views: [expect.objectContaining({ title: 'Values of company' })] }),
    });
    // Results are not checked against the output schema at run time: the tests do it.
    if (outcome.ok) expect(skill.tools[0]!.output!.safeParse(outcome.result).success).toBe(true);
  });

  it('answers an unknown source with the valid choices and the closest one', async () => {
    const outcome = await kit.run('${toolName}', { source: 'fi_reportin', dimension: 'company' });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'unknown_source', closest: 'fi_reporting' } });
  });

  it('refuses a limit above the maximum with a hint', async () => {
    const outcome = await kit.run('${toolName}', { source: 'fi_reporting', dimension: 'company', limit: 500 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'invalid_value', hint: expect.stringContaining('at most') } });
  });
});
`;
}
