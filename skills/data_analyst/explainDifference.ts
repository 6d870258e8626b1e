/**
 * explain_difference: finds which dimension values account for a gap between two sources.
 * For each dimension both sources share, it ranks the values by their contribution to the gap;
 * for dimensions only one source has (load request, audit trail, document…), it looks for a
 * value whose amount equals the gap, such as a duplicated load or a manual adjustment.
 */
import { z } from 'zod';
import { findSource, type Source } from '../../src/catalog/catalog.ts';
import { resolveFilters, type FilterInput } from '../../src/catalog/filters.ts';
import { defineTool, ToolError, type ToolContext } from '../../src/skills/api.ts';
import { formatAmount } from '../../src/shared/format.ts';
import { compare, compareInput, type CompareArguments } from './compareSources.ts';
import { comparisons } from './comparisonStore.ts';
import { toWhere } from './querySource.ts';

/** Values listed per dimension, and the most values a one-sided dimension may have to be scanned. */
const VALUES_PER_DIMENSION = 5;
/** Differences read per dimension to measure how concentrated the gap is. */
const CONCENTRATION_ROWS = 50;
const MAX_ONE_SIDED_VALUES = 50;

const input = z
  .strictObject({
    comparison_id: z.string().min(1).optional().describe('comparison_id from compare_sources'),
    comparison: compareInput.optional().describe('or the compare_sources arguments'),
    key: z
      .record(z.string(), z.union([z.string(), z.null()]))
      .optional()
      .describe('which aligned row to explain, e.g. {"company":"1000","period":"2024012"}; default: the largest difference'),
    dimensions: z.array(z.string().min(1)).max(12).optional().describe('dimensions to try; default: all that could explain it'),
  })
  .refine((value) => value.comparison_id !== undefined || value.comparison !== undefined, { error: 'give comparison_id or comparison' });

export const explainDifference = defineTool({
  name: 'explain_difference',
  description:
    'Explain a gap found by compare_sources: which dimension values (e.g. group account, partner) account for it, ranked, and which load request, audit trail or document on one side carries exactly the gap. Pass comparison_id (or the comparison arguments) and optionally the key of the row to explain.',
  input,
  handler: async (args, context) => {
    const base: CompareArguments = args.comparison_id ? (comparisons.recall(args.comparison_id).args as CompareArguments) : args.comparison!;
    const overview = args.comparison_id ? comparisons.recall(args.comparison_id).result : await compare({ ...base, top: 1 }, context);
    const sourceA = findSource(context.catalog, base.source_a);
    const sourceB = findSource(context.catalog, base.source_b);
    // The currency key may be a fixed currency rather than a dimension: the gap picks it instead.
    const alignOn = (overview.align_on as string[]).filter((d) => d !== 'currency');
    const key = args.key ?? largestKey(overview.top_differences[0], alignOn);
    if (!key) return { explanation: 'There is nothing to explain: every aligned row matches.', summary: overview.summary };
    const scoped: CompareArguments = { ...base, filters: { ...base.filters, ...keyFilters(key, sourceA, sourceB) }, align_on: [], top: 1 };
    const gapResult = await compare(scoped, context);
    // A key that spans several currencies: explain the currency with the largest gap.
    const gap = [...gapResult.summary.totals].sort((x, y) => Math.abs(y.difference) - Math.abs(x.difference))[0];
    if (!gap || gap.difference === 0) {
      return { key, explanation: `There is no gap at ${describeKey(key)}.`, summary: gapResult.summary };
    }
    const currency = gap.currency ?? null;
    const byDimension = await rankSharedDimensions(scoped, args.dimensions, alignOn, gap.difference, sourceA, sourceB, context);
    const oneSided = await findOneSidedCauses(scoped, args.dimensions, gap.difference, sourceA, sourceB, context);
    return {
      key,
      gap: { currency, total_a: gap.total_a, total_b: gap.total_b, difference: gap.difference },
      by_dimension: byDimension,
      one_sided: oneSided,
      explanation: explain(key, gap.difference, currency, sideLabel(base, 'a'), sideLabel(base, 'b'), byDimension, oneSided),
    };
  },
});

type Ranked = { dimension: string; values_compared: number; explains_percent: number; uniform_percent?: number; values: { value: string | null; a: number | null; b: number | null; difference: number; share_percent: number }[] };
type OneSided = { source: string; dimension: string; value: string | null; amount: number };

/**
 * When every value along a dimension differs by the same percentage, the cause is a rate, not
 * a posting: a translation at another exchange rate, a scaling, a unit change.
 */
function uniformPercent(rows: { difference_percent: number | null; difference: number }[], summary: { aligned_rows: number }): { uniform_percent: number } | Record<string, never> {
  const percents = rows.map((row) => (row.difference_percent === null ? null : Math.sign(row.difference) * row.difference_percent));
  if (rows.length < 3 || rows.length !== summary.aligned_rows || percents.some((p) => p === null)) return {};
  const values = percents as number[];
  const spread = Math.max(...values.map(Math.abs)) - Math.min(...values.map(Math.abs));
  return spread <= 0.05 ? { uniform_percent: Math.round(Math.abs(values[0]!) * 100) / 100 } : {};
}

function largestKey(row: Record<string, unknown> | undefined, alignOn: string[]): Record<string, string | null> | undefined {
  if (!row) return undefined;
  return Object.fromEntries(alignOn.map((name) => [name, (row[name] as string | null) ?? null]));
}

/** The key as filters, for the dimensions both sources have. */
function keyFilters(key: Record<string, string | null>, a: Source, b: Source): FilterInput {
  for (const name of Object.keys(key)) {
    if (!a.dimensions.has(name) || !b.dimensions.has(name)) {
      throw new ToolError('unknown_dimension', `Key dimension '${name}' is not a dimension of both sources.`, {
        hint: 'Use the dimensions of the comparison\'s align_on, e.g. {"company":"1000","period":"2024012"}.',
        details: { argument: 'key' },
      });
    }
  }
  return key;
}

async function rankSharedDimensions(scoped: CompareArguments, only: string[] | undefined, alignOn: string[], gap: number, a: Source, b: Source, context: ToolContext): Promise<Ranked[]> {
  // Dimensions fixed by a filter (on either side, e.g. version ACTUAL vs BUDGET) cannot explain anything.
  const pinned = new Set([...alignOn, ...Object.keys(scoped.filters ?? {}), ...Object.keys(scoped.filters_a ?? {}), ...Object.keys(scoped.filters_b ?? {}), 'currency']);
  const candidates = [...a.dimensions.keys()].filter((d) => b.dimensions.has(d) && !pinned.has(d) && (!only || only.includes(d)));
  const ranked: Ranked[] = [];
  for (const dimension of candidates) {
    const result = await compare({ ...scoped, align_on: [dimension], top: CONCENTRATION_ROWS }, context);
    // One value on both sides cannot tell anything apart.
    if (result.summary.aligned_rows < 2 || result.top_differences.length === 0) continue;
    const spread = result.top_differences.reduce((sum, row) => sum + Math.abs(row.difference), 0);
    const values = result.top_differences.slice(0, VALUES_PER_DIMENSION).map((row) => ({
      value: ((row as Record<string, unknown>)[dimension] as string | null) ?? null,
      a: row.a,
      b: row.b,
      difference: row.difference,
      share_percent: Math.round((row.difference / gap) * 1000) / 10,
    }));
    // How much of all the differences along this dimension the largest value carries.
    ranked.push({ dimension, values_compared: result.summary.aligned_rows, explains_percent: Math.round((Math.abs(values[0]!.difference) / spread) * 1000) / 10, values, ...uniformPercent(result.top_differences, result.summary) });
  }
  // Most informative first: one value carrying the gap says more when it was picked out of many
  // (group account G4000000 of 7 accounts) than out of two (partner blank vs partner 1000).
  const score = (r: Ranked) => r.explains_percent * Math.log2(1 + r.values_compared);
  return ranked.sort((x, y) => score(y) - score(x));
}

async function findOneSidedCauses(scoped: CompareArguments, only: string[] | undefined, gap: number, a: Source, b: Source, context: ToolContext): Promise<OneSided[]> {
  const found: OneSided[] = [];
  const tolerance = Math.max(0.01, Math.abs(gap) * 0.001);
  for (const [source, other, sideFilters, sign] of [[a, b, scoped.filters_a, 1], [b, a, scoped.filters_b, -1]] as const) {
    if (a.name === b.name) break;
    const measureName = typeof scoped.measure === 'string' ? scoped.measure : sign === 1 ? scoped.measure.a : scoped.measure.b;
    const measure = source.measures.get(measureName)!;
    const filters = resolveFilters(source, { ...scoped.filters, ...sideFilters });
    const candidates = [...source.dimensions.keys()].filter((d) => !other.dimensions.has(d) && (!only || only.includes(d)));
    for (const dimension of candidates) {
      const column = source.dimensions.get(dimension)!.column;
      const result = await context.data.aggregate(
        {
          table: source.table,
          groupBy: [{ name: dimension, column }],
          measures: [{ name: 'amount', aggregation: measure.aggregation, column: measure.column }],
          where: toWhere(filters.conditions),
          orderBy: [],
          limit: MAX_ONE_SIDED_VALUES,
        },
        context.signal,
      );
      // A dimension with one value, or too many to scan, cannot single out a cause.
      if (result.totalRows < 2 || result.totalRows > MAX_ONE_SIDED_VALUES) continue;
      for (const row of result.rows) {
        const amount = Number(row.amount);
        if (Math.abs(amount - sign * gap) <= tolerance) found.push({ source: source.name, dimension, value: (row[dimension] as string | null) ?? null, amount: Math.round(amount * 100) / 100 });
      }
    }
  }
  return found;
}

/** "fi_reporting", or "consolidation_mart BUDGET" when both sides are one source. */
function sideLabel(args: CompareArguments, side: 'a' | 'b'): string {
  const name = side === 'a' ? args.source_a : args.source_b;
  if (args.source_a !== args.source_b) return name;
  const own = Object.values((side === 'a' ? args.filters_a : args.filters_b) ?? {}).map((v) => (Array.isArray(v) ? v.join('+') : String(v)));
  return own.length ? `${name} ${own.join(', ')}` : `${name} (${side})`;
}

function describeKey(key: Record<string, string | null>): string {
  return Object.entries(key).map(([name, value]) => `${name.replace(/_/g, ' ')} ${value ?? '(blank)'}`).join(', ') || 'the whole scope';
}

function explain(key: Record<string, string | null>, gap: number, currency: string | null, nameA: string, nameB: string, ranked: Ranked[], oneSided: OneSided[]): string {
  const higher = gap > 0 ? nameA : nameB;
  const parts = [`The gap of ${formatAmount(Math.abs(gap), currency)} at ${describeKey(key)} (${higher} higher)`];
  const uniform = ranked.filter((r) => r.uniform_percent !== undefined).sort((x, y) => y.values.length - x.values.length)[0];
  const best = ranked[0];
  if (uniform && (!best || best.explains_percent < 99.5)) {
    parts[0] += ` is not one posting: every ${uniform.dimension.replace(/_/g, ' ')} differs by the same ${uniform.uniform_percent}%, which points to a different rate (e.g. currency translation) in one source.`;
  } else if (best && best.values[0]) {
    const top = best.values[0];
    const where = `${best.dimension.replace(/_/g, ' ')} ${top.value ?? '(blank)'}`;
    if (best.explains_percent >= 99.5) parts[0] += ` is entirely ${where}.`;
    else if (best.explains_percent >= 60) parts[0] += ` sits mostly in ${where} (${best.explains_percent}% of the differences along ${best.dimension.replace(/_/g, ' ')}).`;
    else {
      const listed = best.values.slice(0, 3).map((v) => `${v.value ?? '(blank)'} ${formatAmount(v.difference, currency)}`).join(', ');
      parts[0] += ` is spread across ${best.dimension.replace(/_/g, ' ')} values (largest: ${listed}), as a rate or a systematic difference would be.`;
    }
  } else {
    parts[0] += '.';
  }
  for (const cause of oneSided.slice(0, 3)) {
    parts.push(`In ${cause.source}, ${cause.dimension.replace(/_/g, ' ')} ${cause.value ?? '(blank)'} holds ${formatAmount(cause.amount, currency)}, ${Math.abs(Math.abs(cause.amount) - Math.abs(gap)) < 0.005 ? 'exactly' : 'about'} the gap.`);
  }
  return parts.join(' ');
}
