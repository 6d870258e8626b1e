/**
 * The data_quality skill on generated databases (data/scale/generateDatabase.ts): every
 * duplicated delta load the manifest records must be found by find_duplicates and pinpointed
 * by its documents, lines and load requests, with nothing else reported; the checks run in
 * query worker processes (QueryPool) as in the service, and in-process for other seeds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDatabase } from '../../data/scale/generateDatabase.ts';
import type { Manifest } from '../../data/scale/manifest.ts';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { projectRoot } from '../../src/config/config.ts';
import { createDataAccess, type DataAccess } from '../../src/data/dataAccess.ts';
import { openDataDatabase, tableColumns } from '../../src/data/database.ts';
import { QueryPool } from '../../src/data/queryPool.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import type { ToolContext } from '../../src/skills/api.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';

const ROWS = 20_000;
type Json = Record<string, any>;

interface Generated {
  seed: number;
  manifest: Manifest;
  db: Database.Database;
  context: ToolContext;
  data: DataAccess;
}

let tmpDir: string;
let registry: SkillRegistry;
const generated: Generated[] = [];

/** Seed 7 (the database of test/data/generated.test.ts) runs in worker processes; the others in-process. */
const CASES = [
  { seed: 7, companies: undefined, pool: true },
  { seed: 8, companies: 4, pool: false },
  { seed: 23, companies: 6, pool: false },
];

beforeAll(async () => {
  tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'data-quality-'));
  registry = new SkillRegistry(await loadSkills(path.join(projectRoot, 'skills')));
  for (const { seed, companies, pool } of CASES) {
    const out = path.join(tmpDir, `finance-${seed}.db`);
    const { manifest } = generateDatabase({ rows: ROWS, out, seed, ...(companies ? { companies } : {}) });
    const database = openDataDatabase(out);
    const catalog = loadCatalog(path.join(projectRoot, 'data', 'sources.yaml'), { columnsOf: (t) => tableColumns(database, t) });
    let data: DataAccess;
    if (pool) {
      database.close();
      data = await QueryPool.start({ databasePath: out, workers: 1, timeoutMs: 60_000, logger: silentLogger() });
    } else {
      data = createDataAccess(database);
    }
    generated.push({ seed, manifest, db: new Database(out, { readonly: true }), context: { catalog, data, logger: silentLogger() }, data });
  }
}, 120_000);

afterAll(async () => {
  for (const g of generated) {
    g.db.close();
    await g.data.close();
  }
  if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
});

async function run(g: Generated, tool: string, args: Json): Promise<Json> {
  const outcome = (await registry.execute(tool, args, g.context)) as Json;
  expect(outcome.ok, `${tool} ${JSON.stringify(args)} failed: ${JSON.stringify(outcome.error)}`).toBe(true);
  return outcome.result as Json;
}

const near = (actual: unknown, expected: number) => typeof actual === 'number' && Math.abs(actual - expected) < 0.005;
const duplicateLoads = (manifest: Manifest) => manifest.discrepancies.filter((d) => d.id === 'duplicated-delta-load').map((d) => d.details as Json);

describe.each(CASES.map((c) => [c.seed, c] as const))('generated database, seed %i', (seed) => {
  const g = () => generated.find((x) => x.seed === seed)!;

  it('find_duplicates finds every duplicated delta load of the manifest, pinpointed by documents and requests, and nothing else', async () => {
    const { manifest, db } = g();
    const loads = duplicateLoads(manifest);
    expect(loads.length).toBeGreaterThanOrEqual(1);
    const result = await run(g(), 'find_duplicates', { source: 'fi_reporting', limit: 100 });
    const expectedLines = loads.reduce((sum, d) => sum + (d.lines as number), 0);
    expect(result).toMatchObject({ key: ['document', 'document_line'], ignore: ['load_request'], duplicate_groups: expectedLines, extra_copies: expectedLines, truncated: false });
    expect(result.patterns).toHaveLength(loads.length);
    for (const load of loads) {
      // The lines of the duplicate request, read straight from SQL: exactly these are duplicated.
      const copies = db
        .prepare('SELECT ac_docnr AS document, CAST(docline AS TEXT) AS document_line, cs_trn_lc AS amount FROM fi_reporting WHERE request_id = ? ORDER BY ac_docnr, docline')
        .all(load.duplicate_request) as Json[];
      expect(copies).toHaveLength(load.lines as number);
      const pattern = (result.patterns as Json[]).find((p) => p.company === load.company && p.period === load.period)!;
      expect(pattern, `no pattern for ${load.company}/${load.period}: ${JSON.stringify(result.patterns)}`).toBeDefined();
      expect(pattern).toMatchObject({
        currency: load.currency,
        copies: 2,
        groups: load.lines,
        load_request: [load.original_request, load.duplicate_request],
        document_count: load.documents,
        more_keys: false,
        differs_in: [],
      });
      expect(near(pattern.duplicated_amount, load.amount as number), `${pattern.duplicated_amount} vs ${load.amount}`).toBe(true);
      expect(pattern.keys).toEqual(copies.map((c) => ({ document: c.document, document_line: c.document_line })));
      expect(pattern.documents).toEqual([...new Set(copies.map((c) => c.document))]);
      // The duplicate request holds nothing but copies; without them the period equals the acquisition layer.
      const breakdown = Object.fromEntries((pattern.breakdown.values as Json[]).map((v) => [v.value, v]));
      expect(breakdown[load.duplicate_request as string]).toMatchObject({ records: load.lines, holds_only_copies: true });
      expect(breakdown[load.original_request as string].holds_only_copies).toBe(false);
      const acquisition = db.prepare('SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_acquisition WHERE compcode = ? AND fiscper = ?').get(load.company, load.period) as Json;
      expect(near(pattern.scope.without_copies, acquisition.amount), `${pattern.scope.without_copies} vs ${acquisition.amount}`).toBe(true);
      expect(result.finding).toContain(`of company ${load.company}, period ${load.period}`);
      expect(result.finding).toContain(`load requests ${load.original_request} and ${load.duplicate_request}`);
      for (const group of result.groups as Json[]) expect(group.load_request).toEqual([load.original_request, load.duplicate_request]);
    }
    const perCurrency = new Map<string, number>();
    for (const load of loads) perCurrency.set(load.currency as string, (perCurrency.get(load.currency as string) ?? 0) + (load.amount as number));
    for (const total of result.totals as Json[]) expect(near(total.duplicated_amount, perCurrency.get(total.currency) ?? NaN)).toBe(true);
  });

  it('filtered to the affected company and period, and its group account, it finds the same lines; the acquisition layer has none', async () => {
    for (const load of duplicateLoads(g().manifest)) {
      const scoped = await run(g(), 'find_duplicates', { source: 'fi_reporting', filters: { company: load.company, period: load.period, group_account: load.group_account } });
      expect(scoped.duplicate_groups).toBe(load.lines);
      // The planted load is on revenue or cost of goods sold (4000000 / 5000000): the other accounts are clean.
      expect(['4000000', '5000000']).toContain(load.gl_account);
      const otherAccounts = await run(g(), 'find_duplicates', { source: 'fi_reporting', filters: { company: load.company, period: load.period, gl_account: { from: '6000000' } } });
      expect(otherAccounts.duplicate_groups).toBe(0);
    }
    const acquisition = await run(g(), 'find_duplicates', { source: 'fi_acquisition' });
    expect(acquisition.duplicate_groups).toBe(0);
    const mart = await run(g(), 'find_duplicates', { source: 'consolidation_mart', filters: { version: ['ACTUAL', 'BUDGET', 'FORECAST'] } });
    expect(mart.duplicate_groups).toBe(0);
  });

  it('find_outlier_periods names the duplicated period among those with an extra load request, without flagging everything', async () => {
    const result = await run(g(), 'find_outlier_periods', { source: 'fi_reporting', by: ['company', 'group_account'], limit: 100 });
    for (const load of duplicateLoads(g().manifest)) {
      expect(result.multiple_load_requests).toContainEqual(expect.objectContaining({ company: load.company, group_account: load.group_account, period: load.period, load_requests: 2, usual_load_requests: 1 }));
    }
    expect(result.multiple_load_requests).toHaveLength(duplicateLoads(g().manifest).length);
    expect(result.outlier_count).toBeLessThan(result.series_checked * result.periods_checked * 0.1);
  });

  it('finds the missing intercompany purchase as a period without rows', async () => {
    const missing = g().manifest.discrepancies.find((d) => d.kind === 'intercompany_missing_buyer')?.details as Json | undefined;
    if (!missing) return;
    const result = await run(g(), 'find_outlier_periods', { source: 'consolidation_mart', by: ['company'], filters: { group_account: 'G5100000' } });
    expect(result.outliers[0]).toMatchObject({ company: missing.buyer, period: missing.period, value: 0, records: 0, direction: 'high' });
  });

  it('find_blank_values reports no defects: only the partner company, blank by design', async () => {
    const result = await run(g(), 'find_blank_values', { source: 'fi_reporting' });
    expect(result.rows_checked).toBe(g().manifest.tables.fi_reporting);
    expect(result.dimensions.map((d: Json) => [d.dimension, d.blank_allowed])).toEqual([['partner_company', true]]);
    expect(result.finding).toMatch(/^No blank values in fi_reporting/);
  });
});
