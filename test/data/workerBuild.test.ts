/**
 * Query workers run built JavaScript (src/data/workerBuild.ts): a replacement for a killed
 * worker starts on bare Node instead of transpiling TypeScript, and a reducer module edited
 * while the service runs (SKILLS_RELOAD) is rebuilt: at once when its skill is re-imported,
 * within a second otherwise.
 */
import { readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryPool } from '../../src/data/queryPool.ts';
import type { FoldQuery } from '../../src/data/query.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { temporaryDirectory } from '../support/catalogFixture.ts';
import { sumField } from '../support/testReducers.ts';

const directory = temporaryDirectory('worker-build-');
const reducerFile = path.join(directory, 'scaledSum.ts');
const reducerSource = (factor: number) => `
import { defineReducer } from ${JSON.stringify(path.resolve('src/data/reducer.ts'))};
export const scaledSum = defineReducer(import.meta.url, 'scaledSum', {
  start: () => ({ total: 0 }),
  step: (state: { total: number }, row: Record<string, unknown>) => { state.total += Number(row.amount) * ${factor}; },
  finish: (state: { total: number }) => state.total,
});
`;

/** Rewrites the reducer with another factor, with a later modification time even where the file system's clock is coarse. */
let edits = 0;
function edit(factor: number): void {
  writeFileSync(reducerFile, reducerSource(factor));
  edits += 1;
  const later = new Date(Date.now() + edits * 5_000);
  utimesSync(reducerFile, later, later);
}

const sumOf = (module: string, name: string): FoldQuery => ({
  kind: 'fold',
  select: { kind: 'select', table: 'facts', columns: [{ name: 'amount', column: 'amount' }] },
  fold: { module, name, options: { field: 'amount' } },
});

let pool: QueryPool;
beforeAll(async () => {
  const file = path.join(directory, 'data.db');
  const db = new Database(file);
  db.exec('CREATE TABLE facts (amount REAL); INSERT INTO facts VALUES (1.5), (2.5), (6)');
  db.close();
  writeFileSync(reducerFile, reducerSource(1));
  pool = await QueryPool.start({ databasePath: file, workers: 1, spare: false, timeoutMs: 30_000, logger: silentLogger() });
}, 60_000);
afterAll(() => pool?.close());

describe('built query workers', () => {
  it('start on bare Node with a JavaScript build, not through tsx', () => {
    const [pid] = pool.workerPids();
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(commandLine.join(' ')).not.toMatch(/tsx/);
    expect(commandLine.find((part) => part.endsWith('.mjs'))).toMatch(/node_modules\/\.cache\/analyst-agent\/[0-9a-f]{16}\/queryWorker\.mjs$/);
  });

  it("run a skill's TypeScript reducer, built before the query", async () => {
    const result = await pool.run(sumOf(sumField.module, sumField.name));
    expect(result).toMatchObject({ folded: { total: 10, rows: 3 } });
  });

  it('rebuild a reducer module edited after its first use: at once when re-imported, within a second otherwise', async () => {
    const url = pathToFileURL(reducerFile).href;
    expect(await pool.run(sumOf(url, 'scaledSum'))).toMatchObject({ folded: 10 });
    edit(3);
    // A reloaded skill imports the module under a new URL (tsx's namespace query): checked at once.
    expect(await pool.run(sumOf(`${url}?namespace=reloaded`, 'scaledSum'))).toMatchObject({ folded: 30 });
    edit(5);
    // The same URL: its files are looked at again once a second has passed since the last look.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await pool.run(sumOf(`${url}?namespace=reloaded`, 'scaledSum'))).toMatchObject({ folded: 50 });
  });
});
