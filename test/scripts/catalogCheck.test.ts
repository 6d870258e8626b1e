/**
 * `npm run catalog:check` on a fresh draft of the second sample (data/sap-sample): the service
 * starts on the draft and the generated questions come back answered through /chat with the
 * data's figures: the sources, a total per company (the README's two fiscal years added), a
 * month-by-month series, actual vs budget across the drafted pair, and the two duplicated
 * budget lines the sample plants. A catalog the service cannot start on exits 1 saying why.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSapSample, type SapSampleBuild } from '../../data/sap-sample/write.ts';
import { checkCatalog, formatCheck, type CheckedAnswer } from '../../scripts/catalogCheck.ts';
import { draftCatalog } from '../../src/catalog/draft/index.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const directory = temporaryDirectory('catalog-check-');
let build: SapSampleBuild;
let answers: CheckedAnswer[];

beforeAll(async () => {
  build = await buildSapSample(path.join(directory, 'sample'));
  const catalog = path.join(directory, 'catalog.yaml');
  writeFileSync(catalog, (await draftCatalog({ from: `sqlite:${build.sqlite}`, catalogDirectory: directory })).yaml);
  answers = await checkCatalog({ catalog, data: `sqlite:${build.sqlite}` });
}, 120_000);

describe('catalog:check on a fresh draft', () => {
  it('asks the first questions a newcomer asks, each answered from the data', () => {
    expect(answers.map((a) => a.question)).toEqual([
      'Which data sources can I ask about?',
      'What is the total amount of gl_extract by company?',
      'Show the amount of gl_extract per month for company CA01.',
      'Compare gl_extract with gl_plan for company CA01.',
      'Are there duplicate lines in gl_plan?',
    ]);
    expect(answers.map((a) => a.outcome)).toEqual(['answered', 'answered', 'answered', 'answered', 'answered']);
  });

  it("gives the README's figures: IN01's two fiscal years, and both planted duplicate budget lines", () => {
    expect(answers[0]!.answer).toMatch(/gl_extract[\s\S]*gl_plan/);
    // FY2024 139,568,100.00 + FY2025 141,916,200.00 INR.
    expect(answers[1]!.answer).toContain('IN01: 281,484,300.00 INR');
    // The fiscal year starts in April (t001.periv V3): its first period is April 2024.
    // Named by month, with the code as the data spells it (YYYYMM), in the fiscal year from April.
    expect(answers[2]!.answer).toContain('April 2024 (202404)');
    expect(answers[3]!.tools).toContain('compare_sources');
    expect(answers[4]!.answer).toContain('-18,430,000.00 INR');
    expect(answers[4]!.answer).toContain('689,000.00 CAD');
  });

  it('prints each question with its tools and a tally', () => {
    const text = formatCheck(answers);
    expect(text).toContain('1. Which data sources can I ask about?  [answered; expected: lists every source]');
    expect(text).toContain('   tools: find_duplicates');
    expect(text).toMatch(/5 of 5 answered, 0 asked back, 0 declined\./);
  });

  it('exits 1 naming the problem when the service cannot start on the catalog, 2 without --catalog', () => {
    const broken = path.join(directory, 'broken.yaml');
    writeFileSync(broken, 'version: 1\nsources: {}\n');
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/catalogCheck.ts', '--catalog', broken], { encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' } });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`catalog:check: the service cannot start on ${broken}`);
    expect(spawnSync(process.execPath, ['--import', 'tsx', 'scripts/catalogCheck.ts'], { encoding: 'utf8' }).status).toBe(2);
  });
});
