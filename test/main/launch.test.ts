/**
 * `npm start` and `npm run mcp` run scripts/launch.mjs: the service built once as JavaScript,
 * with the skills of SKILLS_DIR built in. A build older than its files (a developer's edit, a
 * skill added after install) is rebuilt at start and the edit is served; a skill that does not
 * build is loaded as TypeScript, so its error names its file; when no build can be written the
 * service still starts, through tsx, and says so.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { projectRoot } from './support/serverProcess.ts';

const apiPath = path.join(projectRoot, 'src/skills/api.ts');
const skillModule = (tool: string) =>
  `import { z } from 'zod';\nimport { defineSkill, defineTool } from ${JSON.stringify(apiPath)};\n` +
  `export default defineSkill({ tools: [defineTool({ name: '${tool}', description: 'answers pong to anything', input: z.strictObject({}), handler: () => 'pong' })] });\n`;

/**
 * A skills directory of its own (so its own build), with one skill whose tool is `tool`; inside
 * the project, as skills are, so that their packages (zod) resolve.
 */
function skillsDirectory(tool: string): string {
  mkdirSync(path.join(projectRoot, 'test/.artifacts'), { recursive: true });
  const root = mkdtempSync(path.join(projectRoot, 'test/.artifacts/launch-skills-'));
  folders.push(root);
  writeSkill(root, 'pinger', skillModule(tool));
  return root;
}

function writeSkill(root: string, name: string, module: string): void {
  mkdirSync(path.join(root, name), { recursive: true });
  writeFileSync(path.join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: A skill of the launch tests.\nversion: 1.0.0\n---\nSay pong.\n`);
  const file = path.join(root, name, 'index.ts');
  writeFileSync(file, module);
  // A later modification time even where the file system's clock is coarse.
  const later = new Date(Date.now() + 5_000);
  utimesSync(file, later, later);
}

/** Where scripts/launch.mjs keeps the builds for a skills directory. */
const buildHome = (skills: string) => path.join(projectRoot, 'node_modules/.cache/analyst-agent/start', createHash('sha256').update(skills).digest('hex').slice(0, 12));

interface Started {
  pid: number;
  port: number;
  /** The tools the service announced when it started listening. */
  tools: string[];
  stderr: string;
  stop(): Promise<void>;
}

const running: Started[] = [];
/** Skills directories and their builds, removed at the end. */
const folders: string[] = [];
afterEach(async () => {
  for (const service of running.splice(0)) await service.stop();
});
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Runs `node scripts/launch.mjs src/main.ts` as npm start does; resolves once it listens, rejects with its stderr if it exits. */
function launch(skills: string): Promise<Started> {
  folders.push(buildHome(skills));
  const child = spawn(process.execPath, ['scripts/launch.mjs', 'src/main.ts'], {
    cwd: projectRoot,
    env: { ...process.env, SKILLS_DIR: skills, APP_DB: path.join(temporaryDirectory(), 'app.db'), HOST: '127.0.0.1', PORT: '0', LOG_FORMAT: 'json', LOG_LEVEL: 'info', MODEL_PROVIDER: 'offline', QUERY_WORKERS: '1', API_KEYS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise<Started>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const line of stdout.split('\n')) {
        const entry = line.startsWith('{') ? (JSON.parse(line) as { port?: number; tools?: string[] }) : undefined;
        if (typeof entry?.port !== 'number') continue;
        void fetch(`http://127.0.0.1:${entry.port}/health`).then(
          (response) => {
            expect(response.status).toBe(200);
            const started = { pid: child.pid!, port: entry.port!, tools: entry.tools ?? [], stderr, stop };
            running.push(started);
            resolve(started);
          },
          (error: unknown) => void stop().then(() => reject(error as Error)),
        );
        stdout = '';
        return;
      }
    });
    void exited.then(() => reject(new Error(`exited with ${child.exitCode}: ${stderr}`)));
  });
}

/** The command lines of a process's children (its query workers). */
function childCommands(pid: number): string[] {
  return readdirSync(`/proc/${pid}/task`)
    .flatMap((task) => readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean))
    .map((child) => readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').join(' '));
}

describe('npm start from the build', () => {
  it('builds on the first start, serves /health with the skills built in, and rebuilds after an edit', async () => {
    const skills = skillsDirectory('ping_tool');
    const first = await launch(skills);
    expect(first.stderr).toMatch(/no build yet: rebuilt in \d+ ms/);
    expect(first.tools).toContain('ping_tool');
    // Its query worker is the one built with it, on bare Node.
    const workers = childCommands(first.pid);
    expect(workers.some((command) => /analyst-agent\/start\/[0-9a-f]{12}\/[0-9a-f]{16}\/queryWorker\.mjs/.test(command))).toBe(true);
    expect(workers.join('\n')).not.toMatch(/tsx/);
    await first.stop();

    // Unchanged: the build is used as it is.
    const second = await launch(skills);
    expect(second.stderr).not.toMatch(/rebuilt|tsx/);
    // The built service runs tools, and loads the agent (left out of the start) for a question.
    const base = `http://127.0.0.1:${second.port}`;
    const tool = await fetch(`${base}/tools/ping_tool`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(await tool.json()).toMatchObject({ tool: 'ping_tool', result: 'pong' });
    const chat = await fetch(`${base}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'What can you do?' }) });
    const answered = (await chat.json()) as { answer: string; session_id: string };
    expect(chat.status).toBe(200);
    expect(answered.answer).toMatch(/offline model/);
    const history = (await (await fetch(`${base}/sessions/${answered.session_id}`)).json()) as { turns: unknown[] };
    expect(history.turns).toHaveLength(1);
    await second.stop();

    // An edit after the build is served at the next start.
    writeSkill(skills, 'pinger', skillModule('pong_tool'));
    const third = await launch(skills);
    expect(third.stderr).toMatch(/pinger[\\/]index\.ts changed since the build: rebuilt in \d+ ms/);
    expect(third.tools).toContain('pong_tool');
    expect(third.tools).not.toContain('ping_tool');
    await third.stop();

    // A package installed or updated since the build is built in at the next start: npm rewrites
    // node_modules/.package-lock.json at every install, and that one file stands for the packages.
    const install = path.join(projectRoot, 'node_modules/.package-lock.json');
    const { atime, mtime } = statSync(install);
    try {
      utimesSync(install, atime, new Date(Date.now() + 5_000));
      const fourth = await launch(skills);
      expect(fourth.stderr).toMatch(/node_modules[\\/]\.package-lock\.json changed since the build: rebuilt in \d+ ms/);
      expect(fourth.tools).toContain('pong_tool');
    } finally {
      utimesSync(install, atime, mtime);
    }
  }, 180_000);

  it('loads a skill that does not build as TypeScript, so the error names its file', async () => {
    const skills = skillsDirectory('ping_tool');
    writeSkill(skills, 'broken', 'export default {{;\n');
    const error = await launch(skills).then(
      () => new Error('the service started with a broken skill'),
      (failure: unknown) => failure as Error,
    );
    expect(error.message).toMatch(/skill broken does not build .*; it is loaded as TypeScript/);
    expect(error.message).toMatch(/Skill broken: .*broken[\\/]index\.ts failed to load/);
  }, 120_000);

  it('starts through tsx, saying so, when the build cannot be written', async () => {
    const skills = skillsDirectory('ping_tool');
    // A file where the build folder should go: nothing can be written there.
    mkdirSync(path.dirname(buildHome(skills)), { recursive: true });
    writeFileSync(buildHome(skills), 'not a folder');
    folders.push(buildHome(skills));
    const service = await launch(skills);
    expect(service.stderr).toMatch(/cannot build src\/main\.ts \(.*\); starting through tsx/);
    expect(service.tools).toContain('ping_tool');
  }, 120_000);
});
