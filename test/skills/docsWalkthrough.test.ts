/**
 * The walk-through of docs/skills.md, run as written: its SKILL.md, tool, index.ts and test,
 * scaffolded and then replaced in a temporary skills folder, must pass skill:check and work.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { checkSkills, formatProblems } from '../../src/skills/check.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { scaffoldSkill } from '../../src/skills/scaffold.ts';
import { skillTestKit, temporarySkillsDirectory } from '../../src/skills/testing.ts';

describe('docs/skills.md walk-through', () => {
  it('builds a skill that passes skill:check and answers as the document says', async () => {
    const doc = readFileSync(path.join(projectRoot, 'docs/skills.md'), 'utf8');
    const walkthrough = doc.slice(doc.indexOf('## 8. Walk-through'));
    const blocks = [...walkthrough.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ language: m[1], text: m[2]! }));
    const manifest = blocks.find((b) => b.language === 'markdown')!.text;
    const [tool, index, test] = blocks.filter((b) => b.language === 'ts').map((b) => b.text);
    // The document's imports are relative to skills/period_trend/ in the repository.
    const absolute = (text: string) => text.replaceAll(/'(?:\.\.\/)+src\//g, `'${projectRoot}/src/`);

    const skillsDirectory = temporarySkillsDirectory('walkthrough-');
    const { directory } = scaffoldSkill({ name: 'period_trend', skillsDirectory });
    rmSync(path.join(directory, 'dimensionValues.ts'));
    writeFileSync(path.join(directory, 'SKILL.md'), manifest);
    writeFileSync(path.join(directory, 'monthlyTotals.ts'), absolute(tool!));
    writeFileSync(path.join(directory, 'index.ts'), absolute(index!));
    writeFileSync(path.join(directory, 'test/period_trend.test.ts'), absolute(test!));

    expect(formatProblems((await checkSkills(skillsDirectory, { testDirectories: [] })).problems)).toEqual([]);
    const [skill] = await loadSkills(skillsDirectory);
    expect(skill).toMatchObject({ name: 'period_trend', tags: ['finance', 'trend'], tools: [{ name: 'monthly_totals' }] });
    const kit = await skillTestKit(skill!);
    try {
      expect(await kit.run('monthly_totals', { source: 'fi_reporting', company: '1000' })).toMatchObject({
        ok: true,
        result: { unit: 'EUR', largest_change: { from: '2024008', to: '2024009', change: 195600 } },
      });
    } finally {
      await kit.close();
    }
  });
});
