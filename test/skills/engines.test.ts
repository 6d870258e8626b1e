/**
 * The same questions give the same figures on every engine: every tool's sample calls and
 * declared examples run on the sample loaded into DuckDB, into PostgreSQL (a real server
 * started by the test setup) and as Parquet files read by DuckDB, and must answer exactly what
 * they answer on SQLite (only the SQL text they show differs).
 */
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { projectRoot } from '../../src/config/config.ts';
import { Connections, type ConnectionSpec } from '../../src/data/connections.ts';
import { createDataAccess } from '../../src/data/dataAccess.ts';
import { buildKnowledgeBase } from '../../src/knowledge/knowledgeBase.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import type { ToolContext } from '../../src/skills/api.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';
import { engineSampleUrls } from '../support/engineSamples.ts';
import { sampleCalls } from '../support/sampleCalls.ts';

const TABLES = ['fi_acquisition', 'fi_reporting', 'consolidation_mart', 'bpc_reporting'];

/** Answers of every call, in order, with the SQL text left out (it is each engine's own). */
async function answers(registry: SkillRegistry, spec: ConnectionSpec): Promise<unknown[]> {
  const catalog = loadCatalog(path.join(projectRoot, 'data/sources.yaml'));
  const data = createDataAccess(new Connections([spec], { statementTimeoutMs: 30_000 }));
  const context: ToolContext = { catalog, data, logger: silentLogger(), knowledge: buildKnowledgeBase(registry.skills) };
  const results: unknown[] = [];
  let comparisonId = '';
  try {
    // A skill that keeps records (the close) reads the data only through other tools, which run
    // here; its own results hold run times and ids, not figures of an engine.
    const keepsRecords = (name: string) => registry.get(name)!.skill.tools.some((tool) => tool.writes);
    const declared = registry.names().filter((name) => !sampleCalls[name] && !keepsRecords(name)).map((name) => [name, registry.get(name)!.tool.examples ?? []] as const);
    for (const [name, calls] of [...Object.entries(sampleCalls), ...declared]) {
      for (const args of calls) {
        const filled = JSON.parse(JSON.stringify(args).replace('{comparison_id}', comparisonId));
        const outcome = await registry.execute(name, filled, context);
        if (outcome.ok && name === 'compare_sources' && !comparisonId) comparisonId = (outcome.result as { comparison_id: string }).comparison_id;
        results.push({ call: `${name} ${JSON.stringify(args)}`, ...(outcome.ok ? { result: withoutSql(outcome.result) } : { error: outcome.error }) });
      }
    }
  } finally {
    await data.close();
  }
  return results;
}

/** The value without `sql` fields and with comparison ids made equal (they are random). */
function withoutSql(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSql);
  if (value === null || typeof value !== 'object') return typeof value === 'string' ? value.replace(/cmp_[A-Za-z0-9_-]+/g, 'cmp_…') : value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'sql').map(([key, inner]) => [key, withoutSql(inner)]));
}

const urls = await engineSampleUrls();

describe('the same questions on every engine', () => {
  let registry: SkillRegistry;
  let onSqlite: unknown[];
  beforeAll(async () => {
    registry = new SkillRegistry(await loadSkills(path.join(projectRoot, 'skills')));
    onSqlite = await answers(registry, { name: 'default', url: urls.sqlite });
  }, 60_000);

  it('answers on SQLite first (the reference), with no failed call', () => {
    expect(onSqlite.length).toBeGreaterThan(20);
    expect(onSqlite.filter((answer) => 'error' in (answer as object))).toEqual([]);
  });

  it.each([
    ['DuckDB', { name: 'default', url: urls.duckdb }],
    ['PostgreSQL', { name: 'default', url: urls.postgres }],
    ['Parquet files through DuckDB', { name: 'default', url: 'duckdb:', files: Object.fromEntries(TABLES.map((table) => [table, path.join(urls.parquet, `${table}.parquet`)])) }],
  ] as const)('gives the same figures on %s', async (_engine, spec) => {
    const onEngine = await answers(registry, spec as ConnectionSpec);
    // Failed calls first, with their messages: they say most about what an engine does differently.
    expect(onEngine.filter((answer) => 'error' in (answer as object))).toEqual([]);
    for (const [index, answer] of onEngine.entries()) expect(answer).toEqual(onSqlite[index]);
  }, 60_000);
});
