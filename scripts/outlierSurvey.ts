/**
 * Prints what find_outlier_periods flags on the sample database for every source, measure,
 * version and split an analyst would try (`npx tsx scripts/outlierSurvey.ts`): the check
 * that the rules flag the planted anomalies of data/README.md and nothing silly besides.
 */
import path from 'node:path';
import { loadCatalog } from '../src/catalog/loadCatalog.ts';
import { projectRoot } from '../src/config/config.ts';
import { createDataAccess } from '../src/data/dataAccess.ts';
import { openDataDatabase, tableColumns } from '../src/data/database.ts';
import { silentLogger } from '../src/logging/logger.ts';
import { loadSkills } from '../src/skills/loader.ts';
import { SkillRegistry } from '../src/skills/registry.ts';

const database = openDataDatabase(path.resolve(projectRoot, process.argv[2] ?? 'data/sample.db'));
const catalog = loadCatalog(path.join(projectRoot, 'data/sources.yaml'), { columnsOf: (t) => tableColumns(database, t) });
const registry = new SkillRegistry(await loadSkills(path.join(projectRoot, 'skills')));
const context = { catalog, data: createDataAccess(database), logger: silentLogger() };

const splits = [['company'], ['company', 'group_account']];
let total = 0;
for (const source of catalog.sources.values()) {
  const versions = source.dimensions.has('version') ? ['ACTUAL', 'BUDGET', 'FORECAST'] : [undefined];
  for (const measure of source.measures.keys()) {
    if (measure.endsWith('_ytd') || measure === 'quantity') continue;
    for (const version of versions) {
      for (const by of splits) {
        const args = { source: source.name, measure, by, limit: 100, ...(process.env.THRESHOLD ? { threshold: Number(process.env.THRESHOLD) } : {}), ...(version ? { filters: { version } } : {}) };
        const outcome = await registry.execute('find_outlier_periods', args, context);
        if (!outcome.ok) continue;
        const result = outcome.result as any;
        total += result.outlier_count;
        const rows = (result.outliers as any[]).map((o) => `  ${by.map((d) => o[d]).join('/')} ${o.period} ${o.value} (median ${o.median}, score ${o.score}${o.flagged_by ? `, ${o.flagged_by.map((f: any) => f.rule).join('+')}` : ''})`);
        console.log(`${source.name} ${measure} ${version ?? ''} by ${by.join('+')}: ${result.outlier_count} flagged in ${result.series_checked} series`);
        if (rows.length) console.log(rows.join('\n'));
      }
    }
  }
}
console.log(`total flagged: ${total}`);
context.data.close();
