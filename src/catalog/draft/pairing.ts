/**
 * A plan or budget kept in its own table beside the actuals (`gl_plan` beside `gl_extract`),
 * drafted as a declared pair: a catalog source reads one table, so the two stay two sources,
 * and each declares the version it holds with `implied` (the actuals `version: ACTUAL`, the plan
 * `version: BUDGET`, or FORECAST), the same logical names for the dimensions and the amount, and
 * aliases (budget, plan; actuals). Comparing the two is then actual vs budget.
 * A table is a plan by its name (plan, budget, forecast, soll) or its amount's name (plan_wert);
 * its actuals are the source without versions that shares the most dimensions with it.
 */
import type { Confidence } from './columnRole.ts';
import type { SourceDraft } from './guess.ts';
import { PLAN_TABLE, termOf } from './vocabulary.ts';

export interface Pairing {
  actual: string;
  plan: string;
  version: string;
  /** Dimensions both sides share, which the comparison aligns on. */
  shared: string[];
  measure: string;
  confidence: Confidence;
  basis: string;
}

/**
 * Finds the pairs and writes them into the drafts (implied versions, aliases, notes).
 * @example
 * pairPlans(sources); // [{ actual: 'gl_extract', plan: 'gl_plan', version: 'BUDGET', shared: ['company', 'period', 'account', 'currency'], measure: 'amount', … }]
 */
export function pairPlans(sources: SourceDraft[]): Pairing[] {
  const versionless = sources.filter((source) => !source.dimensions.some((d) => d.name === 'version' || d.concept === 'version') && !source.implied.version);
  const plans = versionless.flatMap((source) => {
    const byName = PLAN_TABLE.find(({ pattern }) => pattern.test(source.table));
    const byMeasure = source.measures.some((m) => m.column !== undefined && termOf(m.column)?.meaning.startsWith('Planned'));
    if (!byName && !byMeasure) return [];
    const kind = byName ?? PLAN_TABLE.find(({ version }) => version === 'BUDGET')!;
    return [{ source, kind, basis: byName ? `table name ${source.table}` : `amount column ${source.measures.find((m) => m.column && termOf(m.column))!.column}` }];
  });
  const pairings: Pairing[] = [];
  for (const { source: plan, kind, basis } of plans) {
    const names = new Set(plan.dimensions.map((d) => d.name));
    const candidates = versionless
      .filter((source) => source !== plan && !plans.some((p) => p.source === source) && source.defaultMeasure !== 'row_count')
      .map((source) => ({ source, shared: source.dimensions.filter((d) => names.has(d.name) && d.cardinality === 'low').map((d) => d.name) }))
      .filter(({ shared }) => shared.length >= 2)
      .sort((a, b) => b.shared.length - a.shared.length);
    const best = candidates[0];
    if (!best) {
      plan.checks.push(`CHECK: looks like a plan (${basis}) but no source without versions shares two dimensions with it: add implied: { version: ${kind.version} } if it is one.`);
      continue;
    }
    const actual = best.source;
    const measure = sameMeasure(actual, plan);
    const confidence: Confidence = candidates.length === 1 && best.shared.includes('period') && measure.renamed === undefined ? 'likely' : 'guess';
    actual.implied.version ??= 'ACTUAL';
    plan.implied.version = kind.version;
    plan.aliases.push(...kind.aliases.filter((alias) => !plan.aliases.includes(alias)));
    if (!actual.aliases.includes('actuals')) actual.aliases.push('actuals');
    const periodA = actual.dimensions.find((d) => d.type === 'period');
    const periodB = plan.dimensions.find((d) => d.type === 'period');
    const formats = periodA && periodB && periodA.format !== periodB.format ? ` Their periods are written differently (${periodA.format}, ${periodB.format}): they will not align until both read the same.` : '';
    plan.checks.push(`CHECK: drafted as the ${kind.version} of ${actual.name} (${basis}; shares ${best.shared.join(', ')}): a source reads one table, so the pair is declared with implied versions; actual vs budget is ${actual.name} compared with ${plan.name} on ${measure.name}.${measure.renamed ? ` Its measure ${measure.renamed} was renamed ${measure.name} to match.` : ''}${formats}`);
    actual.checks.push(`CHECK: the actuals of the pair ${actual.name} / ${plan.name} (implied version ACTUAL): ${plan.name} holds the ${kind.version.toLowerCase()}.`);
    pairings.push({ actual: actual.name, plan: plan.name, version: kind.version, shared: best.shared, measure: measure.name, confidence, basis: `${basis}; shares ${best.shared.join(', ')} with ${actual.name}` });
  }
  return pairings;
}

/** The measure both sides compare on: the actuals' default; the plan's default is renamed to it when the plan has none of that name. */
function sameMeasure(actual: SourceDraft, plan: SourceDraft): { name: string; renamed?: string } {
  const name = actual.defaultMeasure ?? 'row_count';
  if (plan.measures.some((m) => m.name === name)) return { name };
  const planMeasure = plan.measures.find((m) => m.name === plan.defaultMeasure && m.aggregation === 'sum');
  if (!planMeasure) return { name };
  const renamed = planMeasure.name;
  planMeasure.name = name;
  plan.defaultMeasure = name;
  return { name, renamed };
}
