/**
 * npm run skill:new -- <name> [--dir <skills directory>]
 * Scaffolds a working skill (SKILL.md, index.ts, one example tool and its test) and prints the
 * next steps. See docs/skills.md.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../src/config/config.ts';
import { display } from '../src/skills/check.ts';
import { scaffoldSkill, skillNameProblem } from '../src/skills/scaffold.ts';

const usage = 'Usage: npm run skill:new -- <name> [--dir <skills directory>]   (name in snake_case, e.g. cash_flow)';

let parsed: { values: { dir?: string; help?: boolean }; positionals: string[] };
try {
  parsed = parseArgs({ options: { dir: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, allowPositionals: true });
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${usage}\n`);
  process.exit(2);
}
if (parsed.values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
if (parsed.positionals.length !== 1) {
  process.stderr.write(`${parsed.positionals.length === 0 ? 'Give the new skill a name.' : `One name only, got: ${parsed.positionals.join(' ')}.`}\n${usage}\n`);
  process.exit(2);
}
const name = parsed.positionals[0]!;
const skillsDirectory = path.resolve(parsed.values.dir ?? process.env.SKILLS_DIR ?? path.join(projectRoot, 'skills'));
const problem = skillNameProblem(name, skillsDirectory);
if (problem) {
  process.stderr.write(`skill:new: ${problem}.\n${usage}\n`);
  process.exit(1);
}

const result = scaffoldSkill({ name, skillsDirectory });
const folder = display(result.directory);
const roles = ['instructions for the model; frontmatter name, description, version, tags, enabled', 'declares the tools', `the example tool ${result.toolName}`, 'its test'];
const width = Math.max(...result.files.map((file) => display(file).length));
const inRepoSkills = path.resolve(skillsDirectory) === path.join(projectRoot, 'skills');
process.stdout.write(
  [
    `Created the skill '${name}' in ${folder}:`,
    ...result.files.map((file, index) => `  ${display(file).padEnd(width)}  ${roles[index] ?? ''}`),
    '',
    'Next steps:',
    `  1. Say what the skill does in ${folder}/SKILL.md (description: one line, shown to the model) and write its instructions.`,
    `  2. Replace or adapt the example tool; add tools to ${folder}/index.ts and a test for each.`,
    `  3. Run its test:        npx vitest run ${inRepoSkills ? folder : `--root ${display(path.dirname(skillsDirectory))}`}`,
    `  4. Check every skill:   npm run skill:check${inRepoSkills ? '' : ` -- --dir ${display(skillsDirectory)}`}`,
    `  5. Restart the service (npm run dev reloads skills on every edit) and try it:`,
    `       curl -s localhost:3000/tools/${result.toolName} -H 'content-type: application/json' -d '{"source":"fi_reporting","dimension":"company"}'`,
    '  Guide: docs/skills.md',
    '',
  ].join('\n'),
);
