/**
 * The bundled skills are written on the skill SDK alone: no file under skills/ (tests included)
 * imports a module of src/ other than src/skills/api.ts, or a file of another skill — the rule
 * skill:check enforces for any skill, applied here to every folder of skills/.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { importProblems } from '../../src/skills/skillImports.ts';

const skillsDirectory = path.join(projectRoot, 'skills');
const folders = readdirSync(skillsDirectory, { withFileTypes: true }).filter((entry) => entry.isDirectory() && !/^[_.]/.test(entry.name));

describe('the bundled skills and the skill SDK', () => {
  it('import nothing from src/ but the SDK, and nothing from another skill', () => {
    expect(folders.map((folder) => folder.name)).toEqual(['data_analyst', 'data_quality', 'knowledge', 'month_end_close', 'movement_analysis']);
    const problems = folders.flatMap((folder) => importProblems(path.join(skillsDirectory, folder.name)));
    expect(problems.map((p) => `${path.relative(projectRoot, p.file)}:${p.line}: ${p.message}`)).toEqual([]);
  });
});
