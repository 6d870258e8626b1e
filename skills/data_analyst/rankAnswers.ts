/**
 * Words the answers of ranking questions from query_source results: the top (or bottom) values
 * of a dimension with the rule they were ranked by, and monthly rows summed into quarters.
 * Every figure comes from a result.
 */
import type { Catalog, Ranking, TextFormat } from '../../src/skills/api.ts';

type Json = Record<string, any>;

/** A value of a dimension as a reader knows it: a month, or a code with its catalog name ("G6000000 (Personnel expenses)"). */
function valueName(catalog: Catalog, source: string, dimension: string, value: unknown, f: TextFormat): string {
  if (typeof value === 'string' && /^\d{7}$/.test(value) && catalog.sources.get(source)?.dimensions.get(dimension)?.type === 'period') return f.month(value);
  const label = typeof value === 'string' ? catalog.sources.get(source)?.dimensions.get(dimension)?.values.get(value)?.[0] : undefined;
  const text = f.value(dimension, value);
  return label && label !== value ? `${text} (${label})` : `${dimension.replace(/_/g, ' ')} ${text}`;
}

/**
 * A ranking of one dimension's values by a measure, read in one currency: the top (or bottom)
 * `count`, with the rule it was ranked by. Costs are negative: when every value is, "highest"
 * means the largest cost, and a net is ranked by its size.
 *
 * @example
 * rankAnswer(result, { end: 'highest', count: 1, bySize: false, dimension: 'period' }, catalog, textFormat())
 * // 'Highest period by amount in fi_reporting for …: December 2024: 2,036,800.00 EUR.\nNext: …'
 */
export function rankAnswer(result: Json, ranking: Ranking, catalog: Catalog, f: TextFormat): string {
  const dimension = ranking.dimension!;
  const measure: Json = result.measures[0];
  const scope = f.filters(result.filters);
  const noun = ranking.grain ?? dimension.replace(/_/g, ' ');
  const head = (end: string, count: number) => `${end} ${noun}${count === 1 ? '' : ' values'} by ${measure.name} in ${result.source}${scope ? ` for ${scope}` : ''}`;
  const numeric = (result.rows as Json[]).filter((row) => typeof row[measure.name] === 'number');
  const rows = ranking.grain === 'quarter' ? byQuarter(numeric, dimension, [measure.name], catalog.fiscalYearStart) : numeric;
  if (rows.length === 0) return `No data in ${result.source}${scope ? ` for ${scope}` : ''}.`;
  const costs = rows.every((row) => row[measure.name] <= 0);
  const mixed = rows.some((row) => row[measure.name] < 0) && rows.some((row) => row[measure.name] > 0);
  const bySize = ranking.bySize && mixed;
  const size = bySize || costs;
  const key = (row: Json) => (size ? Math.abs(row[measure.name]) : row[measure.name]);
  const sorted = [...rows].sort((x, y) => key(y) - key(x));
  const unit = (row: Json) => (String(measure.unit).startsWith('currency in dimension') ? (row.currency ?? null) : measure.unit === 'lines' || measure.unit === 'number' ? undefined : measure.unit);
  const line = (row: Json) => `${ranking.grain ? row[dimension] : valueName(catalog, result.source, dimension, row[dimension], f)}: ${f.amount(row[measure.name], unit(row))}`;
  const rule = bySize ? ' (ranked by size, whatever the sign: costs are negative)' : costs ? ' (the amounts are negative, costs: ranked by size)' : mixed ? ' (ranked by signed amount)' : '';
  const lines: string[] = [];
  const ends = ranking.end === 'both' ? (['highest', 'lowest'] as const) : [ranking.end];
  for (const end of ends) {
    const ordered = end === 'highest' ? sorted : [...sorted].reverse();
    const shown = ordered.slice(0, Math.min(ranking.count, ordered.length));
    if (shown.length === 1) lines.push(`${head(end === 'highest' ? 'Highest' : 'Lowest', 1)}${rule}: ${line(shown[0]!)}.`);
    else lines.push(`${head(`${end === 'highest' ? 'Top' : 'Bottom'} ${shown.length}`, shown.length)}${rule}:`, ...shown.map((row, index) => `${index + 1}. ${line(row)}`));
  }
  if (ranking.end !== 'both' && ranking.count === 1 && sorted.length > 1) {
    const ordered = ranking.end === 'highest' ? sorted : [...sorted].reverse();
    lines.push(`Next: ${ordered.slice(1, 3).map(line).join('; ')}.`);
  }
  lines.push(`(${sorted.length} ${noun} value${sorted.length === 1 ? '' : 's'} ranked.)`);
  return lines.join('\n');
}

/**
 * Monthly rows (periods YYYYPPP) summed into quarters labelled "Q4 2024", per value of every
 * other field (currency, company, …); special periods (13–16) are left out.
 *
 * @example
 * byQuarter([{ period: '2024010', currency: 'EUR', amount: 1 }, { period: '2024011', currency: 'EUR', amount: 2 }], 'period', ['amount'])
 * // [{ period: 'Q4 2024', currency: 'EUR', amount: 3 }]
 */
export function byQuarter(rows: Json[], dimension: string, measures: string[], fiscalYearStart = 1): Json[] {
  const quarters = new Map<string, Json>();
  for (const row of rows) {
    const period = String(row[dimension]);
    const month = Number(period.slice(4));
    if (!/^\d{7}$/.test(period) || month < 1 || month > 12) continue;
    // A fiscal year that does not start in January is named as such: "Q1 FY2024" (April–June 2024).
    const label = `Q${Math.ceil(month / 3)} ${fiscalYearStart === 1 ? '' : 'FY'}${period.slice(0, 4)}`;
    const key = JSON.stringify(Object.entries(row).filter(([name]) => !measures.includes(name) && name !== dimension).concat([[dimension, label]]));
    const quarter = quarters.get(key) ?? { ...row, [dimension]: label, ...Object.fromEntries(measures.map((m) => [m, 0])) };
    for (const m of measures) quarter[m] = Math.round((quarter[m] + (typeof row[m] === 'number' ? row[m] : 0)) * 100) / 100;
    quarters.set(key, quarter);
  }
  return [...quarters.values()];
}
