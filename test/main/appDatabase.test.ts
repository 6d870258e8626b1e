/**
 * The application database (APP_DB) failing loudly, through the real entry point
 * (`node --import tsx src/main.ts`): a damaged file stops startup with how to recover, and a file
 * deleted or overwritten while the service runs turns /chat into a 503 (never a 200 for a turn
 * that would be lost) and GET /health into `down`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, openSync, rmSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSessionStore } from '../../src/sessions/sqliteSessionStore.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { projectRoot, startServer, type ServerProcess } from './support/serverProcess.ts';

const servers: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.kill()));
});

/** An application database with some sessions, closed cleanly. */
function appDatabaseWithSessions(): string {
  const file = path.join(temporaryDirectory('app-db-'), 'app.db');
  const store = openSessionStore({ path: file, ttlMs: 0, healthCheckIntervalMs: 0 });
  for (let i = 0; i < 300; i += 1) store.create();
  store.close();
  return file;
}

/** Overwrites `length` bytes at `offset`. */
function scribble(file: string, offset: number, length: number): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(length, 0xde), 0, length, offset);
  closeSync(fd);
}

function startMain(env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'src/main.ts')], {
    cwd: projectRoot,
    env: { ...process.env, LOG_LEVEL: 'silent', PORT: '0', MODEL_PROVIDER: 'offline', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

const chat = (url: string, body: Record<string, unknown>) =>
  fetch(`${url}/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('a damaged APP_DB at startup', () => {
  it('refuses to start on a file with a damaged page, saying how to recover', () => {
    const file = appDatabaseWithSessions();
    scribble(file, 4096 * 2, 4096);
    const result = startMain({ APP_DB: file });
    expect(result.status).toBe(1);
    const message = result.stderr.trim();
    expect(message).toMatch(new RegExp(`^APP_DB: ${file} is damaged \\(`));
    expect(message).toMatch(/the service does not start on it/);
    expect(message).toMatch(/move the file and its -wal and -shm files aside/);
    expect(message).toMatch(/\.recover/);
    expect(message).not.toMatch(/\n\s+at /);
  }, 40_000);

  it('refuses a file that is not a SQLite database', () => {
    const file = appDatabaseWithSessions();
    scribble(file, 0, 100);
    const result = startMain({ APP_DB: file });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toMatch(new RegExp(`^APP_DB: ${file} is damaged \\(file is not a database\\)`));
  }, 40_000);
});

describe('APP_DB lost while the service runs', () => {
  it('answers 503 instead of 200 once app.db* is deleted, and /health says down', async () => {
    const file = path.join(temporaryDirectory('app-db-rm-'), 'app.db');
    const server = await startServer({ APP_DB: file });
    servers.push(server);
    const first = await chat(server.url, { message: 'Which sources are available?' });
    expect(first.status).toBe(200);
    const { session_id } = (await first.json()) as { session_id: string };
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });

    const fresh = await chat(server.url, { message: 'Which sources are available?' });
    expect(fresh.status).toBe(503);
    expect(await fresh.json()).toMatchObject({ type: '/problems/storage-unavailable', detail: expect.stringMatching(/app\.db \(APP_DB\) was deleted or moved/) });
    const followUp = await chat(server.url, { message: 'and for company 2000?', session_id });
    expect(followUp.status).toBe(503);
    const streamed = await chat(server.url, { message: 'Which sources are available?', session_id, stream: true });
    expect(await streamed.text()).toMatch(/event: error\ndata: \{"type":"\/problems\/storage-unavailable"/);

    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'down', components: { app_database: { status: 'down', reason: expect.stringMatching(/deleted or moved/) } } });
    expect(existsSync(file)).toBe(false); // nothing was written to a new file behind the operator's back
  }, 40_000);

  it('notices a file overwritten at run time within a bound, and refuses turns', async () => {
    const file = path.join(temporaryDirectory('app-db-scribble-'), 'app.db');
    const server = await startServer({ APP_DB: file });
    servers.push(server);
    expect((await chat(server.url, { message: 'Which sources are available?' })).status).toBe(200);
    scribble(file, 0, 100);
    let report: any;
    // Polls until the file check notices (every second); the 20 s only catch a check that never comes.
    const started = Date.now();
    while (Date.now() - started < 20_000 && report?.components?.app_database?.status !== 'down') {
      report = await (await fetch(`${server.url}/health`)).json();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(report).toMatchObject({ status: 'down', components: { app_database: { status: 'down', reason: expect.stringMatching(/was overwritten/) } } });
    const refused = await chat(server.url, { message: 'Which sources are available?' });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ type: '/problems/storage-unavailable' });
  }, 90_000);
});
