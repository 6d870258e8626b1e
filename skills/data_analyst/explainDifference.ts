/**
 * explain_difference: finds what accounts for a gap between two sources. It explains one
 * aligned row, or the net of all rows when several differ (then by contribution to the net:
 * drivers, and the offsets that go the other way). For each dimension both sources share it
 * ranks the values by contribution; it recognises a duplicated load when both sides carry load
 * requests, a uniform rate, and a value of a one-sided dimension (load request, audit trail…)
 * that carries exactly the gap.
 */
import { briefForModel, defineTool, findSource, nameArgument, periodDimension, refuseReservedKeys, sideLabels, ToolError, valueArgument, type FilterInput, type Source } from '../../src/skills/api.ts';
import { z } from 'zod';
import { compare, compareInput, type CompareArguments, type ComparisonResult } from './compareSources.ts';
import { recallComparison } from './comparisonStore.ts';
import { findDuplicatedLoad, loadDimension } from './duplicatedLoad.ts';
import { causeOf, explanationText } from './explanationText.ts';
import { candidateDimensions, largestItems, rankDimensions, type Items, type RankedDimension } from './gapBreakdown.ts';
import { findOneSidedCauses } from './oneSidedCauses.ts';
import { presentExplanation } from './presentations.ts';
import { explanationOutput } from './schemas.ts';
import { describeExplanation } from './summaries.ts';

const input = z
  .strictObject({
    comparison_id: nameArgument().optional(),
    comparison: briefForModel(compareInput.optional()).describe('or the compare_sources arguments'),
    // refuseReservedKeys: zod would silently drop a `__proto__` key; it is refused like any unknown dimension.
    key: z
      .preprocess(refuseReservedKeys, z.record(nameArgument(), z.union([valueArgument(), z.null()])))
      .optional()
      .describe('the aligned row, e.g. {"company":"1000","period":"2024012"}; {}: the net of all rows'),
    dimensions: z.array(nameArgument()).max(12).optional().describe('default: all that could explain it'),
  })
  .refine((value) => value.comparison_id !== undefined || value.comparison !== undefined, { error: 'give comparison_id or comparison' });

type Key = Record<string, string | null>;
type Overview = Pick<ComparisonResult, 'align_on' | 'summary' | 'top_differences' | 'sides_without_rows'>;

export const explainDifference = defineTool({
  name: 'explain_difference',
  description: 'Why the sides of a comparison differ: drivers and offsets of the gap, duplicated loads, one-sided records, the cause in words.',
  input,
  output: explanationOutput,
  handler: async (args, context) => {
    const stored = args.comparison_id ? await recallComparison(context, args.comparison_id) : undefined;
    const base: CompareArguments = stored ? (stored.args as CompareArguments) : args.comparison!;
    const overview = (stored ? stored.result : await compare({ ...base, top: 1 }, context, { checkSides: true })) as unknown as Overview;
    const sourceA = findSource(context.catalog, base.source_a);
    const sourceB = findSource(context.catalog, base.source_b);
    const empty = overview.sides_without_rows?.length === 1 ? overview.sides_without_rows[0]! : undefined;
    if (empty) {
      // No drivers, offsets or rates to find: one side simply has no rows for these filters.
      const labels = sideLabels(base);
      const [emptyName, otherName] = empty === 'a' ? labels : [labels[1], labels[0]];
      return { explanation: `There is no gap to explain: ${emptyName} has no rows for these filters, so every figure is only in ${otherName}.`, summary: overview.summary };
    }
    // The currency key may be a fixed currency rather than a dimension: the gap picks it instead.
    const alignOn = overview.align_on.filter((d) => d !== 'currency');
    const target = chooseTarget(overview, args.key, alignOn, currencyDimension(base, sourceA, sourceB));
    if (!target) return { explanation: 'There is nothing to explain: every aligned row matches.', summary: overview.summary };
    const { key, mode } = target;
    const scoped: CompareArguments = { ...base, filters: { ...base.filters, ...keyFilters(target.filters, sourceA, sourceB) }, align_on: [], top: 1 };
    const gapResult = await compare(scoped, context);
    const where = mode === 'row' ? `at ${describeKey(key)}` : describeScope(gapResult.filters_a, gapResult.filters_b, Object.keys(base.filters ?? {}));
    // A scope that spans several currencies: explain the currency with the largest gap.
    const gap = [...gapResult.summary.totals].sort((x, y) => Math.abs(y.difference) - Math.abs(x.difference))[0];
    if (!gap || gap.difference === 0) return { key, explanation: `There is no gap ${where}.`, summary: gapResult.summary };
    const currency = gap.currency ?? null;

    const candidates = candidateDimensions(sourceA, sourceB, scoped, mode === 'row' ? alignOn : [], args.dimensions);
    // One after the other: rankDimensions already uses every worker the data layer has.
    const byDimension = await rankDimensions(scoped, candidates, gap.difference, context);
    const duplicated = await findDuplicatedLoad(scoped, { difference: gap.difference, currency }, sourceA, sourceB, args.dimensions, context);
    const location = businessDimensions(byDimension, sourceA, sourceB)[0];
    const cause = causeOf(byDimension, duplicated);
    const items = cause === 'drivers' && location ? await largestItems(scoped, itemDimensions(location.dimension, mode === 'net' ? alignOn : [], candidates, sourceA), gap.difference, context) : undefined;
    const targets = [{ difference: gap.difference }, ...(items?.drivers ?? []).map((item) => ({ difference: item.difference, key: itemKey(item, items!) }))];
    const oneSided = await findOneSidedCauses(scoped, args.dimensions, targets, sourceA, sourceB, context);
    const rows = mode === 'net' ? { aligned: overview.summary.aligned_rows, differing: differingRows(overview.summary) } : undefined;
    const [nameA, nameB] = sideLabels(base);
    return {
      key,
      target: mode,
      gap: { currency, total_a: gap.total_a, total_b: gap.total_b, difference: gap.difference },
      ...(rows ? { rows } : {}),
      cause,
      by_dimension: byDimension,
      ...(items ? { items } : {}),
      ...(duplicated ? { duplicated_load: duplicated } : {}),
      one_sided: oneSided,
      explanation: explanationText({ target: mode, where, gap: gap.difference, currency, nameA, nameB, ...(rows ? { rows } : {}), ranked: byDimension, ...(location ? { location } : {}), ...(items ? { items } : {}), ...(duplicated ? { duplicated } : {}), oneSided }),
    };
  },
  summarize: describeExplanation,
  present: presentExplanation,
});

/**
 * The row to explain, or the net. A net carried by one row (or one that cancels out) is that
 * row; otherwise the rows drive and offset each other, and the largest row may even go against
 * the net, so the net is what needs explaining.
 */
function chooseTarget(overview: Overview, given: Key | undefined, alignOn: string[], currencyName: string | undefined): { mode: 'row' | 'net'; key: Key; filters: FilterInput } | undefined {
  if (given && Object.keys(given).length > 0) return { mode: 'row', key: given, filters: given };
  const top = overview.top_differences[0] as (Record<string, unknown> & { difference: number }) | undefined;
  if (!top) return undefined;
  const rowKey: Key = Object.fromEntries(alignOn.map((name) => [name, (top[name] as string | null) ?? null]));
  const currency = (top.currency as string | undefined) ?? null;
  const totals = overview.summary.totals;
  const net = (totals.find((t) => (t.currency ?? null) === currency) ?? (totals.length === 1 ? totals[0] : undefined))?.difference ?? 0;
  const rowIsNet = Math.abs(top.difference - net) <= Math.max(0.01, Math.abs(net) * 0.005);
  const single = overview.summary.aligned_rows < 2 || Math.abs(net) < 0.005 || rowIsNet;
  if (!given && single) return { mode: 'row', key: rowKey, filters: rowKey };
  // The net of one currency (that of the largest row): amounts of different currencies never add up.
  return { mode: 'net', key: {}, filters: currencyName && currency !== null ? { [currencyName]: currency } : {} };
}

/** The currency dimension both sides' measures name, if any (filtering on it keeps one currency). */
function currencyDimension(args: CompareArguments, a: Source, b: Source): string | undefined {
  const nameA = a.measures.get(typeof args.measure === 'string' ? args.measure : args.measure.a)?.currencyDimension;
  const nameB = b.measures.get(typeof args.measure === 'string' ? args.measure : args.measure.b)?.currencyDimension;
  return nameA && nameA === nameB && a.dimensions.has(nameA) && b.dimensions.has(nameA) ? nameA : undefined;
}

/** The key as filters, for the dimensions both sources have. */
function keyFilters(key: FilterInput, a: Source, b: Source): FilterInput {
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

/** Ranked dimensions that say where in the business a gap sits: not record identifiers, not load metadata. */
function businessDimensions(ranked: RankedDimension[], a: Source, b: Source): RankedDimension[] {
  const technical = new Set([loadDimension(a)?.name, loadDimension(b)?.name]);
  return ranked.filter((r) => a.dimensions.get(r.dimension)?.cardinality !== 'high' && !technical.has(r.dimension));
}

/**
 * The lead dimension crossed with the comparison's own rows (for a net) and the period, where
 * they can still vary; in catalog order, so items read "period 2024009, group account G5100000".
 */
function itemDimensions(lead: string, alignOn: string[], candidates: string[], a: Source): string[] {
  const period = periodDimension(a)?.name;
  const wanted = new Set([lead, ...alignOn, ...(period ? [period] : [])]);
  return [...a.dimensions.keys()].filter((d) => wanted.has(d) && candidates.includes(d));
}

function itemKey(item: Items['drivers'][number], items: Items): Record<string, string | number | null> {
  return Object.fromEntries(items.dimensions.map((name) => [name, item[name] ?? null]));
}

function differingRows(summary: ComparisonResult['summary']): number {
  return summary.minor_diff + summary.major_diff + summary.only_in_a + summary.only_in_b;
}

/** "fi_reporting", or "consolidation_mart BUDGET" when both sides are one source. */


function describeKey(key: Key): string {
  return Object.entries(key).map(([name, value]) => `${name.replace(/_/g, ' ')} ${value ?? '(blank)'}`).join(', ') || 'the whole scope';
}

/** "for company 2000, period 2024001 to 2024012": the shared filters as applied (not catalog defaults, not the currency the gap names). */
function describeScope(a: Record<string, unknown>, b: Record<string, unknown>, given: string[]): string {
  const show = (value: unknown): string => {
    if (Array.isArray(value)) return value.map(show).join(', ');
    if (value !== null && typeof value === 'object') {
      const range = value as { from?: string; to?: string };
      return `${range.from ?? '…'} to ${range.to ?? '…'}`;
    }
    return value === null || value === undefined ? '(blank)' : String(value);
  };
  const shared = Object.entries(a).filter(([name, value]) => given.includes(name) && JSON.stringify(value) === JSON.stringify(b[name]));
  return shared.length ? `for ${shared.map(([name, value]) => `${name.replace(/_/g, ' ')} ${show(value)}`).join(', ')}` : 'over all rows';
}
