/**
 * DuckDB work beyond its memory limit spills to a temporary folder of the engine's own, not to
 * `.tmp` in the working directory: a service started from a read-only folder (a container's
 * read-only file system) still answers a large aggregation, and leaves nothing behind.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/config/config.ts';
import { openDuckdb } from '../../src/data/engines/duckdb.ts';

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const engineModule = pathToFileURL(path.join(projectRoot, 'src/data/engines/duckdb.ts')).href;

describe('DuckDB beyond its memory limit', () => {
  it('spills to its own temporary folder, answering from a read-only working directory, and removes the folder on close', () => {
    // 3 M groups do not fit in 48 MB: DuckDB must write them out (with no writable folder it fails
    // "Failed to create directory .tmp"). /proc takes no new folder, even for root.
    const script = `
      import { openDuckdb } from ${JSON.stringify(engineModule)};
      const engine = await openDuckdb({ file: undefined, files: {}, memoryLimit: '48MB' });
      const [[folder]] = await engine.all("SELECT current_setting('temp_directory')", []);
      const [[groups, total]] = await engine.all('SELECT count(*), sum(t) FROM (SELECT i % 3000000 AS k, sum(i) AS t FROM range(6000000) r(i) GROUP BY k)', []);
      await engine.close();
      console.log(JSON.stringify({ folder, groups, total: String(total) }));`;
    const result = spawnSync(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], { cwd: '/proc', encoding: 'utf8', timeout: 60_000 });
    expect(result.stderr).toBe('');
    const answer = JSON.parse(result.stdout) as { folder: string; groups: number; total: string };
    expect(answer).toMatchObject({ groups: 3_000_000, total: String((6_000_000 * 5_999_999) / 2) });
    expect(path.dirname(answer.folder)).toBe(tmpdir());
    expect(existsSync(answer.folder)).toBe(false);
  });

  it('removes the spill folders of ended processes (a worker stopped with SIGKILL leaves its own) and keeps those of running ones', async () => {
    const ended = spawnSync(process.execPath, ['-e', '']).pid!;
    const stale = path.join(tmpdir(), `analyst-duckdb-${ended}-test`);
    const running = path.join(tmpdir(), `analyst-duckdb-1-test${process.pid}`);
    for (const folder of [stale, running]) {
      mkdirSync(folder, { recursive: true });
      writeFileSync(path.join(folder, 'duckdb_temp_storage-0.tmp'), 'spilled');
    }
    try {
      const engine = await openDuckdb({ file: undefined, files: {} });
      await engine.close();
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(running)).toBe(true);
    } finally {
      rmSync(running, { recursive: true, force: true });
      rmSync(stale, { recursive: true, force: true });
    }
  });
});
