/**
 * npm run skill:check [-- --dir <skills directory>] [--tests <folder>]...
 * Validates every skill and prints `file:line: problem` for each problem; exits 1 when there
 * are problems. Warnings (a tool definition over its token budget) are printed, not failed on. The rules are in docs/skills.md and src/skills/check.ts.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Catalog } from '../src/catalog/catalog.ts';
import { loadCatalog } from '../src/catalog/loadCatalog.ts';
import { projectRoot } from '../src/config/config.ts';
import { checkSkills, display, formatProblems } from '../src/skills/check.ts';

const usage = 'Usage: npm run skill:check [-- --dir <skills directory>] [--tests <folder of tests>]...';

let values: { dir?: string; tests?: string[]; help?: boolean };
try {
  ({ values } = parseArgs({
    options: { dir: { type: 'string' }, tests: { type: 'string', multiple: true }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: false,
  }));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${usage}\n`);
  process.exit(2);
}
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}

const directory = path.resolve(values.dir ?? process.env.SKILLS_DIR ?? path.join(projectRoot, 'skills'));
// The knowledge files' front matter is checked against the catalog when it loads (CATALOG, else the bundled one).
let catalog: Catalog | undefined;
try {
  catalog = loadCatalog(path.resolve(process.env.CATALOG ?? path.join(projectRoot, 'data/sources.yaml')));
} catch (error) {
  process.stderr.write(`warning: knowledge front matter not checked against the catalog: ${(error as Error).message.split('\n')[0]}\n`);
}
const report = await checkSkills(directory, {
  ...(values.tests ? { testDirectories: values.tests.map((folder) => path.resolve(folder)) } : {}),
  ...(catalog ? { catalog } : {}),
});
const toolCount = report.skills.reduce((sum, skill) => sum + skill.tools.length, 0);
const disabled = report.skills.filter((skill) => !skill.enabled).map((skill) => skill.name);
const summary = `${report.skills.length} skill${report.skills.length === 1 ? '' : 's'} (${report.skills.map((s) => s.name).join(', ') || 'none'}), ${toolCount} tool${toolCount === 1 ? '' : 's'}${disabled.length ? `; disabled: ${disabled.join(', ')}` : ''} in ${display(directory)}`;
if (report.warnings.length > 0) {
  process.stderr.write(`${formatProblems(report.warnings).map((line) => `warning: ${line}`).join('\n')}\n`);
}
if (report.problems.length === 0) {
  process.stdout.write(`skill:check OK: ${summary}\n`);
  process.exit(0);
}
process.stderr.write(`${formatProblems(report.problems).join('\n')}\n`);
process.stderr.write(`skill:check found ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'}: ${summary}\n`);
process.exit(1);
