/**
 * Helpers for a skill's tests: a tool context over the bundled sample data (or your own
 * database and catalog), and `run(tool, args)` that goes through a registry, so arguments are
 * validated and errors shaped exactly as the model and `POST /tools/{name}` get them.
 *
 *   const kit = await skillTestKit(skill);            // skill = the default export of index.ts
 *   const outcome = await kit.run('my_tool', { source: 'fi_reporting' });
 *   expect(outcome).toMatchObject({ ok: true, result: { ... } });
 *   await kit.close();
 *
 * A skill's tests import skillTestKit from the skill SDK (src/skills/api.ts, via sdk/testing.ts,
 * which loads this module on first use); the service's own tests may import this module directly.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Catalog } from '../catalog/catalog.ts';
import { loadCatalog } from '../catalog/loadCatalog.ts';
import { projectRoot } from '../config/config.ts';
import { createDataAccess } from '../data/dataAccess.ts';
import { openDataDatabase, tableColumns } from '../data/database.ts';
import { silentLogger } from '../logging/logger.ts';
import type { SkillModule, ToolContext } from './api.ts';
import type { Skill } from './loader.ts';
import { SkillRegistry, type ToolOutcome } from './registry.ts';
import { memoryRecords, type SkillRecords } from './sdk/records.ts';

export interface SkillTestKit {
  catalog: Catalog;
  context: ToolContext;
  registry: SkillRegistry;
  /** Runs one tool as the model would: `{ok: true, result}` or `{ok: false, error}`; never throws. */
  run(tool: string, args?: unknown): Promise<ToolOutcome>;
  close(): Promise<void>;
}

export interface SkillTestKitOptions {
  /** SQLite data database; default the bundled sample (data/sample.db). */
  databasePath?: string;
  /** Catalog YAML; default data/sources.yaml. */
  catalogPath?: string;
  /** Extra fields of the tool context (e.g. a knowledge base). */
  context?: Partial<ToolContext>;
}

/** A registry of the given skill module(s) and a context over the sample data. */
export async function skillTestKit(modules: SkillModule | readonly SkillModule[], options: SkillTestKitOptions = {}): Promise<SkillTestKit> {
  const database = openDataDatabase(options.databasePath ?? path.join(projectRoot, 'data/sample.db'));
  const catalog = loadCatalog(options.catalogPath ?? path.join(projectRoot, 'data/sources.yaml'), { columnsOf: (table) => tableColumns(database, table) });
  const data = createDataAccess(database);
  const list = Array.isArray(modules) ? (modules as readonly SkillModule[]) : [modules as SkillModule];
  const skills: Skill[] = list.map((module, index) => ({
    name: `skill_under_test_${index + 1}`,
    description: 'The skill module under test.',
    version: '0.0.0',
    instructions: '',
    directory: '(test)',
    tools: module.tools,
  }));
  // Each skill's records in memory, with the rules of the service's stores (sdk/records.ts).
  const records = new Map<string, SkillRecords>();
  const registry = new SkillRegistry(skills, { recordsFor: (skill) => records.get(skill) ?? records.set(skill, memoryRecords()).get(skill)! });
  const context: ToolContext = { catalog, data, logger: silentLogger(), ...options.context };
  return {
    catalog,
    context,
    registry,
    run: (tool, args = {}) => registry.execute(tool, args, context),
    close: () => data.close(),
  };
}

/**
 * A new temporary skills directory outside the repository whose skills still work like the
 * repository's: its parent holds a link to the project's node_modules (so `zod` resolves) and
 * a package.json making .ts files ES modules.
 */
export function temporarySkillsDirectory(prefix = 'skills-'): string {
  const root = mkdtempSync(path.join(os.tmpdir(), prefix));
  symlinkSync(path.join(projectRoot, 'node_modules'), path.join(root, 'node_modules'), 'junction');
  writeFileSync(path.join(root, 'package.json'), '{ "private": true, "type": "module" }\n');
  const directory = path.join(root, 'skills');
  mkdirSync(directory);
  return directory;
}
