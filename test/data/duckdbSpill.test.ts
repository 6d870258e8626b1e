/**
 * DuckDB work beyond its memory limit spills to a folder of the engine's own under $TMPDIR, not
 * to `.tmp` in the working directory or beside the database file: a service started from a
 * read-only folder (a container's read-only file system) still answers a large aggregation, and
 * leaves nothing behind — neither when it closes nor after a worker was killed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { openDuckdb } from '../../src/data/engines/duckdb.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const engineModule = pathToFileURL(path.join(projectRoot, 'src/data/engines/duckdb.ts')).href;

/** Runs an ES module script in a fresh Node process from `cwd`; its last output line, parsed. */
function runScript(script: string, cwd: string): unknown {
  const result = spawnSync(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], { cwd, encoding: 'utf8', timeout: 45_000 });
  expect({ status: result.status, signal: result.signal, error: result.error?.message, stderr: result.status === 0 ? '' : result.stderr }).toEqual({ status: 0, signal: null, error: undefined, stderr: '' });
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!);
}

describe('DuckDB beyond its memory limit', () => {
  it('spills to its own temporary folder from a read-only working directory, in memory and on a read-only file, and removes the folder on close', async () => {
    const file = path.join(temporaryDirectory('duckdb-spill-'), 'tiny.duckdb');
    const instance = await DuckDBInstance.create(file);
    const connection = await instance.connect();
    await connection.run('CREATE TABLE t AS SELECT 1 AS x');
    connection.closeSync();
    instance.closeSync();
    // 3 M groups do not fit in 48 MB: DuckDB must write them out (with no writable folder it fails
    // "Failed to create directory .tmp"). The folder is watched while the query runs (DuckDB
    // works off JavaScript's thread). /proc takes no new folder, even for root.
    const script = `
      import { readdirSync } from 'node:fs';
      import { openDuckdb } from ${JSON.stringify(engineModule)};
      const outcomes = [];
      for (const file of [undefined, ${JSON.stringify(file)}]) {
        const engine = await openDuckdb({ file, files: {}, memoryLimit: '48MB' });
        const [[folder]] = await engine.all("SELECT current_setting('temp_directory')", []);
        let spilled = 0;
        const watch = setInterval(() => { spilled = Math.max(spilled, readdirSync(folder).length); }, 2);
        const [[groups, total]] = await engine.all('SELECT count(*), sum(t) FROM (SELECT i % 3000000 AS k, sum(i) AS t FROM range(6000000) r(i) GROUP BY k)', []);
        clearInterval(watch);
        await engine.close();
        outcomes.push({ folder, spilled, groups, total: String(total) });
      }
      console.log(JSON.stringify(outcomes));`;
    const outcomes = runScript(script, '/proc') as { folder: string; spilled: number; groups: number; total: string }[];
    expect(outcomes).toHaveLength(2);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ groups: 3_000_000, total: String((6_000_000 * 5_999_999) / 2) });
      expect(outcome.spilled).toBeGreaterThan(0);
      expect(path.dirname(outcome.folder)).toBe(tmpdir());
      expect(existsSync(outcome.folder)).toBe(false);
    }
  });

  it("removes the folders of ended processes of its pid namespace, also when the pid was reused, and keeps the others'", () => {
    const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))![1];
    const startOf = (pid: number) => {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    };
    const ended = spawnSync(process.execPath, ['-e', '']).pid!;
    const tag = `t${process.pid}`;
    const folders = {
      ended: `analyst-duckdb-${namespace}-${ended}-12345-${tag}`,
      reused: `analyst-duckdb-${namespace}-1-${Number(startOf(1)) + 1}-${tag}`,
      running: `analyst-duckdb-${namespace}-1-${startOf(1)}-${tag}`,
      elsewhere: `analyst-duckdb-1${namespace}-${ended}-12345-${tag}`,
    };
    const at = (name: string) => path.join(tmpdir(), name);
    for (const name of Object.values(folders)) {
      mkdirSync(at(name), { recursive: true });
      writeFileSync(path.join(at(name), 'duckdb_temp_storage-0.tmp'), 'spilled');
    }
    try {
      // A fresh process: each process looks once, at its first engine (the removal finishes before it exits).
      runScript(`import { openDuckdb } from ${JSON.stringify(engineModule)}; await (await openDuckdb({ file: undefined, files: {} })).close(); console.log('{}');`, projectRoot);
      expect(Object.fromEntries(Object.entries(folders).map(([kind, name]) => [kind, existsSync(at(name))]))).toEqual({ ended: false, reused: false, running: true, elsewhere: true });
    } finally {
      for (const name of Object.values(folders)) rmSync(at(name), { recursive: true, force: true });
    }
  });

  it('still opens, and answers what fits in memory, when $TMPDIR cannot be written', async () => {
    const before = process.env.TMPDIR;
    process.env.TMPDIR = '/proc';
    let engine;
    try {
      engine = await openDuckdb({ file: undefined, files: {} });
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
    try {
      expect(await engine.all("SELECT current_setting('temp_directory'), sum(i) FROM range(1000) r(i)", [])).toEqual([['', 499_500]]);
    } finally {
      await engine.close();
    }
  });
});
