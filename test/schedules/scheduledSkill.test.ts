/**
 * A skill's schedule in the running service: declared with defineSkill({ tools, schedules }),
 * run by the service's scheduler with the skill's own records (a tool reads what the run
 * wrote), and a malformed declaration stops startup naming the skill's file and what is wrong.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig, projectRoot } from '../../src/config/config.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { createService, type Service } from '../../src/service.ts';
import { temporarySkillsDirectory } from '../../src/skills/testing.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const sdk = JSON.stringify(path.join(projectRoot, 'src/skills/api.ts'));

/** A skill whose schedule is always due (its next slot is a millisecond ago) and counts its runs in a record. */
function writeSkill(skillsDirectory: string, schedules: string): void {
  const directory = path.join(skillsDirectory, 'nightly');
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, 'SKILL.md'), '---\nname: nightly\ndescription: Counts its scheduled runs, for the scheduler test.\nversion: 0.1.0\n---\nRead the count with nightly_runs.\n');
  writeFileSync(
    path.join(directory, 'index.ts'),
    `import { z } from 'zod';
import { defineSchedule, defineSkill, defineTool } from ${sdk};

const count = defineSchedule({
  name: 'count_runs',
  next: (after) => new Date(after.getTime() - 1),
  async run({ records }) {
    const seen = await records.get<{ runs: number }>('state', 'count');
    await records.put('state', 'count', { runs: (seen?.value.runs ?? 0) + 1 }, { version: seen?.version ?? 0 });
  },
});

const runs = defineTool({
  name: 'nightly_runs',
  description: 'How many scheduled runs the nightly skill has made.',
  input: z.strictObject({}),
  output: z.object({ runs: z.number() }),
  async handler(_input, { records }) {
    return { runs: (await records?.get<{ runs: number }>('state', 'count'))?.value.runs ?? 0 };
  },
});

export default defineSkill({ tools: [runs], schedules: ${schedules} });
`,
  );
}

const services: Service[] = [];
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
});

function start(skillsDirectory: string): Promise<Service> {
  const config = loadConfig({ SKILLS_DIR: skillsDirectory, LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', APP_DB: path.join(temporaryDirectory('scheduled-'), 'app.db') } as NodeJS.ProcessEnv);
  return createService(config, silentLogger()).then((service) => (services.push(service), service));
}

describe("a skill's schedule in the service", () => {
  it("runs on the scheduler's ticks with the skill's records, which its tools read", async () => {
    const skillsDirectory = temporarySkillsDirectory('scheduled-');
    writeSkill(skillsDirectory, '[count]');
    const service = await start(skillsDirectory);
    await service.scheduler.tick(); // the first look sets when it is due
    await service.scheduler.tick();
    await service.scheduler.tick();
    expect((await request(service.app).post('/tools/nightly_runs').send({})).body.result).toEqual({ runs: 2 });
  }, 60_000);

  it('stops startup naming the file and the problem when a schedule is malformed', async () => {
    const skillsDirectory = temporarySkillsDirectory('scheduled-bad-');
    writeSkill(skillsDirectory, "[count, { name: 'Count Runs', next: 3 }]");
    await expect(start(skillsDirectory)).rejects.toThrow(/nightly.*index\.ts schedules\[1\]: name must be snake_case.*schedules\[1\]: next must be a function|nightly.*index\.ts schedules\[1\]: name must be snake_case/s);
  }, 60_000);
});
