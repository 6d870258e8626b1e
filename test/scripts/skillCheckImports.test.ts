/**
 * A skill is one folder: `npm run skill:check` fails a skill that imports an internal module of
 * the service (anything under src/ but the skill SDK, src/skills/api.ts), type-only imports
 * included, or a file of another skill, naming the file, the line, the import and the SDK import
 * to write instead; the same skill importing only the SDK passes. Run through the real script,
 * as a skill author runs it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { importsOf } from '../../src/skills/skillImports.ts';
import { temporarySkillsDirectory } from '../../src/skills/testing.ts';

const sdk = path.join(projectRoot, 'src/skills/api.ts');
const manifest = (name: string) => `---\nname: ${name}\ndescription: A skill used by the import rule tests.\nversion: 1.0.0\n---\nUse the tools.\n`;

/** A skill folder with one tool (`<name>_count`) whose file starts with the given imports, and a test naming the tool. */
function writeSkill(root: string, name: string, imports: string, extraFiles: Record<string, string> = {}): string {
  const directory = path.join(root, name);
  mkdirSync(path.join(directory, 'test'), { recursive: true });
  writeFileSync(path.join(directory, 'SKILL.md'), manifest(name));
  writeFileSync(
    path.join(directory, 'countRows.ts'),
    `import { z } from 'zod';\n${imports}\n\nexport const countRows = defineTool({\n  name: '${name}_count',\n  description: 'Counts the sources of the catalog.',\n  input: z.strictObject({}),\n  output: z.object({ sources: z.number() }),\n  handler: (_input, { catalog }) => ({ sources: catalog.sources.size }),\n});\n`,
  );
  writeFileSync(path.join(directory, 'index.ts'), `import { defineSkill } from '${sdk}';\nimport { countRows } from './countRows.ts';\n\nexport default defineSkill({ tools: [countRows] });\n`);
  writeFileSync(path.join(directory, 'test', `${name}.test.ts`), `// '${name}_count'\n`);
  for (const [file, text] of Object.entries(extraFiles)) writeFileSync(path.join(directory, file), text);
  return directory;
}

function skillCheck(root: string) {
  return spawnSync(process.execPath, [path.join(projectRoot, 'node_modules/tsx/dist/cli.mjs'), 'scripts/skillCheck.ts', '--dir', root, '--tests', root], { cwd: projectRoot, encoding: 'utf8' });
}

describe('skill:check and the import rule', () => {
  it('fails a skill importing src/ internals (a type too) or another skill, saying what to import from the SDK instead', () => {
    const root = temporarySkillsDirectory('skill-imports-');
    writeSkill(root, 'shared_bits', `import { defineTool } from '${sdk}';`, { 'helpers.ts': "export const label = (name: string) => name.toUpperCase();\n" });
    writeSkill(
      root,
      'leaky',
      [
        `import { defineTool } from '${sdk}';`,
        `import { findSource } from '${projectRoot}/src/catalog/catalog.ts';`,
        `import type {\n  Source,\n} from '${projectRoot}/src/catalog/catalog.ts';`,
        "import { label } from '../shared_bits/helpers.ts';",
        'export const shown = (source: Source) => label(findSource.name + source.name);',
      ].join('\n'),
    );
    const run = skillCheck(root);
    expect(run.status).toBe(1);
    const file = path.join(root, 'leaky/countRows.ts');
    expect(run.stderr).toContain(
      `${file}:3: imports '${projectRoot}/src/catalog/catalog.ts' (src/catalog/catalog.ts), an internal module of the service: a skill imports the service only through the skill SDK, src/skills/api.ts — import { findSource } from '${sdk}'`,
    );
    expect(run.stderr).toContain(`${file}:4: imports '${projectRoot}/src/catalog/catalog.ts' (src/catalog/catalog.ts), an internal module of the service`);
    expect(run.stderr).toContain(`import { type Source } from '${sdk}'`);
    expect(run.stderr).toContain(`${file}:7: imports '../shared_bits/helpers.ts' from another skill (shared_bits): a skill is one folder and imports no other skill — keep a copy of what it needs in this skill, or move what skills share into the skill SDK (src/skills/api.ts)`);
    expect(run.stderr).toContain('skill:check found 3 problems: 2 skills (leaky, shared_bits), 2 tools');
  });

  it('passes the same skill when it imports only the SDK', () => {
    const root = temporarySkillsDirectory('skill-imports-');
    writeSkill(root, 'tidy', `import { defineTool, findSource, type Source } from '${sdk}';\n\nexport const shown = (source: Source) => findSource.name + source.name;`);
    const run = skillCheck(root);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('skill:check OK: 1 skill (tidy), 1 tool');
  });

  it('reads imports as TypeScript writes them, leaving out comments and code inside template literals', () => {
    const text = [
      "import { z } from 'zod';",
      '/** @example import { findSource } from "../../src/catalog/catalog.ts"; */',
      "// import { nothing } from '../../src/nothing.ts';",
      "export { helper, type Helper as Other } from './helper.ts';",
      "import './sideEffect.ts';",
      'const file = `import { a } from "../../src/a.ts";`;',
      "const later = await import('../../src/later.ts');",
    ].join('\n');
    expect(importsOf(text)).toEqual([
      { specifier: 'zod', line: 1, names: ['z'] },
      { specifier: './helper.ts', line: 4, names: ['helper', 'type Helper as Other'] },
      { specifier: './sideEffect.ts', line: 5, names: [] },
      { specifier: '../../src/later.ts', line: 7, names: [] },
    ]);
  });
});
