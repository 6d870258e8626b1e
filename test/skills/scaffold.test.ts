import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { checkSkills } from '../../src/skills/check.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { parseManifest } from '../../src/skills/manifest.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';
import { scaffoldSkill, skillNameProblem } from '../../src/skills/scaffold.ts';
import { temporarySkillsDirectory } from '../../src/skills/testing.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const tsx = path.join(projectRoot, 'node_modules/tsx/dist/cli.mjs');
const run = (command: string, args: string[], cwd = projectRoot) => {
  const result = spawnSync(process.execPath, [command, ...args], { cwd, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
  const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');
  return { status: result.status, stdout: plain(result.stdout), stderr: plain(result.stderr) };
};

/** Replaces the scaffold's placeholder description with a real one, as its next steps ask. */
function describeSkill(manifestPath: string, description: string): void {
  writeFileSync(manifestPath, readFileSync(manifestPath, 'utf8').replace(/^description: .*$/m, `description: ${description}`));
}

describe('npm run skill:new', () => {
  // A fresh skills directory outside the repository, so the repository's skills stay untouched.
  const skillsDirectory = temporarySkillsDirectory('scaffold-');
  const root = path.dirname(skillsDirectory);
  const skill = path.join(skillsDirectory, 'cash_notes');

  beforeAll(() => {
    const created = run(tsx, ['scripts/skillNew.ts', 'cash_notes', '--dir', skillsDirectory]);
    expect(created.stderr).toBe('');
    expect(created.status).toBe(0);
    expect(created.stdout).toContain(`Created the skill 'cash_notes' in ${skill}:`);
    expect(created.stdout).toContain('Next steps:');
    expect(created.stdout).toContain('npm run skill:check');
  }, 60_000);

  it('writes SKILL.md, index.ts, one example tool and its test', () => {
    for (const file of ['SKILL.md', 'index.ts', 'dimensionValues.ts', 'test/cash_notes.test.ts']) expect(existsSync(path.join(skill, file)), file).toBe(true);
    const manifest = parseManifest(readFileSync(path.join(skill, 'SKILL.md'), 'utf8'), 'SKILL.md');
    expect(manifest).toMatchObject({ ok: true, manifest: { name: 'cash_notes', version: '0.1.0', tags: ['example'], enabled: true } });
  });

  it('passes skill:check once its description says what the skill does', () => {
    const manifestPath = path.join(skill, 'SKILL.md');
    const refused = run(tsx, ['scripts/skillCheck.ts', '--dir', skillsDirectory]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/SKILL\.md:3: frontmatter 'description' is still the placeholder 'npm run skill:new' wrote: say in one line what cash_notes does/);
    // As a user would: step 1 of the scaffold's next steps.
    describeSkill(manifestPath, 'Notes on cash positions, and how the values of a dimension are spelled.');
    const checked = run(tsx, ['scripts/skillCheck.ts', '--dir', skillsDirectory]);
    expect(checked.stderr).toBe('');
    expect(checked.stdout).toContain('skill:check OK: 1 skill (cash_notes), 1 tool');
    expect(checked.status).toBe(0);
  }, 60_000);

  it('passes its own test', () => {
    const tested = run(path.join(projectRoot, 'node_modules/vitest/vitest.mjs'), ['run', '--root', root]);
    expect(tested.stdout).toMatch(/skills\/cash_notes\/test\/cash_notes\.test\.ts \(3 tests\)/);
    expect(tested.stdout).toMatch(/Tests\s+3 passed/);
    expect(tested.status).toBe(0);
  }, 60_000);

  it('type-checks under the project settings', () => {
    writeFileSync(path.join(root, 'tsconfig.json'), JSON.stringify({ extends: path.join(projectRoot, 'tsconfig.json'), include: ['skills'] }));
    const checked = run(path.join(projectRoot, 'node_modules/typescript/bin/tsc'), ['--noEmit', '-p', root]);
    expect(checked.stdout).toBe('');
    expect(checked.status).toBe(0);
  }, 60_000);

  describe('the service', () => {
    let service: Service;
    beforeAll(async () => {
      service = await createService(loadConfig({ SKILLS_DIR: skillsDirectory, LOG_LEVEL: 'silent', APP_DB: path.join(temporaryDirectory(), 'app.db') } as NodeJS.ProcessEnv), silentLogger());
    });
    afterAll(() => service.close());

    it('loads the scaffolded skill and runs its tool over HTTP', async () => {
      const api = supertest(service.app);
      const skills = await api.get('/skills');
      expect(skills.body.skills).toMatchObject([{ name: 'cash_notes', enabled: true, tags: ['example'], tools: [{ name: 'cash_notes_dimension_values' }] }]);
      const values = await api.post('/tools/cash_notes_dimension_values').send({ source: 'fi_reporting', dimension: 'company', limit: 3 });
      expect(values.status).toBe(200);
      expect(values.body).toMatchObject({ tool: 'cash_notes_dimension_values', ok: true, result: { values: ['1000', '2000', '3000'], truncated: false } });
      const loaded = await api.post('/tools/load_skill').send({ name: 'cash_notes' });
      expect(loaded.status).toBe(200);
      expect(loaded.body.result.instructions).toContain('cash_notes_dimension_values');
    });
  });

  it('refuses names that are not snake_case, taken, or reserved, and suggests one', () => {
    const bad = run(tsx, ['scripts/skillNew.ts', 'Cash-Notes', '--dir', skillsDirectory]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("skill:new: 'Cash-Notes' is not snake_case (a-z, 0-9 and _, starting with a letter); try 'cash_notes'.");
    expect(skillNameProblem('cash_notes', skillsDirectory)).toBe(`a skill folder 'cash_notes' already exists in ${skillsDirectory}`);
    expect(skillNameProblem('_draft', skillsDirectory)).toMatch(/ignored by the loader/);
    expect(skillNameProblem('builtin', skillsDirectory)).toMatch(/reserved/);
    expect(skillNameProblem('a'.repeat(41), skillsDirectory)).toMatch(/longer than 40/);
    const none = run(tsx, ['scripts/skillNew.ts']);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('Usage: npm run skill:new -- <name>');
  }, 60_000);
});

describe('scaffolded skills side by side', () => {
  it('ten scaffolded skills load together: their tool names do not clash and all pass skill:check', async () => {
    const skillsDirectory = temporarySkillsDirectory('ten-');
    for (let index = 1; index <= 10; index += 1) {
      const { directory } = scaffoldSkill({ name: `generated_${index}`, skillsDirectory });
      describeSkill(path.join(directory, 'SKILL.md'), `Generated skill number ${index}, which looks up dimension values.`);
    }
    const registry = new SkillRegistry(await loadSkills(skillsDirectory));
    expect(registry.skills).toHaveLength(10);
    expect(registry.names()).toHaveLength(11);
    expect((await checkSkills(skillsDirectory)).problems).toEqual([]);
  });
});
