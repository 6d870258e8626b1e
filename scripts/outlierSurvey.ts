/**
 * Prints what find_outlier_periods flags on the sample database for every source, measure,
 * version and split an analyst would try (`npx tsx scripts/outlierSurvey.ts`): the check
 * that the rules flag the planted anomalies of data/README.md and nothing silly besides. Then,
 * with the real scoring code, how often each rule fires on twelve months of pure normal noise
 * (seeded): the false alarms the thresholds in limits.ts are chosen against.
 */
import path from 'node:path';
import { loadCatalog } from '../src/catalog/loadCatalog.ts';
import { projectRoot } from '../src/config/config.ts';
import { createDataAccess } from '../src/data/dataAccess.ts';
import { openDataDatabase, tableColumns } from '../src/data/database.ts';
import { silentLogger } from '../src/logging/logger.ts';
import { loadSkills } from '../src/skills/loader.ts';
import { SkillRegistry } from '../src/skills/registry.ts';
import { mulberry32 } from '../data/sample/random.ts';
import { scoreSeries, type OutlierRule } from '../skills/data_quality/outliers.ts';
import { MIN_DEVIATION_PERCENT } from '../skills/data_quality/limits.ts';

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

// Twelve months of normal noise whose mean lies `level` standard deviations from zero.
const random = mulberry32(20);
const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const SERIES = 10_000;
for (const threshold of [3, 3.5]) {
  for (const level of [2, 3, 6, 10]) {
    const fired = new Map<OutlierRule, number>();
    for (let n = 0; n < SERIES; n++) {
      const points = Array.from({ length: 12 }, (_, i) => ({ period: String(i), value: level + normal(), records: 1, loads: undefined }));
      const rules = new Set(scoreSeries(points, { threshold, minDeviationPercent: MIN_DEVIATION_PERCENT, halfMedianThreshold: threshold - 1 }).points.flatMap((p) => p.flaggedBy.map((hit) => hit.rule)));
      for (const rule of rules) fired.set(rule, (fired.get(rule) ?? 0) + 1);
    }
    const share = (rule: OutlierRule) => `${(((fired.get(rule) ?? 0) / SERIES) * 100).toFixed(1)}%`;
    console.log(`noise, mean ${level} SD from zero, threshold ${threshold}: robust_score fires in ${share('robust_score')} of series, below_half_median in ${share('below_half_median')}`);
  }
}
