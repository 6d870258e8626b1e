/**
 * Building the service: the query workers start while the skills and the conversation store load,
 * so a start that fails on either must stop the workers it started. No process is left behind.
 */
import { readFileSync, readdirSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/config.ts';
import { ConfigurationError } from '../src/errors/index.ts';
import { silentLogger } from '../src/logging/logger.ts';
import { createService } from '../src/service.ts';
import { temporaryDirectory } from './support/catalogFixture.ts';

/** Living processes whose parent is this one. */
function children(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/<pid>/stat is the parent's pid (after the parenthesised name); Z is a zombie.
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
      if (Number(fields[1]) === process.pid && fields[0] !== 'Z') pids.push(Number(entry));
    } catch {
      // Ended while we looked.
    }
  }
  return pids;
}

async function noChildrenLeft(): Promise<number[]> {
  // SIGKILLed workers are reaped by Node shortly after; give them a moment.
  for (let attempt = 0; attempt < 50 && children().length > 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 100));
  return children();
}

describe('createService', () => {
  it('stops the query workers it started when a skill does not load', async () => {
    const skills = temporaryDirectory('service-broken-skill-');
    mkdirSync(path.join(skills, 'broken'));
    writeFileSync(path.join(skills, 'broken', 'SKILL.md'), '---\nname: broken\ndescription: A skill that does not load.\nversion: 1.0.0\n---\n');
    writeFileSync(path.join(skills, 'broken', 'index.ts'), 'import "./missing.ts";\n');
    const before = children();
    const config = loadConfig({ LOG_LEVEL: 'silent', SKILLS_DIR: skills, APP_DB: path.join(temporaryDirectory(), 'app.db') } as NodeJS.ProcessEnv);
    const error = await createService(config, silentLogger()).catch((e: unknown) => e);
    expect(ConfigurationError.isInstance(error), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/broken/);
    expect((await noChildrenLeft()).filter((pid) => !before.includes(pid))).toEqual([]);
  }, 60_000);

  it('stops the query workers it started when the conversation store cannot be opened', async () => {
    const before = children();
    // APP_DB in a folder that is a file: the SQLite store cannot be created there.
    const blocker = path.join(temporaryDirectory('service-bad-app-db-'), 'not-a-folder');
    writeFileSync(blocker, 'x');
    const config = loadConfig({ LOG_LEVEL: 'silent', APP_DB: path.join(blocker, 'app.db') } as NodeJS.ProcessEnv);
    const error = await createService(config, silentLogger()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((await noChildrenLeft()).filter((pid) => !before.includes(pid))).toEqual([]);
  }, 60_000);
});
