/**
 * The real sample database, catalog and skills, for tests of tools and the registry.
 */
import path from 'node:path';
import { loadCatalog } from '../../src/catalog/loadCatalog.ts';
import { projectRoot } from '../../src/config/config.ts';
import { createDataAccess } from '../../src/data/dataAccess.ts';
import { openDataDatabase, tableColumns } from '../../src/data/database.ts';
import { silentLogger } from '../../src/logging/logger.ts';
import { memoryRecords, type SkillRecords, type ToolContext } from '../../src/skills/api.ts';
import { loadSkills } from '../../src/skills/loader.ts';
import { SkillRegistry } from '../../src/skills/registry.ts';

export const sampleDatabasePath = path.join(projectRoot, 'data/sample.db');

/** Registry over the repo's skills and a tool context over the sample database. */
export async function sampleToolbox(): Promise<{ registry: SkillRegistry; context: ToolContext; close: () => void }> {
  const database = openDataDatabase(sampleDatabasePath);
  const catalog = loadCatalog(path.join(projectRoot, 'data/sources.yaml'), { columnsOf: (t) => tableColumns(database, t) });
  // Each skill keeps its records in memory here, in its own namespace, as the service keeps them in APP_DB.
  const namespaces = new Map<string, SkillRecords>();
  const recordsFor = (skill: string) => namespaces.get(skill) ?? namespaces.set(skill, memoryRecords()).get(skill)!;
  const registry = new SkillRegistry(await loadSkills(path.join(projectRoot, 'skills')), { recordsFor });
  const data = createDataAccess(database);
  return { registry, context: { catalog, data, logger: silentLogger() }, close: () => data.close() };
}

/** Runs a tool and returns its result, or `{error}` when it failed (the shape the model sees). */
export async function runTool(toolbox: { registry: SkillRegistry; context: ToolContext }, name: string, args: unknown): Promise<any> {
  const outcome = await toolbox.registry.execute(name, args, toolbox.context);
  return outcome.ok ? outcome.result : { error: outcome.error };
}
