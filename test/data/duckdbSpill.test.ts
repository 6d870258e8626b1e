/**
 * DuckDB work beyond its memory limit spills to a folder of the engine's own under $TMPDIR, not
 * to `.tmp` in the working directory or beside the database file: a service started from a
 * read-only folder (a container's read-only file system) still answers a large aggregation, and
 * leaves nothing behind — neither when it closes nor after a worker was killed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, uptime } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { openDuckdb } from '../../src/data/engines/duckdb.ts';
import { QueryPool } from '../../src/data/queryPool.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const engineModule = pathToFileURL(path.join(projectRoot, 'src/data/engines/duckdb.ts')).href;

/** This machine's boot and this process's pid namespace, as spill folder names carry them. */
const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').replaceAll('-', '').slice(0, 12);
const namespace = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))![1];

/** Runs an ES module script in a fresh Node process from `cwd`; its last output line, parsed. */
function runScript(script: string, cwd: string, environment: NodeJS.ProcessEnv = process.env): unknown {
  const result = spawnSync(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], { cwd, env: environment, encoding: 'utf8', timeout: 45_000 });
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

  it("removes the folders of ended processes of its boot and pid namespace, also when the pid was reused, and keeps the others'", () => {
    const startOf = (pid: number) => {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
    };
    // The start time is the one the kernel counts (in clock ticks after boot), not another field.
    const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout);
    expect(Math.abs(Number(startOf(process.pid)) / ticks - (uptime() - process.uptime()))).toBeLessThan(2);
    const ended = spawnSync(process.execPath, ['-e', '']).pid!;
    const folders = {
      ended: `analyst-duckdb-${boot}-${namespace}-${ended}-12345-a`,
      reused: `analyst-duckdb-${boot}-${namespace}-1-${Number(startOf(1)) + 1}-a`,
      running: `analyst-duckdb-${boot}-${namespace}-1-${startOf(1)}-a`,
      otherNamespace: `analyst-duckdb-${boot}-1${namespace}-${ended}-12345-a`,
      otherBoot: `analyst-duckdb-${boot === '0'.repeat(12) ? '1'.repeat(12) : '0'.repeat(12)}-${namespace}-${ended}-12345-a`,
    };
    // A temporary folder of this test's own: no other process sweeps it.
    const spills = temporaryDirectory('spills-');
    for (const name of Object.values(folders)) {
      mkdirSync(path.join(spills, name));
      writeFileSync(path.join(spills, name, 'duckdb_temp_storage-0.tmp'), 'spilled');
    }
    // A fresh process: each looks once, at its first engine (the removal ends before it exits).
    runScript(`import { openDuckdb } from ${JSON.stringify(engineModule)}; await (await openDuckdb({ file: undefined, files: {} })).close(); console.log('{}');`, projectRoot, { ...process.env, TMPDIR: spills });
    expect(Object.fromEntries(Object.entries(folders).map(([kind, name]) => [kind, existsSync(path.join(spills, name))]))).toEqual({ ended: false, reused: false, running: true, otherNamespace: true, otherBoot: true });
    // …and the child's own folder went when it closed.
    expect(readdirSync(spills).filter((name) => name.startsWith('analyst-duckdb-'))).toHaveLength(3);
  });

  it('leaves no folder of a query worker the pool stops with SIGKILL (at shutdown, or past its time), and removes what a crashed service left', async () => {
    const directory = temporaryDirectory('spill-pool-');
    const lines = path.join(directory, 'lines.csv');
    writeFileSync(lines, 'doc,amount\nD1,1.5\n');
    const spills = temporaryDirectory('spills-');
    const before = process.env.TMPDIR;
    // The pool makes its workers' spill folders here.
    process.env.TMPDIR = spills;
    // What a crashed service left (its pid has ended): the pool removes it as it starts its workers.
    const crashed = path.join(spills, `analyst-duckdb-${boot}-${namespace}-${spawnSync(process.execPath, ['-e', '']).pid}-12345-worker-a`);
    mkdirSync(crashed);
    writeFileSync(path.join(crashed, 'duckdb_temp_storage-0.tmp'), 'spilled');
    try {
      const connections = [{ name: 'default', url: `sqlite:${path.join(projectRoot, 'data/sample.db')}` }, { name: 'lake', url: 'duckdb:', files: { lines } }];
      const pool = await QueryPool.start({ databasePath: path.join(projectRoot, 'data/sample.db'), connections, workers: 1, timeoutMs: 30_000, logger: silentLogger() });
      try {
        const { rows } = await pool.run({ kind: 'select', connection: 'lake', table: 'lines', aggregates: [{ name: 'total', function: 'sum', column: 'amount' }] });
        expect(rows).toEqual([{ total: 1.5 }]);
        // Each worker (and the warm spare) has a spill folder of its own; the one that ran the
        // query holds its DuckDB connection's.
        const workers = readdirSync(spills).filter((name) => /^analyst-duckdb-.*-worker-/.test(name));
        expect(workers.length).toBeGreaterThanOrEqual(1);
        expect(workers.flatMap((worker) => readdirSync(path.join(spills, worker))).filter((name) => name.startsWith('analyst-duckdb-'))).toHaveLength(1);
      } finally {
        await pool.close();
      }
      // Removed in the background: waited for, not timed.
      for (let tries = 0; existsSync(crashed) && tries < 250; tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(readdirSync(spills).filter((name) => name.startsWith('analyst-duckdb-'))).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  }, 60_000);

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
